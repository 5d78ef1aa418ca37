"""The `corpora` command with a test's hooks (corpora.exports.Hooks), for the tests that stop a
real build at a known point: `python tests/hooked_corpora.py [--pause-at PHASE] [--no-exchange]
ARGS...` runs `corpora ARGS...`.

--pause-at PHASE (generating, writing, swapping, renaming): the build prints `corpora: paused at
PHASE` on stderr and sleeps there, so the test can kill it at that point. --interrupt-at PHASE
(removing too): the build sends itself Ctrl-C (SIGINT) there and goes on. --no-exchange: the swap
takes two renames under its journal, as on systems without an atomic exchange (renaming: between
the two)."""

import os
import signal
import sys
import time

argv = sys.argv[1:]
pause = argv[argv.index("--pause-at") + 1] if "--pause-at" in argv else None
interrupt = argv[argv.index("--interrupt-at") + 1] if "--interrupt-at" in argv else None
exchange = "--no-exchange" not in argv
while argv and argv[0] in ("--pause-at", "--interrupt-at", "--no-exchange"):
    del argv[:1 if argv[0] == "--no-exchange" else 2]
# Run as the command `corpora` (corpora.signals.AS_COMMAND): Ctrl-C and SIGTERM are one line from its
# import on, as in the installed command.
sys.argv = ["corpora", *argv]

import corpora.cli  # noqa: E402 - first: the command's signal handlers, before any other import
from corpora import exports  # noqa: E402


class Hooks(exports.Hooks):
    def __init__(self, pause: str | None, interrupt: str | None, exchange: bool):
        self.pause, self.interrupt, self.exchange = pause, interrupt, exchange

    def reached(self, phase: str) -> None:
        if phase == self.interrupt:
            os.kill(os.getpid(), signal.SIGINT)
        if phase == self.pause:
            print(f"corpora: paused at {phase}", file=sys.stderr, flush=True)
            time.sleep(3600)


exports.HOOKS = Hooks(pause, interrupt, exchange)
sys.exit(corpora.cli.main())
