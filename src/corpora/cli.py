"""The `corpora` command: list, build, convert, checksums, card, new, validate, push, diff."""

from __future__ import annotations

import argparse
import io
import os
import sys

from corpora import commands
from corpora import errors
from corpora import signals


def command_name(argv: list[str] | None = None) -> str:
    """The subcommand, read off the arguments before they are parsed (a signal may come first)."""
    return next((arg for arg in (sys.argv[1:] if argv is None else argv) if arg in commands.NAMES), "")


def prefix(command: str) -> str:
    return f"corpora {command}" if command else "corpora"


if signals.AS_COMMAND:  # a signal is one line from here on
    signals.end_at_once(prefix(command_name()))


def make_parser() -> argparse.ArgumentParser:
    """The top-level parser, with a subparser per command (corpora/commands/NAME.py)."""
    parser = argparse.ArgumentParser(prog="corpora", description=__doc__)
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    # --debug is accepted after the subcommand too. SUPPRESS: a subcommand that is not given it
    # keeps the value parsed before the subcommand instead of resetting it.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for name in commands.NAMES:
        command = commands.module(name)
        subparser = subparsers.add_parser(name, parents=[common], help=command.HELP,
                                          epilog=f"example: {command.EXAMPLE}",
                                          formatter_class=argparse.RawDescriptionHelpFormatter)
        command.add_arguments(subparser)
    return parser


def main(argv: list[str] | None = None) -> int:
    # From the first instruction on, Ctrl-C, SIGTERM and SIGHUP end the command with one line (130, 143, 129).
    handlers = signals.handle_stops()
    command, debug = command_name(argv), "--debug" in (sys.argv[1:] if argv is None else argv)
    error_status = 1
    unwritten = None
    if sys.stdout is None:  # started with standard output closed (`>&-`): what it would show is counted, and said
        sys.stdout = unwritten = _Unwritten()
    try:
        args = make_parser().parse_args(argv)
        command, debug = args.command, args.debug
        module = commands.module(command)
        error_status = getattr(module, "ERROR_STATUS", error_status)
        signals.import_lasting(getattr(module, "LASTING_IMPORTS", ()))
        status = module.run(args)
        signals.stop_if_asked()  # raised where Python ignored it, after the last phase
        if unwritten is not None and unwritten.lines:
            raise errors.CorporaError(f"standard output is closed: {unwritten.lines} line(s) of output not written")
        return signals.ended(status)
    except BaseException as error:  # noqa: BLE001 - each kind of ending has its status and line (errors.ENDINGS)
        ending = None if debug or isinstance(error, SystemExit) else errors.ending(error, error_status)
        if ending is None:
            raise
        if ending.line is None:  # the reader of stdout went away: Python's flush of stdout at exit must not fail again
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        else:
            print(f"{prefix(command)}: {ending.line}", file=sys.stderr)
        return signals.ended(ending.status)
    finally:
        signals.restore(handlers)
        if unwritten is not None:
            sys.stdout = None


class _Unwritten(io.TextIOBase):
    """Standard output when it is closed: the lines written to it, counted."""

    lines = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.lines += text.count("\n")
        return len(text)


if __name__ == "__main__":
    sys.exit(main())
