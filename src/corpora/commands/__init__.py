"""What the commands share; each command (NAME.py) imports datasets when it runs, so `--help` stays quick."""

from __future__ import annotations

import importlib
import sys

# in `corpora --help`'s order
NAMES = ("list", "build", "convert", "checksums", "card", "new", "validate", "push", "diff")


def module(name: str):
    """The module of the command `name`."""
    return importlib.import_module(f"corpora.commands.{name}")


def add_names(parser, what: str, metavar: str = "NAME") -> None:
    """NAME... or --all: `names(args)` reads them."""
    parser.add_argument("names", nargs="*", metavar=metavar, help=what)
    parser.add_argument("--all", action="store_true", help="every corpus")


def add_configs(parser, what: str = "only this config (repeatable)") -> None:
    parser.add_argument("--config", action="append", dest="configs", metavar="C", help=what)


def add_data_dir(parser, group=None) -> None:
    (group or parser).add_argument("--data-dir", metavar="DIR", help="a local copy laid out like the upstream "
                                   "repository, instead of the pinned URLs")


def add_out(parser) -> None:
    parser.add_argument("--out", default="build", metavar="DIR", help="the export folder (default: build)")


def add_allow_modified_sources(parser) -> None:
    parser.add_argument("--allow-modified-sources", action="store_true",
                        help="build source files that differ from the recorded release (checksums.tsv), into "
                             "splits of any size (one that differs from the official size is shown, not refused); "
                             "every record is still checked, and every split still holds one row per source record")


def at_least(kind: type[int] | type[float], minimum: int, what: str):
    """An argparse type: a `kind` of `minimum` or more, said as "a number of WHAT"."""
    import argparse

    from corpora import user_numbers

    def parse(text: str):
        value = user_numbers.number(text, kind, minimum)
        if value is None:
            raise argparse.ArgumentTypeError(f"expected a number of {what}, {minimum} or more; got {text!r}")
        return value

    return parse


def names(args) -> list[str]:
    """The corpora given as NAME... or --all."""
    from corpora import registry
    from corpora.errors import CorporaError

    if args.all and args.names:
        raise CorporaError("give corpus names or --all, not both")
    if not args.all and not args.names:
        raise CorporaError("give at least one corpus name, or --all")
    return registry.names() if args.all else args.names


def resolve(name: str):
    """The corpus `name`: looked up here, once per command, and passed on as it is."""
    from corpora import registry

    return registry.get(name)


def print_table(header: list[str], rows: list[list]) -> None:
    """Columns of numbers (None: "unknown") right-aligned, the others left-aligned."""
    numeric = [all(isinstance(row[i], int | None) for row in rows) for i in range(len(header))]
    shown = [[f"{v:,}" if isinstance(v, int) else "unknown" if v is None else str(v) for v in row] for row in rows]
    cells = [header] + shown
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    for row in cells:
        padded = (v.rjust(w) if number else v.ljust(w) for v, w, number in zip(row, widths, numeric, strict=True))
        print("  ".join(padded).rstrip())


def quiet_progress(always: bool = False) -> None:
    """datasets' progress bars only on a terminal; none at all (`always`) for internal checks."""
    import datasets

    if always or not sys.stderr.isatty():
        datasets.disable_progress_bars()


def quiet_hub_progress() -> None:
    """huggingface_hub's progress bars (uploads, downloads) only on a terminal."""
    from huggingface_hub.utils import disable_progress_bars

    if not sys.stderr.isatty():
        disable_progress_bars()
