"""The stop the command was asked for (Ctrl-C, `kill`, the terminal closing), kept where every
phase of the work can see it: process.py's handler records it, exports.py and cli.py act on it."""

from __future__ import annotations

import signal


class Terminated(BaseException):
    """SIGTERM or SIGHUP (`signum`), raised like KeyboardInterrupt so that cleanup in `finally`
    blocks runs."""

    def __init__(self, signum: int = signal.SIGTERM):
        super().__init__(signum)
        self.signum = signum


# The signals (SIGINT, SIGTERM, SIGHUP) the command's handler has raised. Python ignores an exception
# raised in a weakref or at-fork callback (it prints "Exception ignored in ..."), so a signal can be
# swallowed there: `stop_if_asked` raises it again at the next phase of the work.
STOP_SIGNALS: list[int] = []


def stop_if_asked() -> None:
    """Raise the stop the command was asked for, if one was (see STOP_SIGNALS)."""
    if STOP_SIGNALS:
        raise KeyboardInterrupt() if STOP_SIGNALS[0] == signal.SIGINT else Terminated(STOP_SIGNALS[0])
