import os
import signal
from pathlib import Path


class CorporaError(Exception):
    """An error the CLI reports as one line, without a traceback."""


def shorten(items, keep: int = 5, sep: str = ", ") -> str:
    """The first `keep` items, then "and N more": an error line stays readable with 181 paths."""
    items = [str(item) for item in items]
    if len(items) <= keep + 1:
        return sep.join(items)
    return sep.join(items[:keep]) + f"{sep}and {len(items) - keep} more"


class Terminated(BaseException):
    """SIGTERM, raised like KeyboardInterrupt so that cleanup in `finally` blocks runs."""


# The signals (SIGINT, SIGTERM) the command's handler has raised. Python ignores an exception
# raised in a weakref or at-fork callback (it prints "Exception ignored in ..."), so a signal can be
# swallowed there: `stop_if_asked` raises it again at the next phase of the work.
STOP_SIGNALS: list[int] = []


def stop_if_asked() -> None:
    """Raise the stop the command was asked for, if one was (see STOP_SIGNALS)."""
    if STOP_SIGNALS:
        raise KeyboardInterrupt() if STOP_SIGNALS[0] == signal.SIGINT else Terminated()


def printable(path) -> str:
    """A path as text, its bytes that are not UTF-8 shown as \\xNN."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def check_utf8(path, what: str) -> None:
    """Stop, naming the path, if its absolute form is not UTF-8: pyarrow and datasets cannot use
    such a path (they fail with an encoding error that does not say which)."""
    try:
        os.fsencode(os.path.abspath(path)).decode("utf-8")
    except UnicodeDecodeError:
        raise CorporaError(
            f"{printable(os.path.abspath(path))}: {what} is not valid UTF-8, which datasets and pyarrow need; "
            "rename it or choose another"
        ) from None


def write_text(path, text: str, encoding: str | None = "utf-8") -> None:
    """Path.write_text, but a failure names the file: a full disk is reported when the buffer is
    flushed at close, as `[Errno 28] No space left on device` without a path."""
    try:
        Path(path).write_text(text, encoding=encoding)
    except OSError as error:
        if error.filename is None and error.errno:
            raise OSError(error.errno, os.strerror(error.errno), str(path)) from None
        raise


def chain(error: BaseException | None):
    """`error` and every exception it arose from, each once: depth first, its `__cause__` (raise
    ... from) before its `__context__` (raised while handling), so that the first of them is the
    single chain Python prints. The one walker of exception chains here."""
    seen, stack = set(), [error]
    while stack:
        error = stack.pop()
        if error is None or id(error) in seen:
            continue
        seen.add(id(error))
        yield error
        stack += [error.__context__, error.__cause__]  # popped cause first


def describe_failure(error: BaseException) -> str:
    """Why a call to the Hub failed, in words: the HTTP status, offline mode, no connection."""
    for cause in chain(error):
        name = type(cause).__name__
        status = getattr(cause, "status", None) or getattr(getattr(cause, "response", None), "status_code", None)
        if isinstance(status, int):
            response = getattr(cause, "response", None)
            phrase = getattr(cause, "message", None) or getattr(response, "reason", None)
            phrase = phrase or getattr(response, "reason_phrase", None) or ""
            said = " ".join(str(getattr(cause, "server_message", None) or "").split())  # the Hub says why
            return f"the server answered HTTP {status} {phrase}".rstrip() + (f" ({said})" if said else "")
        if name == "OfflineModeIsEnabled":
            return "offline mode is on (HF_HUB_OFFLINE=1 or HF_DATASETS_OFFLINE=1)"
        if name in ("ClientConnectorError", "ConnectionError", "ConnectError", "gaierror", "ConnectionRefusedError"):
            detail = " ".join(str(cause).split())
            return f"no connection ({detail}): no network, or the host cannot be reached"
        if isinstance(cause, TimeoutError) or "Timeout" in name:
            return "the connection timed out"
    return " ".join(str(error).split())
