"""The examples found in more than one split of a config, compared by content: a leak between the
splits that a card states for every export (Tally.results gives it under KEY)."""

from __future__ import annotations

import hashlib
import tempfile
from collections import Counter
from itertools import combinations
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from corpora import signals

# DuckDB's own budget (it spills to a temporary folder beyond it), with one thread and no insertion
# order: within it, 1,000,000 rows sharing half of them with another split took 128 MB where more
# threads ran out of memory (a split of a converted script may hold any number of rows).
MEMORY_LIMIT = "128MB"
KEY = "examples found in more than one split"  # Tally.results' key: (how many, per pair of splits)


def found(splits: dict[str, pa.Table | list[Path]]) -> tuple[int, dict[str, int]]:
    """The examples found in more than one split, compared by content (every field, not a key): how
    many distinct ones, and per pair of splits ("a & b") how many both hold. Each split is a table or
    its Parquet files. Compared in DuckDB, within a memory limit; in Python, by a digest of each row,
    where DuckDB cannot read a column's type."""
    try:
        return _found_in_duckdb(splits)
    except RuntimeError:  # DuckDB's "Query interrupted": a stop (Ctrl-C) came during a query, and goes on
        signals.stop_if_asked()
        raise
    except (duckdb.Error, pa.ArrowException, TypeError, ValueError):
        signals.stop_if_asked()
        return _found_in_python(splits)


def _found_in_duckdb(splits: dict[str, pa.Table | list[Path]]) -> tuple[int, dict[str, int]]:
    with tempfile.TemporaryDirectory(prefix="corpora-overlap-") as spill:
        connection = duckdb.connect(config={"memory_limit": MEMORY_LIMIT, "temp_directory": spill, "threads": 1,
                                            "preserve_insertion_order": False})
        try:
            connection.execute("SET enable_progress_bar = false")
            names = {split: f"split_{index}" for index, split in enumerate(splits)}
            for split, rows in splits.items():
                if isinstance(rows, pa.Table):
                    connection.register(f"all_{names[split]}", rows)
                else:
                    connection.read_parquet([str(path) for path in rows]).create_view(f"all_{names[split]}")
            columns = connection.execute(f"SELECT * FROM all_{names[next(iter(splits))]} LIMIT 0").description
            row_hash = "hash(" + ", ".join('"' + column[0].replace('"', '""') + '"' for column in columns) + ")"
            # Equal rows hash equal (DuckDB's DISTINCT relies on it): only the rows of a hash found in more
            # than one split can be, and they alone are compared whole, as few as the splits share.
            hashes = " UNION ALL ".join(f"SELECT DISTINCT {row_hash} AS h FROM all_{name}" for name in names.values())
            connection.execute(f"CREATE TEMP TABLE shared AS SELECT h FROM ({hashes}) GROUP BY h HAVING count(*) > 1")
            for name in names.values():
                connection.execute(f"CREATE TEMP TABLE {name} AS SELECT * FROM all_{name} "
                                   f"WHERE {row_hash} IN (SELECT h FROM shared)")
            distinct = " UNION ALL ".join(f"SELECT DISTINCT * FROM {name}" for name in names.values())
            total = connection.execute(
                f"SELECT count(*) FROM (SELECT * FROM ({distinct}) GROUP BY ALL HAVING count(*) > 1)").fetchone()[0]
            pairs = {}
            for a, b in combinations(splits, 2):
                pairs[f"{a} & {b}"] = connection.execute(
                    f"SELECT count(*) FROM (SELECT * FROM {names[a]} INTERSECT SELECT * FROM {names[b]})").fetchone()[0]
        finally:
            connection.close()
    return total, pairs


def _found_in_python(splits: dict[str, pa.Table | list[Path]]) -> tuple[int, dict[str, int]]:
    digests = {split: _digests(rows) for split, rows in splits.items()}
    counted = Counter(digest for seen in digests.values() for digest in seen)
    pairs = {f"{a} & {b}": len(digests[a] & digests[b]) for a, b in combinations(digests, 2)}
    return sum(1 for count in counted.values() if count > 1), pairs


def _digests(rows: pa.Table | list[Path]) -> set[bytes]:
    """A digest of each distinct row's content."""
    if isinstance(rows, pa.Table):
        batches = rows.to_batches(max_chunksize=1 << 16)
    else:
        batches = (batch for path in rows for batch in pq.ParquetFile(path).iter_batches(batch_size=1 << 16))
    seen = set()
    for batch in batches:
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
