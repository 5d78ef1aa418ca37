"""A build's source files (pinned URLs, `--data-dir` laid out like upstream, `--dummy`), checked
against loaders/NAME/checksums.tsv (`url<TAB>size<TAB>sha256`; `-<TAB>-`: not measured yet)."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from corpora import __version__
from corpora import download
from corpora import registry
from corpora.errors import OFFLINE
from corpora.errors import CorporaError
from corpora.errors import shorten
from corpora.loader_shared.loader_common import LFS_POINTER
from corpora.loader_shared.loader_common import missing_files
from corpora.path_errors import write_text
from corpora.registry import Corpus


class MissingSourceFiles(CorporaError, FileNotFoundError):
    pass


class ChecksumError(CorporaError):
    pass


class DownloadError(CorporaError):
    pass


class LfsPointers(CorporaError):
    pass


@dataclass(frozen=True)
class Record:
    size: int
    sha256: str


@dataclass(frozen=True)
class Sources:
    """The source files of one build, found and checked, and their provenance."""

    corpus: Corpus
    folder: Path  # where the builder reads them: the local copy, the dummy data or the download cache
    files: dict[str, Path]  # {path in the upstream repository: local file}
    kind: str  # "release" (checked against checksums.tsv), "modified" (--allow-modified-sources) or "dummy"
    local: bool  # read from a local copy (--data-dir, or the dummy data), not the pinned URLs
    urls: dict[str, str] = dataclasses.field(default_factory=dict)  # {path: its pinned URL}, of every file
    records: dict[str, Record | None] | None = None  # checksums.tsv; None: not read (dummy, modified local copy)
    # Of a "modified" build, each file that differs from the release: measured for an export only.
    differing: tuple[str, ...] = ()

    @property
    def release(self) -> bool:
        return self.kind == "release"

    def origin(self) -> Origin:
        """Where this build's data comes from, for its card and croissant.json: worked out once per export."""
        return origin(self.corpus, self.urls, self.records)

    def with_differences(self) -> Sources:
        if self.kind != "modified":
            return self
        records = read_records(self.corpus) if self.records is None else self.records
        return dataclasses.replace(self, differing=tuple(differences(self.files, self.urls, records)))


def find(corpus: Corpus, configs, data_dir=None, dummy: bool = False, allow_modified_sources: bool = False,
         partial: bool = False) -> Sources:
    """The one place a build's source files are found and checked (the release, unless
    `allow_modified_sources`); `partial`: the loader reads some files and names a missing one itself.
    The corpus is asked once, here, for the paths, URLs and records; what is below takes them as data."""
    pinned = urls(corpus, configs)
    if dummy:
        folder = local_folder(corpus, corpus.dummy_dir, [] if partial else list(pinned))
        return Sources(corpus, folder, {path: folder / path for path in pinned}, "dummy", True, pinned)
    folder = local_folder(corpus, data_dir, [] if partial else list(pinned))
    records = read_records(corpus) if folder is None else None  # a local copy's: read only to check it
    if folder is not None:
        files = {path: folder / path for path in pinned}
    else:
        recorded = {path: records.get(url) for path, url in pinned.items()}  # None: not measured, or not listed
        files = download_release(corpus, pinned, recorded, allow_modified_sources)
    if partial:
        files = {path: file for path, file in files.items() if file.is_file()}
    if not allow_modified_sources:
        check_not_lfs_pointers(corpus.name, files, folder)
        records = read_records(corpus) if records is None else records
        verify(corpus, files, pinned, records)
    local = folder is not None
    kind = "modified" if allow_modified_sources else "release"
    return Sources(corpus, folder if local else download.cache_folder(corpus.name), files, kind, local, pinned, records)


def local_folder(corpus: Corpus, data_dir, paths: list[str]) -> Path | None:
    """The local folder with every source file of `paths`, all missing ones named at once; None: download."""
    if data_dir is None:
        return None
    data_dir = Path(data_dir)
    if not data_dir.is_dir():  # said as such, not as every source file missing in it
        raise MissingSourceFiles(f"{corpus.name}: {data_dir}: no such folder (the local copy of the sources to read)")
    missing = missing_files(data_dir, paths)
    if missing:
        listing = shorten(str(data_dir / path) for path in missing)
        raise MissingSourceFiles(
            f"{corpus.name}: {len(missing)} source file(s) missing: {listing}{_layout_hint(corpus, data_dir)}"
        )
    return data_dir


def _layout_hint(corpus: Corpus, data_dir: Path) -> str:
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
    pinned = corpus.urls  # made from the configs at each read: once
    return {path: pinned[path] for path in corpus.source_files(configs)}


# A URL that pins a commit: the repository, then 40 hex digits as a segment (GitHub raw and LFS, the Hub).
_PINNED_URL = re.compile(r"^https://(?P<repository>.+?)(?:/resolve)?/(?P<commit>[0-9a-f]{40})/")
_REPOSITORY_HOSTS = {"raw.githubusercontent.com/": "github.com/", "media.githubusercontent.com/media/": "github.com/"}


def pinned_revisions(pinned: dict[str, str]) -> dict[str, str]:
    """{upstream repository: the commit its URLs pin}, in the order first met, of `pinned` ({path: URL})."""
    found = {}
    for url in pinned.values():
        match = _PINNED_URL.match(url)
        if match is None:
            continue
        repository = match.group("repository")
        for host, shown in _REPOSITORY_HOSTS.items():
            if repository.startswith(host):
                repository = shown + repository.removeprefix(host)
        found.setdefault(f"https://{repository}", match.group("commit"))
    return found


def provenance(corpus: Corpus, pinned: dict[str, str]) -> dict:
    """Where the data comes from, for the card and croissant.json: loader and corpora versions, the commits
    that the source URLs `pinned` ({path: URL}) pin."""
    return {
        "loader_version": corpus.version,
        "corpora_version": __version__,
        "upstream": pinned_revisions(pinned),
    }


@dataclass(frozen=True)
class Origin:
    """What a card and croissant.json say of the source files, worked out once and given to both."""

    urls: dict[str, str]  # {path: its pinned URL}, of the card's configs
    records: dict[str, Record | None]  # checksums.tsv: the size and sha256 of each pinned URL
    provenance: dict  # provenance(): loader and corpora versions, the upstream commits


def origin(corpus: Corpus, pinned: dict[str, str], records: dict[str, Record | None] | None = None) -> Origin:
    """The Origin of source files `pinned` ({path: URL}); `records`: checksums.tsv as read already (else read here)."""
    records = read_records(corpus) if records is None else records
    return Origin(pinned, records, provenance(corpus, pinned))


def provenance_line(facts: dict) -> str:
    """The provenance in one sentence (croissant.json's description ends with it)."""
    upstream = ", ".join(f"{repository} at commit {commit}" for repository, commit in facts["upstream"].items())
    return (f"Built by corpora {facts['corpora_version']} with loader version {facts['loader_version']} from "
            + (upstream or "source URLs that pin no upstream commit") + ".")


def download_release(corpus: Corpus, pinned: dict[str, str], recorded: dict[str, Record | None],
                     allow_modified_sources: bool = False) -> dict[str, Path]:
    """The `pinned` files ({path: URL}), from the cache if they are the release (`recorded`), else downloaded
    once more; a fresh copy that differs is kept only with `allow_modified_sources`."""
    folder = download.cache_folder(corpus.name)
    files, differing = {}, []
    with (
        download.cache_lock(corpus.name),
        download.progress_bar(corpus.name, {folder / path: record and record.size for path, record in recorded.items()})
        as progress,
    ):
        download.remove_leftovers(corpus.name)  # a killed download's partial files: no one else writes now
        for path, url in pinned.items():
            target, record = folder / path, recorded[path]
            if target.is_file() and (record is None or measure(target) == record):
                files[path] = target
                continue
            _refuse_offline(corpus.name, {later: pinned[later] for later in pinned if later not in files}, recorded,
                            folder)
            try:
                download.fetch(url, target, progress=progress)
            except download.DownloadFailed as error:
                raise DownloadError(f"{corpus.name}: {error}. {_local_copy_hint(path)}") from None
            if record is not None and measure(target) != record:
                differing.append(_difference(url, record, measure(target)))
                if not allow_modified_sources:
                    target.unlink()  # never kept: the next build asks the server again
                    continue
            files[path] = target
    if differing and not allow_modified_sources:
        raise ChecksumError(
            f"{corpus.name}: {len(differing)} file(s) the server sent differ from the recorded release: "
            f"{shorten(differing, 3, '; ')}. "
            + _modified_advice(corpus)
        )
    return files


def _local_copy_hint(path: str) -> str:
    return (
        "To build from a local copy of the upstream files instead, pass --data-dir DIR (data_dir= in Python) "
        f"with this file at DIR/{path}"
    )


def _refuse_offline(name: str, pinned: dict[str, str], recorded, folder: Path) -> None:
    """In offline mode, name every file of `pinned` the cache (`folder`) lacks, not the first alone."""
    if not download.offline():
        return
    missing = [path for path in pinned if not (folder / path).is_file()
               or (recorded[path] is not None and measure(folder / path) != recorded[path])]
    if len(missing) == 1:
        raise DownloadError(f"{name}: cannot download {pinned[missing[0]]}: {OFFLINE}. "
                            + _local_copy_hint(missing[0]))
    # Their count and folder, not their URLs: caption's 476 took 1,364 characters on one line.
    common = posixpath.commonpath([posixpath.dirname(path) for path in missing])
    raise DownloadError(
        f"{name}: cannot download {len(missing)} files{f' in {common}/' if common else ''}, {OFFLINE}; "
        "or build from a local copy: --data-dir DIR"
    )


def lfs_pointers(files: dict[str, Path]) -> list[str]:
    """The source paths whose local file is a Git LFS pointer instead of the data."""
    found = []
    for path, local in files.items():
        with open(local, "rb") as f:
            if f.read(len(LFS_POINTER)) == LFS_POINTER:
                found.append(path)
    return found


def check_not_lfs_pointers(name: str, files: dict[str, Path], data_dir: Path | None) -> None:
    """Stop on Git LFS pointers (a clone without `git lfs pull`) before any checksum."""
    found = lfs_pointers(files)
    if not found:
        return
    where = f"in {data_dir}" if data_dir is not None else "downloaded"
    fix = f"run `git lfs pull` in {data_dir}" if data_dir is not None else "download the Git LFS objects, not pointers"
    raise LfsPointers(
        f"{name}: {len(found)} source file(s) {where} are Git LFS pointers, not the data: {shorten(found)}; "
        f"{fix} (a clone needs Git LFS for these files)"
    )


def read_records(corpus: Corpus) -> dict[str, Record | None]:
    """checksums.tsv: each pinned URL's size and sha256 (None: not measured yet)."""
    path = corpus.checksums_path
    if not path.is_file():
        return {}
    stat = path.stat()
    return dict(_read_records(corpus.name, path, stat.st_size, stat.st_mtime_ns))


@functools.lru_cache(maxsize=32)
def _read_records(name: str, path: Path, size: int, mtime_ns: int) -> dict[str, Record | None]:
    """checksums.tsv, read once per version of the file."""
    records = {}
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        fields = line.split("\t")
        if fields[1:] == ["-", "-"]:
            records[fields[0]] = None
        elif len(fields) == 3 and fields[1].isdigit() and re.fullmatch("[0-9a-f]{64}", fields[2]):
            records[fields[0]] = Record(int(fields[1]), fields[2])
        else:
            raise CorporaError(
                f"loaders/{name}/checksums.tsv, line {number}: expected url, size, sha256 (or -, -)"
            )
    return records


def write_records(corpus: Corpus, records: dict[str, Record | None]) -> Path:
    lines = [
        f"{url}\t{record.size}\t{record.sha256}\n" if record else f"{url}\t-\t-\n"
        for url, record in sorted(records.items())
    ]
    write_text(corpus.checksums_path, "".join(lines), encoding=None)
    return corpus.checksums_path


# Measured files by (path, inode, size, mtime): a build checks a file once, not again for each step.
_MEASURED: dict[tuple, Record] = {}


def measure(path: Path) -> Record:
    stat = os.stat(path)
    key = (os.fspath(path), stat.st_ino, stat.st_size, stat.st_mtime_ns)
    if key not in _MEASURED:
        digest = hashlib.sha256()
        size = 0
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
                size += len(block)
        _MEASURED[key] = Record(size, digest.hexdigest())
    return _MEASURED[key]


def _difference(url: str, record: Record, actual: Record) -> str:
    """How a file differs from its record, without the checksums (`corpora checksums` shows them)."""
    if actual.size != record.size:
        return f"{url} ({actual.size:,} bytes, recorded {record.size:,})"
    return f"{url} (the recorded size, another sha256)"


def _modified_advice(corpus: Corpus) -> str:
    if corpus.root == registry.INSTALLED_DATA:  # `checksums --update` refuses in an installed package
        return (
            "To build them anyway, use --allow-modified-sources; to record them, run "
            f"`corpora checksums {corpus.name} --update` in a clone of the repository."
        )
    return (
        f"If the new files are right, record them with `corpora checksums {corpus.name} --update`; "
        "to build them once without recording, use --allow-modified-sources."
    )


def differences(files: dict[str, Path], pinned: dict[str, str], records: dict[str, Record | None]) -> list[str]:
    """Each source file that is not as recorded, in a few words with its URL."""
    found = []
    for path, local in files.items():
        url = pinned[path]
        record = records.get(url)
        if record is None:
            found.append(f"{url} ({'listed as not yet measured' if url in records else 'no recorded checksum'})")
        elif (size := os.path.getsize(local)) != record.size:  # differs whatever its sha256: not hashed
            found.append(_difference(url, record, Record(size, "")))
        elif measure(local) != record:
            found.append(_difference(url, record, measure(local)))
    return found


def verify(corpus: Corpus, files: dict[str, Path], pinned: dict[str, str], records: dict[str, Record | None]) -> None:
    """Stop unless every file is the recorded release."""
    found = differences(files, pinned, records)
    if found:
        raise ChecksumError(
            f"{corpus.name}: {len(found)} source file(s) differ from the recorded release: {shorten(found, 3, '; ')}. "
            + _modified_advice(corpus)
        )
