import os
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
