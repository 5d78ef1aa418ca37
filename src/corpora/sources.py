"""Where a build reads its source files: the pinned public URLs, a local copy (`--data-dir`),
or the corpus's dummy data (`--dummy`), and the size and sha256 recorded for each pinned URL.

Every loader declares `_URLS` ({path: pinned url}) and `_FILES` ({config: {split: [path]}}),
where a path is relative to the upstream repository root. A local copy mirrors that layout: the
file behind `_URLS[path]` is read from `<data_dir>/<path>`. Loaders do this mapping themselves
when they get a `data_dir` (so a loader file works alone with `load_dataset(..., data_dir=...)`);
this module resolves `--dummy` and checks the whole copy first, so a missing file is reported
together with every other missing one, before any work starts.

`loaders/<name>/checksums.tsv` records, like TensorFlow Datasets' checksums files, one line per
pinned URL: `url<TAB>size<TAB>sha256`. A release file that does not match its record is not the
data the loader was written for; `corpora checksums NAME --update` rewrites the records after a
maintainer has checked the new files. A URL whose bytes nobody could measure yet is listed with
`-<TAB>-`: it is known to be unverified, and a build from it needs --allow-modified-sources until
`corpora checksums NAME --update` records it.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import datasets

from corpora.errors import CorporaError
from corpora.errors import shorten
from corpora.registry import Corpus

# The first bytes of a Git LFS pointer file: what a clone holds without `git lfs pull`.
LFS_POINTER = b"version https://git-lfs.github.com/spec/"


class MissingSourceFiles(CorporaError, FileNotFoundError):
    pass


class ChecksumError(CorporaError):
    pass


class DownloadError(CorporaError):
    pass


class LfsPointers(CorporaError):
    pass


def download_config() -> datasets.DownloadConfig:
    """Where every download of a build goes: the usual datasets download cache, even when the
    Arrow cache is temporary, so that a second build (or the builder after a check) reuses it."""
    return datasets.DownloadConfig(cache_dir=datasets.config.DOWNLOADED_DATASETS_PATH)


@dataclass(frozen=True)
class Record:
    size: int
    sha256: str


def resolve_data_dir(corpus: Corpus, data_dir=None, dummy: bool = False, configs=None) -> Path | None:
    """The local folder to read from, or None to download the pinned URLs. Every source file of
    `configs` (default: all) must be there."""
    if dummy and data_dir is not None:
        raise CorporaError("give either a data_dir or dummy=True, not both")
    if dummy:
        data_dir = corpus.dummy_dir
    if data_dir is None:
        return None
    data_dir = Path(data_dir)
    missing = [path for path in corpus.source_files(configs) if not (data_dir / path).is_file()]
    if missing:
        listing = shorten(str(data_dir / path) for path in missing)
        raise MissingSourceFiles(
            f"{corpus.name}: {len(missing)} source file(s) missing: {listing}{_layout_hint(corpus, data_dir, configs)}"
        )
    return data_dir


def _layout_hint(corpus: Corpus, data_dir: Path, configs) -> str:
    """A folder with every file of some config(s) but not of all asked: say which config reads it."""
    complete = [
        config for config in corpus.configs
        if all((data_dir / path).is_file() for path in corpus.source_files([config]))
    ]
    if not complete:
        return ""
    options = " or ".join(f"--config {config}" for config in complete)
    return f". {data_dir} holds the files of config {', '.join(map(repr, complete))}: build only that with {options}"


def urls(corpus: Corpus, configs=None) -> dict[str, str]:
    """Each source path of `configs` (default: all) and the pinned URL it is downloaded from."""
    return {path: corpus.module._URLS[path] for path in corpus.source_files(configs)}


def local_files(corpus: Corpus, data_dir: Path | None, configs=None, download_config=None) -> dict[str, Path]:
    """Each source path and the local file holding it: in data_dir, or downloaded from the pinned
    URL into the datasets download cache (where the builder then finds it again)."""
    if data_dir is not None:
        return {path: data_dir / path for path in corpus.source_files(configs)}
    manager = datasets.DownloadManager(dataset_name=corpus.name, download_config=download_config)
    pinned = urls(corpus, configs)
    try:
        downloaded = manager.download(pinned)
    except Exception as error:  # noqa: BLE001 - every failure is told the same way, with its reason
        raise download_error(corpus, pinned, error) from error
    return {path: Path(local) for path, local in downloaded.items()}


def download_error(corpus: Corpus, pinned: dict[str, str], error: BaseException) -> DownloadError:
    """One line: which URL failed, why, and how to build from a local copy instead."""
    text = " ".join(str(e) for e in _chain(error))
    failed = [(path, url) for path, url in pinned.items() if url in text]
    path, url = max(failed, key=lambda item: len(item[1])) if failed else (None, None)
    where = url or f"one of {len(pinned)} pinned URLs"
    local = f"with this file at DIR/{path}" if path else "laid out like the upstream repository"
    return DownloadError(
        f"{corpus.name}: cannot download {where}: {describe_failure(error)}. "
        f"To build from a local copy of the upstream files instead, pass --data-dir DIR (data_dir= in Python) {local}"
    )


def _chain(error: BaseException):
    seen = []
    while error is not None and error not in seen:
        seen.append(error)
        error = error.__cause__ or error.__context__
    return seen


def describe_failure(error: BaseException) -> str:
    """Why a request failed, in words: the HTTP status, offline mode, no connection."""
    for cause in _chain(error):
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


def lfs_pointers(files: dict[str, Path]) -> list[str]:
    """The source paths whose local file is a Git LFS pointer instead of the data."""
    found = []
    for path, local in files.items():
        with open(local, "rb") as f:
            if f.read(len(LFS_POINTER)) == LFS_POINTER:
                found.append(path)
    return found


def check_not_lfs_pointers(corpus: Corpus, files: dict[str, Path], data_dir: Path | None) -> None:
    """Stop on Git LFS pointers (a clone without `git lfs pull`) before anything compares or
    records checksums: a pointer's hash is not the release's."""
    found = lfs_pointers(files)
    if not found:
        return
    where = f"in {data_dir}" if data_dir is not None else "downloaded"
    fix = f"run `git lfs pull` in {data_dir}" if data_dir is not None else "download the Git LFS objects, not pointers"
    raise LfsPointers(
        f"{corpus.name}: {len(found)} source file(s) {where} are Git LFS pointers, not the data: {shorten(found)}; "
        f"{fix} (a clone needs Git LFS for these files)"
    )


def read_records(corpus: Corpus) -> dict[str, Record | None]:
    """The recorded size and sha256 of each pinned URL (None: listed, not yet measured), from the
    loader's checksums.tsv."""
    records = {}
    path = corpus.checksums_path
    if not path.is_file():
        return records
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        fields = line.split("\t")
        if fields[1:] == ["-", "-"]:
            records[fields[0]] = None
        elif len(fields) == 3 and fields[1].isdigit() and re.fullmatch("[0-9a-f]{64}", fields[2]):
            records[fields[0]] = Record(int(fields[1]), fields[2])
        else:
            raise CorporaError(
                f"loaders/{corpus.name}/checksums.tsv, line {number}: expected url, size, sha256 (or -, -)"
            )
    return records


def write_records(corpus: Corpus, records: dict[str, Record | None]) -> Path:
    lines = [
        f"{url}\t{record.size}\t{record.sha256}\n" if record else f"{url}\t-\t-\n"
        for url, record in sorted(records.items())
    ]
    corpus.checksums_path.write_text("".join(lines))
    return corpus.checksums_path


def measure(path: Path) -> Record:
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
            size += len(block)
    return Record(size, digest.hexdigest())


def differences(corpus: Corpus, files: dict[str, Path]) -> list[str]:
    """Each source file whose size or sha256 is not the one recorded for its pinned URL, or that
    has no record, described with the URL, the expected and the found values."""
    records = read_records(corpus)
    found = []
    for path, local in files.items():
        url = corpus.module._URLS[path]
        record = records.get(url)
        actual = measure(local)
        if record is None:
            unverified = "listed as not yet measured" if url in records else "no recorded checksum"
            found.append(f"{url}: {unverified} (found size {actual.size}, sha256 {actual.sha256})")
        elif actual != record:
            found.append(
                f"{url}: expected size {record.size}, sha256 {record.sha256}; "
                f"found size {actual.size}, sha256 {actual.sha256}"
            )
    return found


def verify(corpus: Corpus, files: dict[str, Path]) -> None:
    """Stop unless every file is the recorded release."""
    found = differences(corpus, files)
    if found:
        # Three, not the five of other lists: each names a URL, two sizes and two sha256
        # (about 250 characters), and the line still has to say what to do.
        raise ChecksumError(
            f"{corpus.name}: {len(found)} source file(s) differ from the recorded release: {shorten(found, 3, '; ')}. "
            f"If the new files are right, record them with `corpora checksums {corpus.name} --update`; "
            "to build them once without recording, use --allow-modified-sources."
        )


def check(corpus: Corpus, files: dict[str, Path], data_dir: Path | None, allow_modified_sources: bool = False) -> None:
    """The release checks of a build from real sources: no Git LFS pointers (found before the
    checksums, which they would only fail), then every file is the recorded release. Modified
    sources skip both: the loader then names the first file that is not data, LFS pointers
    included."""
    if not allow_modified_sources:
        check_not_lfs_pointers(corpus, files, data_dir)
        verify(corpus, files)
