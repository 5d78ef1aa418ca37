"""The checks datasets 4.x and 5.x dropped, restored for `corpora convert`: the split sizes and the
download checksums a script's repository recorded (`dataset_infos.json`, else the `dataset_info:`
of its README.md), keys unique across a whole split, and media files read into the export.

Each takes plain inputs (what was recorded, a DatasetInfo, {url: local path}, keys), so the
command calls them; datasets_adapter.observe_keys hands the builder's keys to a KeyLedger."""

from __future__ import annotations

import hashlib
import json
import math
import zlib
from collections.abc import Callable
from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

import datasets
import numpy as np
import pyarrow as pa
from datasets.features.features import require_storage_embed
from datasets.table import embed_table_storage

from corpora import datasets_adapter
from corpora.errors import CorporaError
from corpora.errors import shorten

MODIFIED_SOURCES = "to convert the sources as they are, use --allow-modified-sources"


# --- what the repository recorded ------------------------------------------------------------------

@dataclass(frozen=True)
class Recorded:
    """What a repository recorded of one config: examples per split, the sha256 of each download."""

    splits: dict[str, int] = field(default_factory=dict)
    checksums: dict[str, str] = field(default_factory=dict)  # url -> sha256 (those recorded with one)
    source: str = "dataset_infos.json"  # the file it was read from, as messages name it


def read_recorded(folder: Path) -> dict[str, Recorded]:
    """Config name -> what was recorded of it, from the folder's `dataset_infos.json` or, failing
    that, the `dataset_info:` of its README.md (one dict, or a list with one per config); {}: none."""
    folder = Path(folder)
    infos_json = folder / "dataset_infos.json"
    if infos_json.is_file():
        try:
            infos = json.loads(infos_json.read_text(encoding="utf-8"))
        except ValueError as error:
            raise CorporaError(f"{infos_json}: not JSON ({error})") from None
        if not isinstance(infos, dict):
            raise CorporaError(f"{infos_json}: not a JSON object of configs")
        return {str(name): _recorded(info, infos_json.name) for name, info in infos.items() if isinstance(info, dict)}
    readme = folder / "README.md"
    if not readme.is_file():
        return {}
    from huggingface_hub import metadata_load  # YAML of the card's header: only for a README

    infos = (metadata_load(readme) or {}).get("dataset_info")
    if isinstance(infos, dict):
        infos = [infos]
    if not isinstance(infos, list):
        return {}
    where = "the dataset_info of README.md"
    return {str(info.get("config_name", "default")): _recorded(info, where) for info in infos if isinstance(info, dict)}


def _recorded(info: dict, source: str) -> Recorded:
    splits = info.get("splits") or {}
    # dataset_infos.json: {name: {name, num_examples, ...}}; the README's YAML: [{name, num_examples, ...}]
    entries = splits.values() if isinstance(splits, dict) else splits
    sizes = {str(entry["name"]): int(entry["num_examples"]) for entry in entries
             if isinstance(entry, dict) and "name" in entry and entry.get("num_examples") is not None}
    checksums = {str(url): str(entry["checksum"]) for url, entry in (info.get("download_checksums") or {}).items()
                 if isinstance(entry, dict) and entry.get("checksum")}
    return Recorded(sizes, checksums, source)


# --- split sizes ----------------------------------------------------------------------------------

def split_size_differences(config: str, recorded: Recorded, info: datasets.DatasetInfo) -> list[str]:
    """"config/split: recorded R examples, got G" for each split whose generated size (`info`,
    after download_and_prepare) differs from the recorded one, or that only one of them has."""
    got = {str(name): split.num_examples for name, split in (info.splits or {}).items()}
    found = []
    for split in [*recorded.splits, *(name for name in got if name not in recorded.splits)]:
        want = f"{recorded.splits[split]:,} examples" if split in recorded.splits else "no such split"
        have = f"{got[split]:,}" if split in got else "no such split"
        if recorded.splits.get(split) != got.get(split):
            found.append(f"{config}/{split}: recorded {want}, got {have}")
    return found


def check_split_sizes(name: str, recorded: dict[str, Recorded], infos: dict[str, datasets.DatasetInfo]) -> None:
    """Stop unless each config's splits have the sizes recorded for it (a config with none recorded: not checked)."""
    found, sources = [], []
    for config, info in infos.items():
        if config in recorded and recorded[config].splits:
            found += split_size_differences(config, recorded[config], info)
            sources.append(recorded[config].source)
    if found:
        raise CorporaError(f"{name}: split sizes differ from those {sources[0]} records: {shorten(found, 5, '; ')}; "
                           f"{MODIFIED_SOURCES}")


# --- download checksums ---------------------------------------------------------------------------

def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def checksum_differences(recorded: dict[str, str], downloaded: dict[str, str | Path],
                         sha256: Callable[[Path], str] = sha256_of) -> list[str]:
    """"URL: sha256 GOT, recorded WANT" for each downloaded file whose sha256 is not the one
    recorded for its URL. URLs downloaded with none recorded, or recorded and not downloaded
    (another config's): nothing to compare."""
    found = []
    for url, path in downloaded.items():
        want = recorded.get(str(url))
        if want is None or not Path(path).is_file():
            continue
        got = sha256(Path(path))
        if got != want:
            found.append(f"{url}: sha256 {got}, recorded {want}")
    return found


def verify_checksums(name: str, recorded: Recorded, downloaded: dict[str, str | Path],
                     sha256: Callable[[Path], str] = sha256_of) -> None:
    """Stop unless every downloaded file has the sha256 recorded for its URL."""
    found = checksum_differences(recorded.checksums, downloaded, sha256)
    if found:
        raise CorporaError(f"{name}: downloads differ from those {recorded.source} records: "
                           f"{shorten(found, 3, '; ')}; {MODIFIED_SOURCES}")


# --- duplicate keys -------------------------------------------------------------------------------

def key_bytes(key) -> bytes:
    """A key as datasets compared keys (its KeyHasher): text as UTF-8, a number as its digits."""
    if isinstance(key, str):
        return key.encode("utf-8", "surrogatepass")
    if isinstance(key, (bytes, bytearray)):
        return bytes(key)
    if isinstance(key, int) and not isinstance(key, bool):
        return str(key).encode()
    return repr(key).encode("utf-8", "surrogatepass")


def hash_keys(keys: list[bytes]) -> np.ndarray:
    """64 bits per key: the CRC-32 of its bytes and of its bytes reversed, two different linear maps,
    so two keys that differ within 8 bytes never share both; the same in every process (Python's
    hash() is salted). Four times faster than a hashlib digest per key; a shared hash is rechecked."""
    crc32 = zlib.crc32
    high = np.fromiter((crc32(key) for key in keys), np.uint64, len(keys))
    low = np.fromiter((crc32(key[::-1]) for key in keys), np.uint64, len(keys))
    return (high << np.uint64(32)) | low


@dataclass(frozen=True)
class Duplicate:
    key: bytes
    first: int  # the positions of the two examples in the split, from 0
    second: int

    def says(self, where: str) -> str:
        key = self.key.decode("utf-8", "backslashreplace")
        return (f"{where}: the key {key!r} is yielded twice, by examples {self.first:,} and {self.second:,} "
                "(counted from 0); keys must be unique in a split")


_SCHEMA = pa.schema([("hash", pa.uint64()), ("key", pa.binary())])
BATCH_KEYS = 65_536  # keys held before they are written
BUCKET_HASHES = 1 << 22  # hashes sorted at once (32 MB): a larger split is sorted a part of the hash range at a time


class KeyWriter:
    """The keys of one job of a split, written as (hash, key) batches into an Arrow stream file."""

    def __init__(self, path: Path, hash_keys: Callable[[list[bytes]], np.ndarray] = hash_keys):
        self.path, self.hash_keys = path, hash_keys
        self.keys: list[bytes] = []
        self.writer = None

    def __call__(self, key) -> None:
        self.keys.append(key)
        if len(self.keys) >= BATCH_KEYS:
            self.flush()

    def flush(self) -> None:
        if self.writer is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.writer = pa.ipc.new_stream(str(self.path), _SCHEMA)
        keys = [key.encode("utf-8", "surrogatepass") if type(key) is str else key_bytes(key) for key in self.keys]
        hashes = pa.array(self.hash_keys(keys), pa.uint64())
        self.writer.write_batch(pa.record_batch([hashes, pa.array(keys, pa.binary())], schema=_SCHEMA))
        self.keys = []

    def close(self) -> None:
        self.flush()  # an empty job still writes its (empty) file: the job's place in the split
        self.writer.close()


def _batches(paths: list[Path]):
    """(position of the batch's first key in the split, batch) over the jobs' files in job order."""
    position = 0
    for path in paths:
        with pa.memory_map(str(path)) as source:
            for batch in pa.ipc.open_stream(source):
                yield position, batch
                position += batch.num_rows


def find_duplicate(paths: list[Path]) -> Duplicate | None:
    """The first key yielded twice (the one whose second example comes first) in the keys of a
    split's job files, in bounded memory: the 64-bit hashes sorted a part of the hash range at a
    time, then the keys of hashes seen twice compared themselves (two keys may share a hash)."""
    total = sum(batch.num_rows for _, batch in _batches(paths))
    bits = max(0, math.ceil(math.log2(total / BUCKET_HASHES))) if total else 0
    colliding = []
    for bucket in range(1 << bits):
        # copies (a mask, or copy()): the batches' memory is the file's, mapped only while it is read
        part = [hashes[(hashes >> np.uint64(64 - bits)) == bucket] if bits else hashes.copy()
                for hashes in (batch.column(0).to_numpy() for _, batch in _batches(paths))]
        hashes = np.sort(np.concatenate(part)) if part else np.empty(0, np.uint64)
        colliding.append(np.unique(hashes[1:][hashes[1:] == hashes[:-1]]))
    colliding = np.concatenate(colliding)
    if not len(colliding):
        return None
    first_seen: dict[bytes, int] = {}  # the keys of colliding hashes: few, unless one is yielded twice
    for start, batch in _batches(paths):
        rows = np.flatnonzero(np.isin(batch.column(0).to_numpy(), colliding))
        keys = batch.column(1).take(pa.array(rows)).to_pylist() if len(rows) else []
        for row, key in zip(rows.tolist(), keys, strict=True):
            if key in first_seen:
                return Duplicate(key, first_seen[key], start + row)
            first_seen[key] = start + row
    return None


class KeyLedger:
    """The keys a builder yields, per split and job (worker processes write their own files: it
    travels pickled with the builder), and the check of each split once it is generated."""

    def __init__(self, folder: Path, where: str, hash_keys: Callable[[list[bytes]], np.ndarray] = hash_keys):
        self.folder, self.where, self.hash_keys = Path(folder), where, hash_keys

    def _folder(self, split: str) -> Path:
        return self.folder / split.replace("/", "%2F")

    def writer(self, split: str, job: int) -> KeyWriter:
        return KeyWriter(self._folder(split) / f"job-{job:05d}.arrow", self.hash_keys)

    def check(self, split: str) -> None:
        """Stop at a key the split yields twice; its key files are removed either way."""
        folder = self._folder(split)
        paths = sorted(folder.glob("job-*.arrow"))
        try:
            duplicate = find_duplicate(paths)
        finally:
            for path in paths:
                path.unlink()
        if duplicate is not None:
            raise CorporaError(duplicate.says(f"{self.where}/{split}"))


def duplicate_in(keys: Iterable, folder: Path, hash_keys: Callable[[list[bytes]], np.ndarray] = hash_keys,
                 ) -> Duplicate | None:
    """The first key of `keys` (one split's, in order) yielded twice, or None (KeyLedger's check on an iterator)."""
    writer = KeyWriter(Path(folder) / "job-00000.arrow", hash_keys)
    for key in keys:
        writer(key)
    writer.close()
    try:
        return find_duplicate([writer.path])
    finally:
        writer.path.unlink()


# --- media ----------------------------------------------------------------------------------------

def embed_media(table: pa.Table) -> pa.Table:
    """The files Image and Audio values point to read into the table (datasets' embed_table_storage:
    their paths become file names), so the export stands alone; a table without them, unchanged."""
    features = datasets.Features.from_arrow_schema(table.schema)
    if not any(require_storage_embed(feature) for feature in features.values()):
        return table
    return embed_table_storage(table)


# --- the checks of one conversion -----------------------------------------------------------------

@dataclass(frozen=True)
class Checks:
    """What `corpora convert` checks of each config's builder: its keys always; on real sources
    (not --dummy, and unless --allow-modified-sources) its downloads' sha256 and split sizes
    against those recorded. `attach` before download_and_prepare, `check_sizes` after it."""

    name: str
    recorded: dict[str, Recorded]
    compare_recorded: bool  # real sources, and the user did not allow modified ones

    @classmethod
    def of(cls, name: str, script_folder: Path, dummy: bool, allow_modified_sources: bool) -> Checks:
        return cls(name, read_recorded(script_folder), not dummy and not allow_modified_sources)

    def attach(self, builder: datasets.DatasetBuilder, config: str, work_folder: Path) -> None:
        """The checks hooked into the builder (datasets_adapter), its keys' files under `work_folder`."""
        datasets_adapter.own_checks_off(builder)
        if isinstance(builder, datasets.GeneratorBasedBuilder):  # an Arrow-based builder yields no key per example
            ledger = KeyLedger(Path(work_folder) / "keys" / config, f"{self.name}/{config}")
            datasets_adapter.observe_keys(builder, ledger)
        if self.compare_recorded and self.recorded.get(config, Recorded()).checksums:
            datasets_adapter.after_downloads(builder, _Verify(self.name, self.recorded[config]))

    def check_sizes(self, config: str, info: datasets.DatasetInfo) -> None:
        if self.compare_recorded:
            check_split_sizes(self.name, self.recorded, {config: info})


@dataclass(frozen=True)
class _Verify:
    """verify_checksums of one config, as a function of the downloads (it travels pickled with the builder)."""

    name: str
    recorded: Recorded

    def __call__(self, downloaded: dict[str, str | Path]) -> None:
        verify_checksums(self.name, self.recorded, downloaded)
