"""Files and paths as an error line names them."""

from __future__ import annotations

import os
from pathlib import Path

from corpora.errors import CorporaError


def printable(path) -> str:
    """A path as text, its bytes that are not UTF-8 shown as \\xNN."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def check_utf8(path, what: str) -> None:
    """Stop, naming the path, if it is not UTF-8: pyarrow and datasets fail on it without naming it."""
    try:
        os.fsencode(os.path.abspath(path)).decode("utf-8")
    except UnicodeDecodeError:
        raise CorporaError(
            f"{printable(os.path.abspath(path))}: {what} is not valid UTF-8, which datasets and pyarrow need; "
            "rename it or choose another"
        ) from None


def naming(error: OSError, path) -> OSError:
    """`error`, naming `path` if it names no file (a full disk said at a flush names none)."""
    if error.filename is None and error.errno:
        return OSError(error.errno, os.strerror(error.errno), str(path))
    return error


def write_text(path, text: str, encoding: str | None = "utf-8") -> None:
    """Path.write_text, but a failure names the file (`naming`)."""
    try:
        Path(path).write_text(text, encoding=encoding)
    except OSError as error:
        raise naming(error, path) from None
