"""The examples found in more than one split of a config, compared by content: a leak between the
splits that a card states for every export (Tally.results gives it under KEY)."""

from __future__ import annotations

import hashlib
from collections import Counter
from itertools import combinations

import duckdb
import pyarrow as pa

MEMORY_LIMIT = "512MB"  # DuckDB's own budget, as corpora diff's
KEY = "examples found in more than one split"  # Tally.results' key: (how many, per pair of splits)


def found(tables: dict[str, pa.Table]) -> tuple[int, dict[str, int]]:
    """The examples found in more than one split, compared by content (every field, not a key): how
    many distinct ones, and per pair of splits ("a & b") how many both hold. Compared in DuckDB,
    within a memory limit (a converted script's split may hold millions of rows); in Python, by a
    digest of each row, where DuckDB cannot read a column's type."""
    try:
        return _found_in_duckdb(tables)
    except (duckdb.Error, pa.ArrowException, TypeError, ValueError):
        return _found_in_python(tables)


def _found_in_duckdb(tables: dict[str, pa.Table]) -> tuple[int, dict[str, int]]:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="corpora-overlap-") as spill:
        connection = duckdb.connect(config={"memory_limit": MEMORY_LIMIT, "temp_directory": spill})
        try:
            connection.execute("SET enable_progress_bar = false")
            names = {split: f"split_{index}" for index, split in enumerate(tables)}
            for split, table in tables.items():
                connection.register(names[split], table)
            distinct = " UNION ALL ".join(f"SELECT DISTINCT * FROM {name}" for name in names.values())
            total = connection.execute(
                f"SELECT count(*) FROM (SELECT * FROM ({distinct}) GROUP BY ALL HAVING count(*) > 1)").fetchone()[0]
            pairs = {}
            for a, b in combinations(tables, 2):
                pairs[f"{a} & {b}"] = connection.execute(
                    f"SELECT count(*) FROM (SELECT * FROM {names[a]} INTERSECT SELECT * FROM {names[b]})").fetchone()[0]
        finally:
            connection.close()
    return total, pairs


def _found_in_python(tables: dict[str, pa.Table]) -> tuple[int, dict[str, int]]:
    digests = {split: _digests(table) for split, table in tables.items()}
    counted = Counter(digest for seen in digests.values() for digest in seen)
    pairs = {f"{a} & {b}": len(digests[a] & digests[b]) for a, b in combinations(digests, 2)}
    return sum(1 for count in counted.values() if count > 1), pairs


def _digests(table: pa.Table) -> set[bytes]:
    """A digest of each distinct row's content."""
    seen = set()
    for batch in table.to_batches(max_chunksize=1 << 16):
        seen.update(hashlib.blake2b(repr(row).encode(), digest_size=16).digest() for row in batch.to_pylist())
    return seen


def text(value) -> str:
    """The overlap in words, for the card: "none", or how many and the pairs that share some."""
    total, pairs = value
    shared = [f"{pair}: {count:,}" for pair, count in pairs.items() if count]
    return "none" if not total else f"{total:,} ({'; '.join(shared)})"


def held(report: dict) -> str:
    """What a build holds, in words, from its report (config -> figures.ConfigReport): the examples per
    split of each config and those found in more than one split."""
    said = []
    for config, config_report in report.items():
        splits = ", ".join(f"{split} {statistics.examples:,}" for split, statistics in config_report.statistics.items())
        shared = config_report.figures.get(KEY)
        said.append(f"`{config}`: {splits}" + ("" if shared is None else f"; in more than one split: {text(shared)}"))
    return "Examples per split of this build, " + "; ".join(said) + "."
