"""The `corpora` command: list, build, checksums, card, new, validate, push, diff."""

from __future__ import annotations

import os
import signal
import sys

STOPPED = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}


def _prefix(command: str) -> str:
    return f"corpora {command}" if command else "corpora"


def _command_name(argv: list[str] | None = None) -> str:
    """The subcommand, read off the arguments before they are parsed (a signal may come first)."""
    return next((arg for arg in (sys.argv[1:] if argv is None else argv) if arg in COMMAND_NAMES), "")


COMMAND_NAMES = ("list", "build", "checksums", "card", "new", "validate", "push", "diff")


def _stopped_early(signum, frame):
    os.write(2, f"{_prefix(_command_name())}: {STOPPED[signum]}\n".encode())
    os._exit(128 + signum)


# Run as the command (not imported as a library): Ctrl-C and SIGTERM are one line from here on,
# before the imports below; main() then makes them unwind the stack.
AS_COMMAND = __name__ == "__main__" or os.path.basename(sys.argv[0]) == "corpora"
if AS_COMMAND:
    for _signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(_signum, _stopped_early)

import argparse  # noqa: E402
import contextlib  # noqa: E402
import ctypes  # noqa: E402
from pathlib import Path  # noqa: E402

from corpora.errors import STOP_SIGNALS  # noqa: E402
from corpora.errors import CorporaError  # noqa: E402
from corpora.errors import Terminated  # noqa: E402
from corpora.errors import chain  # noqa: E402
from corpora.errors import stop_if_asked  # noqa: E402


def parse(argv: list[str] | None) -> argparse.Namespace:
    return make_parser().parse_args(argv)


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="corpora", description=__doc__)
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    # --debug is accepted after the subcommand too. SUPPRESS: a subcommand that is not given it
    # keeps the value parsed before the subcommand instead of resetting it.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks")
    commands = _Commands(parser.add_subparsers(dest="command", required=True), common)

    commands.add_parser("list", help="corpora, configs, splits and official sizes", example="corpora list")

    build = commands.add_parser("build", help="build corpora and export them as Parquet folders",
                                example="corpora build NAME --config CONFIG --out build")
    build.add_argument("names", nargs="*", metavar="NAME", help="the corpora to build (`corpora list` names them)")
    build.add_argument("--all", action="store_true", help="every corpus")
    build.add_argument("--config", action="append", dest="configs", metavar="C", help="only this config (repeatable)")
    source = build.add_mutually_exclusive_group()
    source.add_argument("--data-dir", metavar="DIR", help="a local copy laid out like the upstream repository")
    source.add_argument("--dummy", action="store_true", help="the dummy data in dummy_data/NAME/")
    build.add_argument("--out", default="build", metavar="DIR", help="export folder (default: build)")
    build.add_argument("--num-proc", type=int, metavar="N", help="processes for preparing the splits")
    build.add_argument("--allow-modified-sources", action="store_true",
                       help="build source files that differ from the recorded release (sizes are still checked)")
    build.add_argument("--lock-timeout", type=float, metavar="SECONDS",
                       help="while another build writes the same OUT/NAME, wait at most this long (default: until "
                            "it ends)")
    build.add_argument("--drop-other-configs", action="store_true",
                       help="replace an OUT/NAME export that holds configs this build does not make (one the "
                            "loader has renamed or removed, or one left out with --config): they are removed")
    build.add_argument("--compare-to", metavar="OLD",
                       help="before the swap, print what the build changes in the rows of OLD/NAME (OLD: an export "
                            "folder, e.g. the --out folder itself for the export being replaced)")

    checksums = commands.add_parser(
        "checksums", help="measure the source files against loaders/NAME/checksums.tsv; --update records them",
        example="corpora checksums NAME --data-dir DIR",
    )
    checksums.add_argument("names", nargs="*", metavar="NAME", help="the corpora whose source files to measure")
    checksums.add_argument("--all", action="store_true", help="every corpus")
    checksums.add_argument("--config", action="append", dest="configs", metavar="C",
                           help="only the files of this config (repeatable)")
    checksums.add_argument("--data-dir", metavar="DIR", help="measure a local copy instead of downloading")
    checksums.add_argument("--update", action="store_true", help="write the measured size and sha256")

    card = commands.add_parser("card", help="(re)write loaders/NAME/README.md from dataset_cards/NAME.yaml, once the "
                               "shared modules of loaders/NAME/ are as generated from src/corpora/loader_shared/",
                               example="corpora card --all --check")
    card.add_argument("names", nargs="*", metavar="NAME", help="the corpora whose card to write or check")
    card.add_argument("--all", action="store_true", help="every corpus")
    card.add_argument("--check", action="store_true", help="only report differences; exit 1 if any")
    card.add_argument("--sizes-from", metavar="OUT",
                      help="keep the byte sizes measured by `corpora build NAME --out OUT` from the release files")

    new = commands.add_parser("new", help="write a new corpus's folders as a working skeleton (like `tfds new`)",
                              example="corpora new NAME")
    new.add_argument("name", metavar="NAME", help="the new corpus's name: lower-case words joined by _")

    validate = commands.add_parser("validate", help="cards, dummy builds and export round trips; or an export folder",
                                   example="corpora validate NAME, or corpora validate build/NAME")
    validate.add_argument("names", nargs="*", metavar="NAME|PATH",
                          help="corpora (default: every corpus), or export folders on disk (OUT/NAME) to check "
                               "before an upload: the card against the files, files that are not the export's, "
                               "croissant.json's sha256s, the reload")

    push = commands.add_parser("push", help="build and upload a corpus to the Hugging Face Hub",
                               example="corpora push NAME --repo-id your-org/NAME --dry-run")
    push.add_argument("name", metavar="NAME", help="the corpus to build and upload")
    push.add_argument("--repo-id", required=True, metavar="ID", help="the Hub dataset repository, e.g. your-org/NAME")
    push.add_argument("--private", action="store_true", help="create the Hub repository as private")
    push.add_argument("--dry-run", action="store_true", help="build and show what would be uploaded")
    push.add_argument("--config", action="append", dest="configs", metavar="C",
                      help="build and upload only this config (repeatable; default: every config)")
    push.add_argument("--data-dir", metavar="DIR", help="build from a local copy instead of the pinned URLs")
    push.add_argument("--out", default="build", metavar="DIR", help="where the export is built first (default: build)")
    push.add_argument("--allow-modified-sources", action="store_true",
                      help="publish a build of files that differ from the recorded release")
    push.add_argument("--revision", metavar="BRANCH",
                      help="commit to this branch, created from main if needed (default: main)")
    push.add_argument("--create-pr", action="store_true",
                      help="open a pull request with the commit instead of committing to the branch")
    push.add_argument("--take-over", action="store_true",
                      help="push into a repository whose card corpora did not write for NAME: replaces its "
                           "README.md and croissant.json and deletes the Parquet files under CONFIG/ of each config "
                           "pushed that the export does not have; keeps every other file")

    diff = commands.add_parser(
        "diff", help="what changed in the rows between two exports (exit 0 identical, 1 different, 2 error)",
        example="corpora diff build-old/NAME build/NAME --format markdown",
    )
    diff.add_argument("old", metavar="OLD", help="an export folder, OUT/NAME, or a published one, "
                      "hf://datasets/ORG/NAME@REVISION (e.g. @v1.0.0; downloaded into huggingface_hub's cache)")
    diff.add_argument("new", metavar="NEW", help="an export folder, OUT/NAME, or hf://datasets/ORG/NAME@REVISION")
    diff.add_argument("--format", choices=["text", "markdown", "json"], default="text", dest="style",
                      help="the report's form (default: text)")
    diff.add_argument("--config", action="append", dest="configs", metavar="C", help="only this config (repeatable)")
    diff.add_argument("--key", action="append", dest="keys", metavar="CONFIG=COL[,COL]", default=[],
                      help="match CONFIG's rows by these columns instead of the loader's key "
                           "(CONFIG= alone: by position; repeatable)")
    return parser


class _Commands:
    """Subparsers that all accept the common options (--debug)."""

    def __init__(self, subparsers, common: argparse.ArgumentParser):
        self.subparsers, self.common = subparsers, common

    def add_parser(self, name: str, example: str, **kwargs) -> argparse.ArgumentParser:
        return self.subparsers.add_parser(name, parents=[self.common], epilog=f"example: {example}",
                                          formatter_class=argparse.RawDescriptionHelpFormatter, **kwargs)


def main(argv: list[str] | None = None) -> int:
    # From the first instruction on, Ctrl-C and SIGTERM end the command with one line (130, 143);
    # they unwind like an exception, so every `finally` cleans up.
    handlers = {signum: signal.signal(signum, _stop) for signum in (signal.SIGINT, signal.SIGTERM)}
    command, debug = _command_name(argv), "--debug" in (sys.argv[1:] if argv is None else argv)
    STOP_SIGNALS.clear()
    try:
        args = parse(argv)
        command, debug = args.command, args.debug
        status = COMMANDS[args.command](args)
        stop_if_asked()  # raised where Python ignored it, after the last phase
        return _ended(status)
    except BaseException as error:  # noqa: BLE001 - each kind of ending has its status and line
        stopped = _stopped_by(error)
        if debug or isinstance(error, SystemExit) or (stopped is None and not isinstance(error, Exception)):
            raise
        if stopped is not None:
            print(f"{_prefix(command)}: {STOPPED[stopped]}", file=sys.stderr)
            return _ended(128 + stopped)  # a module whose import the signal cut short must not run at exit
        if isinstance(error, BrokenPipeError):
            # The reader went away (`corpora list | head`): stop quietly, as other command-line tools
            # do, and keep Python from failing again when it flushes stdout at exit.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return _ended(128 + signal.SIGPIPE)
        print(f"{_prefix(command)}: error: {_one_line(error)}", file=sys.stderr)
        return _ended(ERROR_STATUS.get(command, 1))
    finally:
        if not AS_COMMAND:
            for signum, handler in handlers.items():
                signal.signal(signum, handler)


_STOPPING: list[int] = []  # the signal that is ending the build with its worker processes


def _ended(status: int) -> int:
    """The command has ended with `status` (said on stderr if it failed). As the command, the
    process exits here: a signal while Python shut down would find its default handlers back
    and kill the process after its work was done, with nothing said."""
    if AS_COMMAND:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(status)
    return status


def _stopped_by(error: BaseException) -> int | None:
    """SIGINT or SIGTERM if the error is one, or arose while one unwound the stack (datasets'
    worker pool, closed by Ctrl-C, raises a TimeoutError of its own)."""
    for cause in chain(error):
        if isinstance(cause, KeyboardInterrupt):
            return signal.SIGINT
        if isinstance(cause, Terminated):
            return signal.SIGTERM
    return None


def _stop(signum, frame):
    """Ctrl-C or SIGTERM. With worker processes alive (--num-proc), their pool cannot be closed
    safely any more (a worker killed while it holds the task queue's lock hangs the parent), so
    the workers are killed, the build's partial folder removed, and the process exits here."""
    if _STOPPING:  # a second signal while the first one ends the build
        return
    children = _worker_processes()
    if children:
        _STOPPING.append(signum)
        # The pool starts a new worker for each one that dies: kill and reap until none is left,
        # so that none outlives the build and none writes to the partial folder once it is gone.
        killed = set()
        for _ in range(10):  # a few rounds at most: each replacement is killed in the next one
            for child in children:
                with contextlib.suppress(OSError):
                    os.kill(child, signal.SIGKILL)
            _reap(children)
            killed.update(children)
            children = [child for child in _worker_processes() if child not in killed]
            if not children:
                break
        from corpora import exports

        exports.abandon_all()
        os.write(2, f"{_prefix(_command_name())}: {STOPPED[signum]}\n".encode())
        os._exit(128 + signum)
    STOP_SIGNALS.append(signum)
    raise KeyboardInterrupt() if signum == signal.SIGINT else Terminated()


def _reap(children: list[int], seconds: float = 5.0) -> None:
    import time

    deadline = time.monotonic() + seconds
    waiting = set(children)
    while waiting and time.monotonic() < deadline:
        for child in list(waiting):
            try:
                done, _ = os.waitpid(child, os.WNOHANG)
            except ChildProcessError:
                done = child
            if done:
                waiting.discard(child)
        if waiting:
            time.sleep(0.01)


def _worker_processes() -> list[int]:
    """The pids of the worker processes this process started (multiprocess, as datasets uses it)."""
    pids = []
    for name in ("multiprocess", "multiprocessing"):
        # A module whose import the signal cut short may lack the function: no workers yet, then.
        active_children = getattr(sys.modules.get(name), "active_children", None)
        with contextlib.suppress(Exception):
            pids += [child.pid for child in active_children() if child.pid] if active_children else []
    return pids


def _in_worker():
    # A forked worker (num_proc) is ended by its pool with SIGTERM, and dies of it as usual (a
    # Python handler would only set a flag, and a worker whose other thread took the signal
    # waited forever on its task queue). Ctrl-C is for the parent, which ends the workers. A
    # worker dies with its parent, even one killed with SIGKILL (Linux: PR_SET_PDEATHSIG).
    if signal.getsignal(signal.SIGTERM) is _stop or _STOPPING:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if sys.platform.startswith("linux"):
            with contextlib.suppress(OSError, AttributeError):
                ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


os.register_at_fork(after_in_child=_in_worker)


def _one_line(error: BaseException) -> str:
    """The error as one line: an OS error as `PATH: reason`; for an error datasets wraps
    (DatasetGenerationError), the loader's own error, which is its cause."""
    if type(error).__name__ == "DatasetGenerationError":
        from corpora.datasets_adapter import loader_error

        error = loader_error(error)
    if isinstance(error, OSError) and error.errno is not None and error.filename is not None:
        return f"{error.filename}: {os.strerror(error.errno)}"
    from huggingface_hub.errors import HfHubHTTPError

    known = (CorporaError, ValueError, OSError, HfHubHTTPError)
    text = " ".join(str(error).split())
    # Anything unexpected is still one line, with its type, the way to its traceback.
    return text if isinstance(error, known) else f"{type(error).__name__}: {text} (--debug shows the traceback)"


def _names(args) -> list[str]:
    from corpora import registry

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


def cmd_list(args) -> int:
    from corpora import registry

    rows = []
    for corpus in registry.all_corpora():
        for config, splits in corpus.split_sizes.items():
            default = " (default)" if config == corpus.default_config else ""
            for split, size in splits.items():
                rows.append([corpus.name, config + default, split, size])
    print_table(["corpus", "config", "split", "official rows"], rows)
    return 0


def cmd_build(args) -> int:
    from corpora import build
    from corpora import prepare
    from corpora import registry

    quiet_progress()
    rows = []
    last = "dummy data expects" if args.dummy else "official"
    header = ["corpus", "config", "split", "source records", "rows written", last]
    for name in _names(args):
        request = prepare.Request(name, args.configs, args.data_dir, args.dummy, args.allow_modified_sources,
                                   args.num_proc)
        try:
            rows_built = build.export(request, args.out, lock_timeout=args.lock_timeout, compare_to=args.compare_to,
                                      drop_other_configs=args.drop_other_configs)
        except BaseException:
            if rows:  # the corpora exported before this one are whole: say so before the error
                print(f"exported to {args.out}/ before {name} stopped:")
                print_table(header, rows)
            raise
        expected = registry.get(name).expected_dummy_counts() if args.dummy else None
        for r in rows_built:
            official = expected[r.config][r.split] if args.dummy else r.official
            if r.differs:  # a build with --allow-modified-sources: shown, not refused
                official = f"{r.official:,} (differs)"
            rows.append([r.corpus, r.config, r.split, r.read, r.rows, official])
    # The rows written are those load_dataset reads back through each exported card.
    print(f"exported to {args.out}/:")
    print_table(header, rows)
    return 0


def cmd_checksums(args) -> int:
    from corpora import registry
    from corpora import sources

    differing = 0
    for name in _names(args):
        corpus = registry.get(name)
        for config in args.configs or []:
            if config not in corpus.configs:
                raise CorporaError(f"{name} has no config {config!r}; configs: {', '.join(corpus.configs)}")
        if args.update:
            registry.require_checkout(f"loaders/{name}/checksums.tsv")
        # Every file, whatever it holds: measuring it is the point.
        given = sources.find(corpus, args.configs, args.data_dir, allow_modified_sources=True)
        files = given.files
        sources.check_not_lfs_pointers(corpus, files, given.folder if given.local else None)  # never the release
        records = sources.read_records(corpus)
        rows = []
        for path, file in files.items():
            url = corpus.module._URLS[path]
            measured = sources.measure(file)
            status = "ok" if records.get(url) == measured else ("new" if url not in records else "differs")
            differing += status != "ok"
            rows.append([path, measured.size, measured.sha256, status])
            records[url] = measured
        print_table(["path", "bytes", "sha256", "record"], rows)
        if args.update:
            sources.write_records(corpus, records)
            print(f"wrote loaders/{name}/checksums.tsv")
    return 1 if differing and not args.update else 0


def cmd_card(args) -> int:
    from corpora import cards
    from corpora import loader_shared
    from corpora import prepare
    from corpora import registry

    quiet_progress(always=True)
    stale = 0
    for name in _names(args):
        if not args.check:  # refused before the dummy build, not after it
            registry.require_checkout(f"loaders/{name}/README.md")
        # Before the loader is imported: it imports these copies (code, which `python -m
        # corpora.loader_shared` writes, not this command).
        folder = registry.repo_root() / "loaders" / name
        if not (folder / f"{name}.py").is_file():
            registry.get(name)  # says that there is no such corpus
        outdated = loader_shared.stale_copies(folder, folder / f"{name}.py")
        if outdated:
            stale += 1
            listed = ", ".join(f"loaders/{name}/{module}" for module in outdated)
            print(f"{listed}: not as generated from src/corpora/loader_shared/: run "
                  f"`python -m corpora.loader_shared {name}`", file=sys.stderr)
            continue  # the loader may not even import
        corpus = registry.get(name)
        examples = prepare.dummy_examples(name)  # the card shows the first example of each config
        if args.check:
            diff = cards.check(corpus, examples)
            if diff:
                stale += 1
                print(diff)
                print(f"{corpus.card_path.name} of {name} is out of date: run `corpora card {name}`", file=sys.stderr)
            else:
                print(f"{name}: card up to date")
        elif args.sizes_from:
            export = Path(args.sizes_from) / name
            if not (export / "README.md").is_file():
                raise CorporaError(
                    f"no export of {name} in {args.sizes_from}: run `corpora build {name} --out {args.sizes_from}`"
                )
            recorded = cards.write_sizes_from_export(corpus, export, examples)
            if not recorded:
                raise CorporaError(f"{export} has no config with the official split sizes (not a build of the release)")
            print(f"wrote loaders/{name}/README.md: the byte sizes of {export} for {', '.join(recorded)}")
        else:
            card = corpus.card_path.relative_to(corpus.root)
            print(f"wrote {card}" if cards.write(corpus, examples) else f"{card}: unchanged")
    return 1 if stale else 0


def cmd_new(args) -> int:
    from corpora import registry
    from corpora import scaffold

    quiet_progress(always=True)
    written = scaffold.new(args.name)
    root = registry.repo_root()
    for path in written:
        print(f"wrote {path.relative_to(root)}")
    print(f"""
{args.name} builds from its dummy data. Next, in this order:
  1. loaders/{args.name}/{args.name}.py: the pinned URLs (_URL_PREFIX, each config's files), the
     official sizes (split_sizes), the features and the typing of the records, for the real files;
  2. dummy_data/{args.name}/: a few records per split in the real format, every quirk of it, and
     their counts in expected_counts.json;
  3. dataset_cards/{args.name}.yaml: the card's text; tests/test_{args.name}.py: the quirks and the
     bad inputs (at least ten);
  4. `corpora checksums {args.name} --update` once the URLs are real, then `make cards`
     (the card, the shared modules, docs/bad_input.md) and `make test-one NAME={args.name}`.""")
    return 0


def cmd_validate(args) -> int:
    from corpora import registry
    from corpora import validate

    quiet_progress(always=True)
    failures = 0
    for name in args.names or registry.names():
        # A path (it has a slash, or is a folder here and no corpus) is an export folder on disk.
        folder = "/" in name or (Path(name).is_dir() and name not in registry.names())
        checks = validate.validate_export(Path(name)) if folder else validate.validate(name)
        for check, problem in checks:
            print(f"{name}: {check}: {'ok' if problem is None else 'FAILED: ' + problem}")
            failures += problem is not None
    return 1 if failures else 0


def cmd_push(args) -> int:
    from huggingface_hub.utils import disable_progress_bars

    from corpora import push

    quiet_progress()
    if not sys.stderr.isatty():  # the upload's bars too: none in logs
        disable_progress_bars()
    push.push(
        args.name, args.repo_id, private=args.private, dry_run=args.dry_run, data_dir=args.data_dir, out=args.out,
        allow_modified_sources=args.allow_modified_sources, configs=args.configs, revision=args.revision,
        create_pr=args.create_pr, take_over=args.take_over,
    )
    return 0


def cmd_diff(args) -> int:
    """Exit status like diff(1): 0 identical, 1 different, 2 trouble."""
    import duckdb
    from huggingface_hub.utils import disable_progress_bars

    from corpora import diff

    if not sys.stderr.isatty():  # a published side's download: no bars in logs
        disable_progress_bars()
    try:
        keys = {}
        for option in args.keys:
            config, equals, columns = option.partition("=")
            if not equals or not config:
                raise CorporaError(f"--key {option}: expected CONFIG=COL[,COL] (or CONFIG= for position)")
            keys[config] = [c for c in columns.split(",") if c]
        report = diff.compare(args.old, args.new, configs=args.configs, keys=keys)
    except (CorporaError, duckdb.Error, OSError, ValueError) as error:
        if args.debug:
            raise
        print(f"corpora diff: error: {_one_line(error)}", file=sys.stderr)
        return 2
    print(diff.render(report, args.style))
    return 0 if report.identical else 1


# diff's statuses are those of diff(1): 1 means "different", so trouble is 2.
ERROR_STATUS = {"diff": 2}

COMMANDS = {
    "list": cmd_list,
    "build": cmd_build,
    "checksums": cmd_checksums,
    "card": cmd_card,
    "new": cmd_new,
    "validate": cmd_validate,
    "push": cmd_push,
    "diff": cmd_diff,
}

if __name__ == "__main__":
    sys.exit(main())
