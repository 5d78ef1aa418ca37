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
from corpora.registry import Corpus


class MissingSourceFiles(CorporaError, FileNotFoundError):
    pass


class ChecksumError(CorporaError):
    pass


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
        listing = ", ".join(str(data_dir / path) for path in missing)
        raise MissingSourceFiles(f"{corpus.name}: {len(missing)} source file(s) missing: {listing}")
    return data_dir


def urls(corpus: Corpus, configs=None) -> dict[str, str]:
    """Each source path of `configs` (default: all) and the pinned URL it is downloaded from."""
    return {path: corpus.module._URLS[path] for path in corpus.source_files(configs)}


def local_files(corpus: Corpus, data_dir: Path | None, configs=None, download_config=None) -> dict[str, Path]:
    """Each source path and the local file holding it: in data_dir, or downloaded from the pinned
    URL into the datasets download cache (where the builder then finds it again)."""
    if data_dir is not None:
        return {path: data_dir / path for path in corpus.source_files(configs)}
    manager = datasets.DownloadManager(dataset_name=corpus.name, download_config=download_config)
    downloaded = manager.download(urls(corpus, configs))
    return {path: Path(local) for path, local in downloaded.items()}


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
        raise ChecksumError(
            f"{corpus.name}: {len(found)} source file(s) differ from the recorded release: {'; '.join(found)}. "
            f"If the new files are right, record them with `corpora checksums {corpus.name} --update`; "
            "to build them once without recording, use --allow-modified-sources."
        )
