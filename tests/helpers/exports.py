"""A build's export as the tests of exports read it (tests/test_export_safety.py and
tests/test_export_rebuilds.py): the example corpus built in this process, its files, and the checks
that it is whole."""

import hashlib
import json
import os
import re
from pathlib import Path

import datasets
import pyarrow.parquet

from corpora import exports

from .collection import EXAMPLE as NAME
from .run import corpora_here

# dummy_data/example_ratings/expected_counts.json
DUMMY_COUNTS = {"sentences": {"train": 4, "validation": 2, "test": 2},
                "ratings": {"train": 10, "validation": 5, "test": 6},
                "raters": {"train": 3}}


def build_here(out, *extra, source=("--dummy",)):
    """`corpora build` of the example corpus run in this process (corpora_here): for the
    tests of what a build refuses and writes, where the process is not what is tested."""
    return corpora_here("build", NAME, *source, "--out", str(out), *extra)


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def card_counts(card: str) -> dict[str, dict[str, int]]:
    """Examples written per config and split, from the card's "Statistics of this Build" tables."""
    counts, config = {}, None
    for line in card[card.index("### Statistics of this Build"):].splitlines():
        heading = re.fullmatch(r"#### `(\w+)`", line)
        if heading:
            config = heading[1]
            counts[config] = {}
        row = re.fullmatch(r"\| (\w+) \| ([\d,]+) \| ([\d,]+) \|", line)
        if row and config:
            counts[config][row[1]] = int(row[3].replace(",", ""))
    return counts


def check_export(folder: Path, cache) -> dict[str, dict[str, int]]:
    """A whole, self-consistent export: croissant.json hashes exactly its Parquet files, every
    config of the card resolves to files, and their rows are those the card states. Returns the rows."""
    parquet = {p.relative_to(folder).as_posix(): p for p in folder.rglob("*.parquet")}
    described = json.loads((folder / "croissant.json").read_text())["distribution"]
    hashes = {d["contentUrl"]: d["sha256"] for d in described if d.get("contentUrl", "").endswith(".parquet")}
    assert hashes == {path: hashlib.sha256(p.read_bytes()).hexdigest() for path, p in parquet.items()}
    rows = {}
    for config in card_counts((folder / "README.md").read_text()):
        builder = datasets.load_dataset_builder(str(folder), config, cache_dir=str(cache))
        rows[config] = {
            split: sum(pyarrow.parquet.ParquetFile(path).metadata.num_rows for path in paths)
            for split, paths in builder.config.data_files.items()
        }
    assert card_counts((folder / "README.md").read_text()) == rows
    return rows


def only_the_export(out: Path) -> None:
    """OUT holds the lock file and the export NAME, a plain folder with its mark: nothing else."""
    assert sorted(os.listdir(out)) == sorted([f".{NAME}.lock", NAME])
    assert (out / NAME).is_dir() and not (out / NAME).is_symlink()
    assert exports.read_mark(out / NAME).corpus == NAME
