"""The export's Parquet files, written with the same settings on every datasets version, and their
check (`problems`): each setting, why and its measurements are in docs/parquet.md."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

# A file ends where its next row group would take it over this: well under the Hub's recommended size.
MAX_SHARD_BYTES = 500 * 1024 * 1024
COMPRESSION = "zstd"
COMPRESSION_LEVEL = 3  # zstd's own default; higher levels wrote slower for little gain
# datasets.config.DEFAULT_CDC_OPTIONS of datasets >= 4.1: the page boundaries datasets writes.
CDC_OPTIONS = {"min_chunk_size": 256 * 1024, "max_chunk_size": 1024 * 1024, "norm_level": 0}
# The footer's metadata key datasets >= 4.1 records the chunking under (Parquet itself has none).
CDC_KEY = "content_defined_chunking"
# datasets' own target (MAX_ROW_GROUP_SIZE), a third of the viewer's limit: a margin for Parquet's size.
MAX_ROW_GROUP_BYTES = 100 * 1000 * 1000
MAX_ROW_GROUP_ROWS = 100_000  # small rows: much faster than datasets' 1,000, and a small footer
VIEWER_ROW_GROUP_LIMIT = 300_000_000
DICTIONARY_MAX_DISTINCT = 0.5


def _writer(path: Path, first_group: pa.Table) -> pq.ParquetWriter:
    return pq.ParquetWriter(
        str(path),
        first_group.schema,
        compression=COMPRESSION,
        compression_level=COMPRESSION_LEVEL,
        write_page_index=True,
        use_content_defined_chunking=CDC_OPTIONS,
        use_dictionary=dictionary_columns(first_group),
    )


class SplitWriter:
    """A split's `<split>-0000i-of-0000n.parquet` files, cut the same whether its tables come from
    datasets' cache or a builder; `close` names them (n is known only then)."""

    def __init__(self, folder: Path, split: str, schema: pa.Schema):
        self.folder, self.split, self.schema = Path(folder), split, schema
        self.rows = 0
        self._pending: list[pa.Table] = []  # rows not yet in a row group (under MAX_ROW_GROUP_ROWS)
        self._pending_rows = 0
        self._parts: list[Path] = []
        self.paths: list[Path] = []  # the files, once closed
        self._writer: pq.ParquetWriter | None = None
        self._part_bytes = 0

    def write(self, table: pa.Table) -> None:
        self._pending.append(table.replace_schema_metadata(self.schema.metadata))
        self._pending_rows += table.num_rows
        while self._pending_rows >= MAX_ROW_GROUP_ROWS:  # a whole row group is known: as in the whole split
            self._write_groups(final=False)

    def close(self) -> list[Path]:
        self._write_groups(final=True)
        if self._writer is None:  # no rows: one file with the schema
            self._begin_part(self.schema.empty_table())
        self._end_part()
        count = len(self._parts)
        for index, part in enumerate(self._parts):
            path = self.folder / f"{self.split}-{index:05d}-of-{count:05d}.parquet"
            part.rename(path)
            self.paths.append(path)
        return self.paths

    def abort(self) -> None:
        """Close the file being written, after an error elsewhere (the caller discards the files)."""
        if self._writer is not None:
            self._writer, writer = None, self._writer
            writer.close()

    def _write_groups(self, final: bool) -> None:
        if not self._pending:
            return
        table = pa.concat_tables(self._pending)
        offset = 0
        for offset, rows in row_groups(table):
            if final or table.num_rows - offset >= MAX_ROW_GROUP_ROWS:  # cut as in the whole split
                self._write_group(table.slice(offset, rows))
            else:  # the rows left may be the start of a longer row group
                break
        else:
            offset = table.num_rows
        rest = table.slice(offset)
        self._pending, self._pending_rows = ([rest] if rest.num_rows else []), rest.num_rows

    def _write_group(self, group: pa.Table) -> None:
        group = group.combine_chunks()  # the same pages however the rows came in tables
        if self._writer is not None and self._part_bytes + group.nbytes > MAX_SHARD_BYTES:
            self._end_part()
        if self._writer is None:
            self._begin_part(group)
        self._writer.write_table(group, row_group_size=group.num_rows)
        self._part_bytes += group.nbytes
        self.rows += group.num_rows

    def _begin_part(self, first_group: pa.Table) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        part = self.folder / f"{self.split}-{len(self._parts):05d}.parquet.part"
        self._writer, self._part_bytes = _writer(part, first_group), 0
        self._parts.append(part)

    def _end_part(self) -> None:
        self._writer.add_key_value_metadata({CDC_KEY: json.dumps(CDC_OPTIONS)})
        self._writer.close()
        self._writer = None


def dictionary_columns(sample: pa.Table) -> list[str]:
    """The columns to dictionary-encode, judged on the first row group only, so a rebuild writes the same bytes."""
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
    """(first row, rows) of each row group: within MAX_ROW_GROUP_BYTES (halving) and MAX_ROW_GROUP_ROWS."""
    offset = 0
    while offset < table.num_rows:
        rows = min(MAX_ROW_GROUP_ROWS, table.num_rows - offset)
        while rows > 1 and table.slice(offset, rows).nbytes > MAX_ROW_GROUP_BYTES:
            rows //= 2
        yield offset, rows
        offset += rows


def problems(path: Path, name: str) -> list[str]:
    """What in the Parquet file at `path` (shown as `name`) breaks the export's settings."""
    metadata = pq.ParquetFile(path).metadata
    found = []
    no_offset_index, compressed = set(), set()
    for index in range(metadata.num_row_groups):
        group = metadata.row_group(index)
        if group.total_byte_size > VIEWER_ROW_GROUP_LIMIT:
            found.append(f"row group {index} holds {group.total_byte_size:,} bytes uncompressed, over the dataset "
                         f"viewer's limit of {VIEWER_ROW_GROUP_LIMIT:,}")
        for column in range(group.num_columns):
            chunk = group.column(column)
            # The offset index is what a reader (the dataset viewer) finds a row's pages by. The column
            # index (pages' min and max) is not required: pyarrow leaves it out where a value is over
            # 4,096 bytes, and the viewer never reads it (docs/parquet.md).
            if not chunk.has_offset_index:
                no_offset_index.add(chunk.path_in_schema)
            if chunk.compression != COMPRESSION.upper():
                compressed.add(f"{chunk.path_in_schema} ({chunk.compression})")
    if no_offset_index:
        found.append(f"no page index (offset index) for {', '.join(sorted(no_offset_index))}")
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
