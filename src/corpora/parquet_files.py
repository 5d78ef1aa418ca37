"""The export's Parquet files, written by this package with the same settings under every datasets
version (datasets' own writer adds a page index and content-defined chunking only from 4.1 on,
and caps row groups in rows, not bytes), and the check of those settings (`problems`, run by
`corpora validate`).

The settings (measured in docs/parquet.md):
- a page index (column and offset index): readers such as the dataset viewer fetch one page
  instead of a whole row group;
- content-defined chunking (pyarrow >= 21): data pages end where the content says, so a rebuild
  that changes a few rows re-uploads only the pages around them (the Hub's Xet storage
  deduplicates the rest), with the options datasets >= 4.1 uses;
- row groups of at most MAX_ROW_GROUP_BYTES of Arrow data and MAX_ROW_GROUP_ROWS rows;
- COMPRESSION on every column;
- dictionary encoding only where values repeat (`dictionary_columns`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

# Shards stay well under the Hub's recommended file size (also the shards of datasets' Arrow cache).
MAX_SHARD_BYTES = 500 * 1024 * 1024
# zstd: 18% smaller files than snappy (datasets' choice) in about the same write time; gzip and
# brotli save 1-3% more for many times the write time (docs/parquet.md).
COMPRESSION = "zstd"
COMPRESSION_LEVEL = 3  # zstd's own default; higher levels wrote slower for little gain
# datasets.config.DEFAULT_CDC_OPTIONS of datasets >= 4.1: the same page boundaries as a file
# datasets writes itself.
CDC_OPTIONS = {"min_chunk_size": 256 * 1024, "max_chunk_size": 1024 * 1024, "norm_level": 0}
# Content-defined chunking leaves no mark in the Parquet format itself: the options are recorded
# in the footer's key-value metadata, under the key datasets >= 4.1 writes them.
CDC_KEY = "content_defined_chunking"
# datasets' own target (datasets.config.MAX_ROW_GROUP_SIZE, "100MB" of Arrow data), a third of
# the dataset viewer's limit (VIEWER_ROW_GROUP_LIMIT): Parquet's uncompressed size of a row group
# stays near its Arrow size, so the margin covers the difference.
MAX_ROW_GROUP_BYTES = 100 * 1000 * 1000
# Rows per row group at most, for tables of small rows: 100,000 rows write and read much faster
# than datasets' default of 1,000, and keep the footer small.
MAX_ROW_GROUP_ROWS = 100_000
# The dataset viewer refuses a row group over 300,000,000 bytes uncompressed: "Rows from parquet
# row groups are too big to be read: ... (max=286.10 MiB)" (error code TooBigContentError, shown
# on the viewer of datasets such as https://huggingface.co/datasets/isaacchung/birdsnap), and its
# notice "The recommended row group size is 100-300MB in-memory". The Parquet files it reads are
# described at https://huggingface.co/docs/dataset-viewer/parquet; no documentation page states
# the number, only these messages.
VIEWER_ROW_GROUP_LIMIT = 300_000_000
# A column is dictionary-encoded when at most this share of the values of its first row group
# are distinct. pyarrow encodes every column so by default: on a column of mostly distinct values
# (scores, free text) it builds a dictionary as large as the data, then falls back, for nothing.
DICTIONARY_MAX_DISTINCT = 0.5


def write(table: pa.Table, schema: pa.Schema, path: Path) -> None:
    """Write `table` to `path` with the export's settings. `schema` is the features' Arrow schema
    (`Features.arrow_schema`): its `huggingface` metadata is what `load_dataset` reads the
    features back from (class label names among them)."""
    table = table.replace_schema_metadata(schema.metadata)
    groups = list(row_groups(table))
    with pq.ParquetWriter(
        str(path),
        table.schema,
        compression=COMPRESSION,
        compression_level=COMPRESSION_LEVEL,
        write_page_index=True,
        use_content_defined_chunking=CDC_OPTIONS,
        use_dictionary=dictionary_columns(table.slice(*groups[0]) if groups else table),
    ) as writer:
        for offset, rows in groups:
            writer.write_table(table.slice(offset, rows), row_group_size=rows)
        writer.add_key_value_metadata({CDC_KEY: json.dumps(CDC_OPTIONS)})


def dictionary_columns(sample: pa.Table) -> list[str]:
    """The Parquet columns (leaf paths) to dictionary-encode, judged on `sample` (the first row
    group): a top-level column of numbers, text, bytes or times whose values repeat (at most
    DICTIONARY_MAX_DISTINCT of them distinct), and every other column (pyarrow's default, not
    judged: nested ones among them). The same table gives the same choice, so a rebuild writes
    the same bytes."""
    sink = pa.BufferOutputStream()  # the leaf paths as pyarrow names them: from an empty file
    pq.write_table(sample.schema.empty_table(), sink)
    leaves = pq.ParquetFile(pa.BufferReader(sink.getvalue())).schema
    plain = {field.name for field in sample.schema if _judged(field.type)}
    chosen = []
    for index in range(len(leaves)):
        path = leaves.column(index).path
        if path in plain:
            column = sample.column(path)
            values = len(column) - column.null_count
            if pc.count_distinct(column).as_py() > DICTIONARY_MAX_DISTINCT * values:
                continue
        chosen.append(path)
    return chosen


def _judged(type_: pa.DataType) -> bool:
    kinds = (pa.types.is_integer, pa.types.is_floating, pa.types.is_decimal, pa.types.is_temporal,
             pa.types.is_string, pa.types.is_large_string, pa.types.is_binary, pa.types.is_large_binary)
    return any(kind(type_) for kind in kinds)


def row_groups(table: pa.Table):
    """(first row, rows) of each row group: as many rows as fit in MAX_ROW_GROUP_BYTES of Arrow
    data (halving until they do; a single row over it is a row group alone), at most
    MAX_ROW_GROUP_ROWS, in order."""
    offset = 0
    while offset < table.num_rows:
        rows = min(MAX_ROW_GROUP_ROWS, table.num_rows - offset)
        while rows > 1 and table.slice(offset, rows).nbytes > MAX_ROW_GROUP_BYTES:
            rows //= 2
        yield offset, rows
        offset += rows


def problems(path: Path, name: str) -> list[str]:
    """What in the Parquet file at `path` (shown as `name`) breaks the export's settings: a column
    chunk without a page index or with another compression, a row group over the dataset viewer's
    limit, no record of content-defined chunking with the export's options, no features in the
    schema metadata."""
    metadata = pq.ParquetFile(path).metadata
    found = []
    no_index, compressed = set(), set()
    for index in range(metadata.num_row_groups):
        group = metadata.row_group(index)
        if group.total_byte_size > VIEWER_ROW_GROUP_LIMIT:
            found.append(f"row group {index} holds {group.total_byte_size:,} bytes uncompressed, over the dataset "
                         f"viewer's limit of {VIEWER_ROW_GROUP_LIMIT:,}")
        for column in range(group.num_columns):
            chunk = group.column(column)
            if not (chunk.has_column_index and chunk.has_offset_index):
                no_index.add(chunk.path_in_schema)
            if chunk.compression != COMPRESSION.upper():
                compressed.add(f"{chunk.path_in_schema} ({chunk.compression})")
    if no_index:
        found.append(f"no page index for {', '.join(sorted(no_index))}")
    if compressed:
        found.append(f"compressed other than {COMPRESSION.upper()}: {', '.join(sorted(compressed))}")
    key_values = metadata.metadata or {}
    cdc = key_values.get(CDC_KEY.encode())
    if cdc is None or json.loads(cdc) != CDC_OPTIONS:
        recorded = f"{CDC_KEY} {json.dumps(CDC_OPTIONS)}"
        found.append(f"written without content-defined chunking (no {recorded} in its metadata)")
    if b"huggingface" not in key_values:
        found.append("no features in its schema metadata (the huggingface key)")
    return [f"{name}: {problem}" for problem in found]
