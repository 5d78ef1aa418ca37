"""Downloads of the pinned URLs into a folder the builder reads as a local copy: a silence, a
trickle, an HTML page or a Git LFS pointer is one line and nothing is kept, which dl_manager does
not give (test_downloads.py::test_what_dl_manager_keeps_a_download_refuses). Settings:
CORPORA_DOWNLOAD_TIMEOUT (s, 30), CORPORA_DOWNLOAD_RETRIES (4), CORPORA_DOWNLOAD_BACKOFF (s, 1)."""

from __future__ import annotations

import contextlib
import email.utils
import functools
import logging
import os
import re
import secrets
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import datasets
import filelock

from corpora import errors
from corpora import user_numbers
from corpora.errors import CorporaError
from corpora.loader_shared.loader_common import LFS_POINTER
from corpora.loader_shared.loader_common import is_html
from corpora.path_errors import naming

if TYPE_CHECKING:
    import requests

STALL_BYTES = 1024  # less than this in a whole timeout span is a stalled transfer
MAX_RETRY_AFTER = 300.0  # a server that asks for a longer wait is told as a failure
BLOCK = 1 << 16


@dataclass(frozen=True)
class Settings:
    timeout: float = 30.0
    retries: int = 4
    backoff: float = 1.0

    @classmethod
    def from_environment(cls) -> Settings:
        return cls(
            timeout=user_numbers.from_environment("CORPORA_DOWNLOAD_TIMEOUT", cls.timeout, float, 0, above=True),
            retries=user_numbers.from_environment("CORPORA_DOWNLOAD_RETRIES", cls.retries, int, 0),
            backoff=user_numbers.from_environment("CORPORA_DOWNLOAD_BACKOFF", cls.backoff, float, 0, above=True),
        )


class DownloadFailed(CorporaError):
    """A URL that could not be fetched: `reason` says why in words."""

    def __init__(self, url: str, reason: str):
        super().__init__(f"cannot download {url}: {reason}")
        self.url, self.reason = url, reason


class NotTheData(DownloadFailed):
    """The server answered 200 with something else than the file (an HTML page, an LFS pointer)."""


class _Transient(Exception):
    """A failure that may heal on another try; `wait` is what the server asked for, if anything."""

    def __init__(self, reason: str, wait: float | None = None):
        super().__init__(reason)
        self.reason, self.wait = reason, wait


def cache_folder(name: str) -> Path:
    """Where the pinned files of corpus `name` are kept, laid out like the upstream repository."""
    return Path(datasets.config.DOWNLOADED_DATASETS_PATH) / "corpora" / name


def cache_lock(name: str) -> filelock.FileLock:
    """One process at a time fetches or discards files of a corpus's cache."""
    folder = cache_folder(name)
    _mkdir(folder)
    return filelock.FileLock(str(folder.parent / f".{name}.lock"))


def remove_leftovers(name: str) -> list[Path]:
    """Under the cache lock (no live fetch writes one): remove and return killed downloads' partial files."""
    removed = []
    for path in cache_folder(name).rglob(".*.part-*"):
        if _PART.fullmatch(path.name) and path.is_file() and not path.is_symlink():
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                removed.append(path)
    return removed


_PART = re.compile(r"\..+\.part-\d+-[0-9a-f]{8}")


def offline() -> bool:
    """datasets' offline mode (errors.OFFLINE names its variables)."""
    return any(getattr(datasets.config, flag, False) for flag in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"))


def fetch(url: str, target: Path, settings: Settings | None = None, progress=None) -> Path:
    """Download `url` to `target` (replacing it), with the retries above; DownloadFailed if not."""
    settings = settings or Settings.from_environment()
    if offline():
        raise DownloadFailed(url, errors.OFFLINE)
    _mkdir(target.parent)
    partial = target.with_name(f".{target.name}.part-{os.getpid()}-{secrets.token_hex(4)}")
    tries = settings.retries + 1
    try:
        for attempt in range(tries):
            try:
                _get(url, partial, settings, progress)
                break
            except _Transient as failure:
                if attempt + 1 == tries:
                    said = f" ({tries} tries)" if tries > 1 else ""
                    raise DownloadFailed(url, failure.reason + said) from None
                wait = failure.wait if failure.wait is not None else settings.backoff * 2**attempt
                # One line a retry, in logs too (as pip and curl say theirs): a wait is never silent.
                print(f"corpora: {url}: {failure.reason}; trying again in {wait:g} s (try {attempt + 2} of {tries})",
                      file=sys.stderr, flush=True)
                time.sleep(wait)
        _check_is_data(url, partial)
        os.replace(partial, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    return target


def _get(url: str, partial: Path, settings: Settings, progress) -> None:
    import requests  # here: a build from local files never pays its import (0.1 s)

    try:
        # identity: the bytes counted are the file's, and Content-Length is their number.
        response = requests.get(url, stream=True, timeout=settings.timeout, headers={"Accept-Encoding": "identity"})
    except requests.exceptions.ConnectTimeout:
        raise _Transient(errors.no_connection_within(settings.timeout)) from None
    except requests.exceptions.ReadTimeout:
        raise _Transient(errors.no_answer_within(settings.timeout)) from None
    except requests.exceptions.RequestException as error:
        cause, kind = errors.find(error, errors.DOWNLOAD_FAILURES)
        if kind.heals:
            raise _Transient(kind.says(cause)) from None
        raise DownloadFailed(url, kind.says(cause)) from None  # no server, no network: another try would not heal it
    with response:
        status = response.status_code
        if status >= 400:
            reason = errors.server_answered(status, response.reason)
            if status == 429 or status >= 500:
                raise _Transient(reason, _retry_after(response, url, reason))
            raise DownloadFailed(url, reason)
        length = response.headers.get("Content-Length")
        expected = int(length) if length and length.isdigit() else None
        received = 0
        # Tumbling spans of one timeout each: a span with less than STALL_BYTES is a stall.
        span_start, span_bytes = time.monotonic(), 0
        with open(partial, "wb") as f:
            while True:
                try:
                    block = response.raw.read1(BLOCK)
                except Exception as error:  # noqa: BLE001 - urllib3 wraps socket errors in several types
                    raise _Transient(_body_reason(error, received, expected, settings)) from None
                if not block:
                    break
                _write(f, block, partial)
                received += len(block)
                span_bytes += len(block)
                if progress is not None:
                    progress(len(block))
                now = time.monotonic()
                if now - span_start >= settings.timeout:
                    if span_bytes < STALL_BYTES:
                        raise _Transient(f"the transfer stalled (less than 1 KiB in {settings.timeout:g} s)")
                    span_start, span_bytes = now, 0
        if expected is not None and received < expected:
            raise _Transient(f"the connection closed after {received:,} of {expected:,} bytes")


def _write(f, block: bytes, partial: Path) -> None:
    try:
        f.write(block)
    except OSError as error:
        raise naming(error, partial.parent) from None  # the folder: the partial file is gone after


def _mkdir(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise naming(error, folder) from None


def _body_reason(error: BaseException, received: int, expected: int | None, settings: Settings) -> str:
    """A transfer cut short, in words: by the exceptions of the chain (urllib3 wraps the socket's)."""
    if errors.caused_by(error, errors.TIMEOUTS):
        return f"nothing came for {settings.timeout:g} s"
    if errors.caused_by(error, (ConnectionResetError,)):
        return f"the connection was reset after {received:,} bytes"
    if expected is not None:
        return f"the connection closed after {received:,} of {expected:,} bytes"
    return f"the connection closed after {received:,} bytes"


def _retry_after(response: requests.Response, url: str, reason: str) -> float | None:
    """The wait a 429 or 503 asks for (seconds or an HTTP date), None if it asks for none."""
    value = response.headers.get("Retry-After")
    if not value:
        return None
    if value.strip().isdigit():
        wait = float(value.strip())
    else:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        wait = max(0.0, when.timestamp() - time.time())
    if wait > MAX_RETRY_AFTER:
        raise DownloadFailed(url, f"{reason}, and asks to wait {wait:,.0f} s (more than {MAX_RETRY_AFTER:g} s)")
    return wait


def _check_is_data(url: str, path: Path) -> None:
    with open(path, "rb") as f:
        head = f.read(512)
    if head.startswith(LFS_POINTER):
        raise NotTheData(url, "the server sent a Git LFS pointer, not the data")
    if is_html(head):  # as the loaders tell a page
        raise NotTheData(url, "the server sent an HTML page, not the data")


def show_progress() -> bool:
    """Progress on a terminal only: nothing in logs."""
    return sys.stderr.isatty()


@contextlib.contextmanager
def progress_bar(name: str, sizes: dict[Path, int | None]):
    """One progress bar of the bytes to download: the recorded `sizes` (None: not recorded) of the files not
    there yet. On a terminal only (nothing in logs); yields its update."""
    if not show_progress():
        yield None
        return
    from tqdm.auto import tqdm

    total = sum(size for target, size in sizes.items() if size and not target.is_file()) or None
    with tqdm(total=total, unit="B", unit_scale=True, desc=f"downloading {name}", leave=False) as bar:
        yield bar.update


# --- streaming: datasets reads the pinned URLs as it goes, through fsspec and aiohttp ---------------


def check_streamable(corpus, config: str) -> None:
    """Streaming from the pinned URLs in offline mode would fail at the first file with a bare
    FileNotFoundError (fsspec's); said here before anything is read, with what to do instead."""
    if not offline():
        return
    paths = corpus.source_files([config])
    more = f" (and {len(paths) - 1} more pinned URL(s))" if len(paths) > 1 else ""
    raise CorporaError(
        f"{corpus.name}/{config}: cannot stream {corpus.urls[paths[0]]}{more}: {errors.OFFLINE}, and streaming reads "
        "the pinned URLs as it goes. To stream a local copy of the upstream files instead, pass data_dir=DIR with "
        f"this file at DIR/{paths[0]}"
    )


CUT_SHORT = ("aiohttp.ClientPayloadError", "aiohttp.ServerDisconnectedError")  # a read the server ended early
_STREAMED = [None]  # the URL a stream asked for last: the one that failed (a stream reads one file at a time)
# datasets' own retries of a stream's open and read (20, 5 s apart): CORPORA_DOWNLOAD_RETRIES and _BACKOFF instead.
_STREAM_RETRIES = ("STREAMING_READ_MAX_RETRIES", "STREAMING_OPEN_MAX_RETRIES")
_STREAM_WAITS = ("STREAMING_READ_RETRY_INTERVAL", "STREAMING_OPEN_RETRY_INTERVAL")


async def _remember_url(session, context, params) -> None:
    _STREAMED[0] = str(params.url)


@contextlib.contextmanager
def stream_failures(corpus, config: str):
    """Around each step of a stream from the pinned URLs: datasets retries as CORPORA_DOWNLOAD_RETRIES
    says, and a server that stops answering ends in one line, not fsspec's FileNotFoundError or
    datasets' ConnectionError("Server Disconnected")."""
    settings = Settings.from_environment()
    chosen = {**dict.fromkeys(_STREAM_RETRIES, settings.retries + 1), **dict.fromkeys(_STREAM_WAITS, settings.backoff)}
    chosen = {name: value for name, value in chosen.items() if hasattr(datasets.config, name)}
    saved = {name: getattr(datasets.config, name) for name in chosen}
    vars(datasets.config).update(chosen)
    chatter = logging.getLogger("datasets.utils.file_utils")  # its retries, said in the line below if all fail
    chatter.addFilter(_no_retry_lines)
    try:
        yield
    except (FileNotFoundError, ConnectionError) as error:
        timed_out, cut, tries = _timed_out(error), errors.caused_by(error, CUT_SHORT), settings.retries + 1
        refused = isinstance(error, FileNotFoundError) and errors.caused_by(error, ("aiohttp.ClientError",))
        if isinstance(error, CorporaError) or not (timed_out or cut or refused):
            raise
        if isinstance(error, FileNotFoundError) and timed_out:  # fsspec's: no answer to the request that opens the file
            url, reason = str(error), f"no answer within {settings.timeout:g} s"
        elif isinstance(error, FileNotFoundError):  # fsspec's, of an HTTP status or a failed connection
            url, reason = str(error), _refusal(error.__cause__ or error.__context__)
        elif timed_out:  # datasets' after its retries of reads that timed out
            url, reason = _STREAMED[0], f"nothing came for {settings.timeout:g} s ({tries} tries)"
        else:  # datasets' after its retries of reads the server cut short
            url, reason = _STREAMED[0], f"the connection closed before the file was whole ({tries} tries)"
        path = next((path for path, pinned in corpus.urls.items() if pinned == url), None)
        hint = f" with this file at DIR/{path}" if path else ""
        raise CorporaError(
            f"{corpus.name}/{config}: cannot stream {url}: {reason}. To stream a local copy of the upstream files "
            f"instead, pass data_dir=DIR{hint}"
        ) from error
    finally:
        vars(datasets.config).update(saved)
        chatter.removeFilter(_no_retry_lines)


def _no_retry_lines(record: logging.LogRecord) -> bool:
    """datasets' words of a retry of a stream's read or open, which corpora's line counts (`N tries`)."""
    return not record.getMessage().startswith(_RETRY_LINES)


_RETRY_LINES = ("Got disconnected from remote data host.", "Failed to connect to remote data host.")


def _refusal(error: BaseException) -> str:
    """Why aiohttp could not open a file: the HTTP status, else the connection's failure."""
    found = errors.find(error, [errors.Kind(("aiohttp.ClientResponseError",), None, anywhere=True)])
    if found is not None and not errors.caused_by(error, ("aiohttp.http_exceptions.HttpProcessingError",)):
        return errors.server_answered(found[0].status, found[0].message)
    return errors.describe_failure(error, errors.DOWNLOAD_FAILURES)


def _timed_out(error: BaseException) -> bool:
    """Whether a time-out is among the causes of `error` (asyncio's is not the builtin one on Python 3.10)."""
    import asyncio

    while error is not None:
        if isinstance(error, (TimeoutError, asyncio.TimeoutError)):
            return True
        error = error.__cause__ or error.__context__
    return False


def client_timeout(seconds: float):
    """aiohttp's time limits (fsspec's HTTP client, which datasets downloads and streams with): a
    connection or a read silent for `seconds` ends, the whole transfer is unbounded. By default
    aiohttp waits 5 minutes for a server that accepts a connection and never answers. `connect`
    holds the whole connection: behind a proxy from the environment (datasets passes trust_env) an
    https:// URL first waits for the proxy's answer to CONNECT, which aiohttp reads without `sock_read`."""
    import aiohttp

    return aiohttp.ClientTimeout(total=None, connect=seconds, sock_connect=seconds, sock_read=seconds)


async def _timed_client(seconds: float, **kwargs):
    """fsspec's HTTP client (aiohttp) with `client_timeout(seconds)`, remembering the URL it asks for."""
    import aiohttp

    kwargs.setdefault("timeout", client_timeout(seconds))
    trace = aiohttp.TraceConfig()
    trace.on_request_start.append(_remember_url)
    kwargs["trace_configs"] = [*kwargs.get("trace_configs", []), trace]
    return aiohttp.ClientSession(**kwargs)


def stream_with_time_limit() -> None:
    """Give datasets' streaming from the pinned URLs CORPORA_DOWNLOAD_TIMEOUT. datasets passes a
    builder's `storage_options` (client_kwargs timeout) only to the `open` it patches into the
    loader's module (3.6, 4.x and 5.x alike); the loaders open files with datasets' `xopen` itself,
    which takes none. So the client goes where fsspec looks for defaults, `fsspec.config.conf`,
    unless a client of the user's own is set there."""
    import fsspec.config

    conf = fsspec.config.conf
    ours = conf.get("http", {}).get("get_client")
    if not any("get_client" in conf.get(protocol, {}) for protocol in ("http", "https")) or (
        getattr(ours, "func", None) is _timed_client
    ):
        # One client per time limit: fsspec keeps a file system, and its session, per set of arguments.
        seconds = Settings.from_environment().timeout
        conf.setdefault("http", {})["get_client"] = functools.partial(_timed_client, seconds)
