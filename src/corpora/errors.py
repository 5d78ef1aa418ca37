"""The toolkit's errors, and the one map from an exception to what the command says of it (and
to the words of a failed call to the Hub or of a failed download)."""

from __future__ import annotations

import errno
import os
import signal
import sys
from collections import namedtuple

from corpora.loader_shared.loader_common import shorten  # noqa: F401 - the loaders' cutting rule, the toolkit's too
from corpora.signals import STOPPED
from corpora.signals import Terminated


class CorporaError(Exception):
    """An error the CLI reports as one line, without a traceback."""


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


# --- what an exception means: one table, walked along the chain ----------------------------------

# Named tuples rather than dataclasses: the command imports this module before it answers Ctrl-C
# with one line, and the dataclasses module alone takes longer than the rest of that start.
class Kind(namedtuple("Kind", "classes says status test anywhere heals",
                      defaults=(None, lambda error: True, False, False))):
    """A kind of exception: its `classes` (a library's as "module.Class", matched once that module
    is imported: before, no exception of it can exist), a `test` for what the class alone does not
    say, what it is in words (`says`, a function of the exception) and the command's exit status
    (a number or a function of the exception; None: an error, said after "error: ", with the
    command's error status). `anywhere`: looked for along the whole chain, not in the exception
    alone. `heals`: a download failure that another try may heal (DOWNLOAD_FAILURES)."""

    __slots__ = ()

    def matches(self, error: BaseException) -> bool:
        classes = tuple(c for c in map(_loaded, self.classes) if c is not None)
        return isinstance(error, classes) and self.test(error)


def _loaded(spec: type | str) -> type | None:
    if not isinstance(spec, str):
        return spec
    module, _, name = spec.rpartition(".")
    return getattr(sys.modules.get(module), name, None)


def find(error: BaseException, kinds) -> tuple[BaseException, Kind] | None:
    """The first of `kinds` (in their order) that matches `error`, or for a kind looked for
    `anywhere`, an exception of its chain (`chain`); with the exception it matched."""
    for kind in kinds:
        for cause in chain(error) if kind.anywhere else [error]:
            if kind.matches(cause):
                return cause, kind
    return None


def _text(error: BaseException) -> str:
    return " ".join(str(error).split())


def typed(error: BaseException) -> str:
    """An unexpected error on one line, with its type: what a check reports of it too (validate)."""
    return f"{type(error).__name__}: {_text(error)}"


def loader_error(error: BaseException) -> BaseException:
    """The loader's own error inside datasets' DatasetGenerationError, in this process (its chain)
    or sent from a worker process (num_proc: `loader_error`, see datasets_adapter), else `error`
    itself."""
    generation_error = _loaded("datasets.exceptions.DatasetGenerationError")  # None: datasets raised none yet
    if generation_error is None or not isinstance(error, generation_error):
        return error
    for cause in chain(error):
        cause = getattr(cause, "loader_error", None) or cause
        if not isinstance(cause, generation_error) and type(cause).__name__ != "RemoteTraceback":
            return cause
    return error


def _signal(stop: BaseException) -> int:
    return signal.SIGINT if isinstance(stop, KeyboardInterrupt) else getattr(stop, "signum", signal.SIGTERM)


def _http_status(error: BaseException) -> int | None:
    status = getattr(error, "status", None) or getattr(getattr(error, "response", None), "status_code", None)
    return status if isinstance(status, int) else None


# --- the phrases of a failed call to a server, shared by HUB_FAILURES and download.py ---------------

OFFLINE = "offline mode is on (HF_HUB_OFFLINE=1 or HF_DATASETS_OFFLINE=1)"


def no_connection(detail: str | None = None) -> str:
    return f"no connection{f' ({detail})' if detail else ''}: no network, or the host cannot be reached"


def no_connection_within(seconds: float) -> str:
    return f"no connection within {seconds:g} s"


def no_answer_within(seconds: float) -> str:
    return f"no answer within {seconds:g} s"


def server_answered(status: int | None, phrase: str | None, said: str | None = None) -> str:
    """The HTTP status a server answered, and what it said of it (`said`: the Hub says why)."""
    said = " ".join((said or "").split())
    return f"the server answered HTTP {status} {phrase or ''}".rstrip() + (f" ({said})" if said else "")


def _server_answered(error: BaseException) -> str:
    response = getattr(error, "response", None)
    phrase = getattr(error, "message", None) or getattr(response, "reason", None)
    phrase = phrase or getattr(response, "reason_phrase", None)
    said = getattr(error, "server_message", None)
    if said and said.lstrip().startswith("<"):  # a proxy's HTML page (huggingface_hub 0.x passes it on): no words
        said = None
    return server_answered(_http_status(error), phrase, said)


_CONNECT_TIMEOUT = Kind(("requests.exceptions.ConnectTimeout", "httpx.ConnectTimeout", "httpx2.ConnectTimeout"), None)


def _hub_timed_out(error: BaseException) -> str:
    """A Hub request's time-out, with the limit it met: hub_client's, which push and diff set
    before their first request (so hub_client is imported: see `_loaded`)."""
    limits = _loaded("corpora.hub_client.limits")
    try:
        connect, answer = limits() if limits is not None else (None, None)
    except CorporaError:  # said already, by use_time_limit
        connect = answer = None
    if answer is None:
        return "the connection timed out"
    # httpx's and requests' ConnectTimeout: the connection never came, within its shorter limit
    if _CONNECT_TIMEOUT.matches(error):
        return f"{no_connection_within(connect)} (CORPORA_HUB_TIMEOUT)"
    return f"{no_answer_within(answer)} (CORPORA_HUB_TIMEOUT)"


STALLED = "no answer within the HTTP client's time limit: a server stalled; try again later"

# What a time-out is, in the clients of the Hub and of downloads.
TIMEOUTS = (TimeoutError, "asyncio.TimeoutError", "concurrent.futures.TimeoutError", "requests.exceptions.Timeout",
            "urllib3.exceptions.TimeoutError", "httpx.TimeoutException", "httpx2.TimeoutException",
            "aiohttp.ServerTimeoutError")

# How the command ends, by the exception that ended it: the first row that matches. A stop is one
# even if some code turned it into an error of its own while the stack unwound (datasets' worker
# pool, closed by Ctrl-C, raises a TimeoutError). An exception no row matches (SystemExit, a
# BaseException of a library) is not the command's to say: it goes on, with its traceback.
ENDINGS = (
    Kind((KeyboardInterrupt, Terminated), lambda error: STOPPED[_signal(error)], lambda error: 128 + _signal(error),
         anywhere=True),
    # The reader went away (`corpora list | head`): nothing said, as other command-line tools do.
    Kind((BrokenPipeError,), lambda error: None, 128 + signal.SIGPIPE),
    # datasets wraps the loader's error (DatasetGenerationError): the loader's is the one said.
    Kind(("datasets.exceptions.DatasetGenerationError",), lambda error: one_line(loader_error(error)),
         test=lambda error: loader_error(error) is not error),
    Kind((OSError,), lambda error: f"{error.filename}: {os.strerror(error.errno)}",
         test=lambda error: error.errno is not None and error.filename is not None),
    # A client's time limit with no text (fsspec's FSTimeoutError of a stalled download, an OSError).
    Kind(TIMEOUTS, lambda error: STALLED, test=lambda error: not _text(error)),
    Kind((CorporaError, ValueError, OSError, "huggingface_hub.errors.HfHubHTTPError"), _text),
    # Anything unexpected is still one line, with its type, the way to its traceback.
    Kind((Exception,), lambda error: f"{typed(error)} (--debug shows the traceback)"),
)

_ERRORS = tuple(kind for kind in ENDINGS if kind.status is None)  # said after "error: "


# Why a call to the Hub failed, in words (push and diff say it in their own error line): the first
# row that matches an exception of the chain. A timeout before a failed connection: some
# clients' timeouts are both (requests' ConnectTimeout), and so is offline mode.
HUB_FAILURES = (
    Kind((BaseException,), _server_answered, test=lambda error: _http_status(error) is not None, anywhere=True),
    Kind(("huggingface_hub.errors.OfflineModeIsEnabled", "huggingface_hub.utils.OfflineModeIsEnabled",
          "datasets.utils.file_utils.OfflineModeIsEnabled"),
         lambda error: OFFLINE, anywhere=True),
    Kind(TIMEOUTS, _hub_timed_out, anywhere=True),
    # A request sent and no answer (a proxy or the network lost it): it may have been carried out.
    Kind(("http.client.RemoteDisconnected", "httpx.RemoteProtocolError", "httpx2.RemoteProtocolError"),
         lambda error: "the server closed the connection without an answer", anywhere=True,
         test=lambda error: isinstance(error, ConnectionError) or "disconnected" in str(error).lower()),
    Kind((ConnectionError, "socket.gaierror", "requests.exceptions.ConnectionError", "httpx.ConnectError",
          "httpx2.ConnectError", "aiohttp.ClientConnectorError"),
         lambda error: no_connection(_text(error)), anywhere=True),
)

# Why a download of a pinned URL failed (download.py, with `requests`), by the exceptions of the
# chain that requests raises: urllib3's and the socket's are in it. Its time-outs are said there,
# with the limit. `heals`: retried.
DOWNLOAD_FAILURES = (
    Kind(("requests.exceptions.TooManyRedirects",),
         lambda error: "the server redirects in a loop (more than 30 redirects)"),
    # RemoteDisconnected is a ConnectionResetError: first
    Kind(("http.client.RemoteDisconnected",), lambda error: "the server closed the connection without an answer",
         anywhere=True, heals=True),
    Kind((ConnectionResetError,), lambda error: "the connection was reset", anywhere=True, heals=True),
    # older aiohttp's ClientOSError: an OSError with ECONNRESET that is not a ConnectionResetError
    Kind((OSError,), lambda error: "the connection was reset", anywhere=True, heals=True,
         test=lambda error: error.errno == errno.ECONNRESET),
    Kind((ConnectionRefusedError,), lambda error: no_connection("connection refused"), anywhere=True),
    Kind(("socket.gaierror",), lambda error: no_connection("the host name does not resolve"), anywhere=True),
    Kind(("requests.exceptions.ConnectionError",), lambda error: no_connection()),
    Kind((Exception,), _text),
)

# A full disk, which datasets and pyarrow report without a file (they write through file objects,
# and a write that failed can surface later as "I/O operation on closed file"), or in datasets'
# own words ("Not enough disk space").
DISK_FULL = (
    Kind((OSError,), lambda error: "the disk is full", anywhere=True,
         test=lambda error: error.errno in (errno.ENOSPC, errno.EDQUOT)
         or str(error).startswith("Not enough disk space")),
)


# How the command ends: its line after "corpora COMMAND: " (None: nothing is said), its exit status.
Ending = namedtuple("Ending", "line status")


def ending(error: BaseException, error_status: int = 1) -> Ending | None:
    """How the command ends on `error` (ENDINGS); None if it is not the command's to say."""
    found = find(error, ENDINGS)
    if found is None:
        return None
    cause, kind = found
    if kind.status is None:
        return Ending(f"error: {kind.says(cause)}", error_status)
    return Ending(kind.says(cause), kind.status(cause) if callable(kind.status) else kind.status)


def one_line(error: BaseException) -> str:
    """The error as the command says it, after "error: " (the first row of ENDINGS for errors)."""
    return _say(error, _ERRORS)


def describe_failure(error: BaseException, kinds=HUB_FAILURES) -> str:
    """Why a call to the Hub failed, in words: the HTTP status, offline mode, no connection
    (HUB_FAILURES; or the first of other `kinds` that matches)."""
    return _say(error, kinds)


def _say(error: BaseException, kinds) -> str:
    """What the first of `kinds` that matches says of `error`; an unforeseen one: its type says most."""
    found = find(error, kinds)
    return found[1].says(found[0]) if found else typed(error)


def caused_by(error: BaseException, classes) -> bool:
    """Whether an exception of `error`'s chain is one of `classes` (as Kind's)."""
    return find(error, [Kind(tuple(classes), None, anywhere=True)]) is not None


def full_disk(error: BaseException, where) -> OSError | None:
    """A full disk anywhere in `error`'s chain, as an OSError that names its file, else `where`
    (the folder being written); None for any other error."""
    found = find(error, DISK_FULL)
    if found is None:
        return None
    cause = found[0]
    if cause.filename:
        return cause
    code = cause.errno if cause.errno in (errno.ENOSPC, errno.EDQUOT) else errno.ENOSPC
    return OSError(code, os.strerror(code), str(where))
