"""The `corpora` command: list, build, checksums, card, new, validate, push, diff."""

from __future__ import annotations

import argparse
import sys

from corpora import commands
from corpora import errors
from corpora import process  # run as the command, a signal is one line from this import on
from corpora import stops


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
    handlers = process.handle_stops()
    command, debug = process.command_name(argv), "--debug" in (sys.argv[1:] if argv is None else argv)
    error_status = 1
    try:
        args = make_parser().parse_args(argv)
        command, debug = args.command, args.debug
        module = commands.module(command)
        error_status = getattr(module, "ERROR_STATUS", error_status)
        process.import_lasting(getattr(module, "LASTING_IMPORTS", ()))
        status = module.run(args)
        stops.stop_if_asked()  # raised where Python ignored it, after the last phase
        return process.ended(status)
    except BaseException as error:  # noqa: BLE001 - each kind of ending has its status and line (errors.ENDINGS)
        ending = None if debug or isinstance(error, SystemExit) else errors.ending(error, error_status)
        if ending is None:
            raise
        if ending.line is None:
            process.quiet_stdout()
        else:
            print(f"{process.prefix(command)}: {ending.line}", file=sys.stderr)
        # As the command, the process exits here: a module whose import a signal cut short must not run at exit.
        return process.ended(ending.status)
    finally:
        process.restore(handlers)


if __name__ == "__main__":
    sys.exit(main())
