"""The `corpora` commands, one module each (corpora/commands/NAME.py): its HELP and EXAMPLE, the
options it adds to its subparser (`add_arguments`) and `run(args)`, which returns the exit status.
A command imports what it needs (datasets, DuckDB) when it runs: `corpora --help` and a Ctrl-C
at the start stay quick. What the commands share is here."""

from __future__ import annotations

import importlib
import sys

NAMES = ("list", "build", "checksums", "card", "new", "validate", "push", "diff")  # in `corpora --help`'s order


def module(name: str):
    """The module of the command `name`."""
    return importlib.import_module(f"corpora.commands.{name}")


def names(args) -> list[str]:
    """The corpora given as NAME... or --all."""
    from corpora import registry
    from corpora.errors import CorporaError

    if args.all and args.names:
        raise CorporaError("give corpus names or --all, not both")
    if not args.all and not args.names:
        raise CorporaError("give at least one corpus name, or --all")
    return registry.names() if args.all else args.names


def print_table(header: list[str], rows: list[list]) -> None:
    """Columns of numbers (ints, None shown as "unknown") right-aligned, header included; the
    others left-aligned."""
    numeric = [all(isinstance(row[i], int | None) for row in rows) for i in range(len(header))]
    shown = [[f"{v:,}" if isinstance(v, int) else "unknown" if v is None else str(v) for v in row] for row in rows]
    cells = [header] + shown
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    for row in cells:
        padded = (v.rjust(w) if number else v.ljust(w) for v, w, number in zip(row, widths, numeric, strict=True))
        print("  ".join(padded).rstrip())


def quiet_progress(always: bool = False) -> None:
    """datasets' progress bars only on a terminal (none in logs), one per split; `always` for
    commands whose builds are internal checks (card --check, validate)."""
    import datasets

    if always or not sys.stderr.isatty():
        datasets.disable_progress_bars()


def quiet_hub_progress() -> None:
    """huggingface_hub's progress bars (uploads, downloads) only on a terminal."""
    from huggingface_hub.utils import disable_progress_bars

    if not sys.stderr.isatty():
        disable_progress_bars()
