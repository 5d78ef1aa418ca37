"""The rows of both sides of `corpora convert --reference` as they are compared: media by their
content (the bytes, not where they were read from), and a local file path the script yielded by its
part inside the sources (where they were unpacked differs from run to run). Each split is copied,
batch by batch, to one Parquet file in the layout `corpora diff` reads, without datasets' metadata:
the rows are compared, not how two datasets versions spell the features."""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow
import pyarrow.compute
import pyarrow.parquet

DUMMY_DATA = "<dummy_data>"  # the unzipped dummy_data/ folder of a script's dummy data
DATA_DIR = "<data-dir>"
EXTRACTED = "<extracted>"  # an archive unpacked by a download manager, under a hash of its path
DOWNLOADS = "<downloads>"  # a download manager's file, named by a hash of its URL


def path_rules(dummy: bool, data_dir: Path | None) -> list[tuple[str, str]]:
    """(RE2 pattern, replacement) applied in order to every string that starts with '/'."""
    rules = []
    if data_dir is not None:
        rules.append(("^" + re.escape(str(Path(data_dir).resolve())) + "(/|$)", DATA_DIR + r"\1"))
    if dummy:  # the last dummy_data component: the zip's own folder, wherever it was unpacked
        rules.append((r"^/(?:[^/]*/)*dummy_data(/|$)", DUMMY_DATA + r"\1"))
    rules.append((r"^/(?:[^/]*/)*extracted/[0-9a-f]{16,}(/|$)", EXTRACTED + r"\1"))
    rules.append((r"^/(?:[^/]*/)*downloads/([0-9a-f]{16,})", DOWNLOADS + r"/\1"))
    return rules


def copy_export(folder: Path, layout: dict[str, dict[str, list[Path]]], rules) -> dict[str, dict[str, int]]:
    """Each config's split of `layout` (its shards in order) as FOLDER/<config>/<split>-00000-of-00001.parquet;
    {config: {split: rows}}."""
    counts = {}
    for config, splits in layout.items():
        for split, files in splits.items():
            counts.setdefault(config, {})[split] = _copy(files, folder / config / f"{split}-00000-of-00001.parquet",
                                                         rules)
    return counts


def _copy(files: list[Path], target: Path, rules) -> int:
    target.parent.mkdir(parents=True, exist_ok=True)
    writer, rows = None, 0
    try:
        for path in files:
            for batch in pyarrow.parquet.ParquetFile(path).iter_batches(batch_size=10_000):
                table = compared(pyarrow.Table.from_batches([batch]), rules)
                if writer is None:
                    writer = pyarrow.parquet.ParquetWriter(target, table.schema)
                writer.write_table(table.cast(writer.schema))
                rows += table.num_rows
        if writer is None:  # a split without rows: its schema alone
            schema = pyarrow.parquet.read_schema(files[0])
            table = compared(schema.empty_table(), rules)
            writer = pyarrow.parquet.ParquetWriter(target, table.schema)
            writer.write_table(table)
    finally:
        if writer is not None:
            writer.close()
    return rows


def compared(table: pyarrow.Table, rules) -> pyarrow.Table:
    """`table` as it is compared: paths cut to their part inside the sources, media by their bytes."""
    columns = [_array(column.combine_chunks() if column.num_chunks != 1 else column.chunk(0), rules)
               for column in table.columns]
    return pyarrow.Table.from_arrays(columns, names=table.column_names)


def _is_media(kind) -> bool:
    """An Image or Audio value as datasets stores it: {bytes, path}."""
    return pyarrow.types.is_struct(kind) and sorted(kind.field(i).name for i in range(kind.num_fields)) == [
        "bytes", "path"]


def _array(array: pyarrow.Array, rules) -> pyarrow.Array:
    kind = array.type
    if pyarrow.types.is_string(kind) or pyarrow.types.is_large_string(kind):
        return _paths(array, rules)
    if pyarrow.types.is_struct(kind):
        names = [kind.field(i).name for i in range(kind.num_fields)]
        children = [_array(child, rules) for child in array.flatten()]
        if _is_media(kind):  # the content, not the file it came from
            where = names.index("path")
            embedded = pyarrow.compute.is_valid(children[names.index("bytes")])
            children[where] = pyarrow.compute.if_else(embedded, pyarrow.scalar(None, children[where].type),
                                                      children[where])
        if not names:
            return array
        return pyarrow.StructArray.from_arrays(children, names=names, mask=array.is_null())
    if pyarrow.types.is_list(kind) or pyarrow.types.is_large_list(kind):
        # rebuilt with datasets' item name, whatever the writer called it
        values = _array(array.values, rules)
        maker = pyarrow.LargeListArray if pyarrow.types.is_large_list(kind) else pyarrow.ListArray
        return maker.from_arrays(array.offsets, values, mask=array.is_null() if array.null_count else None)
    if pyarrow.types.is_fixed_size_list(kind):
        flat = array.flatten() if not array.null_count else None
        if flat is not None:
            return pyarrow.FixedSizeListArray.from_arrays(_array(flat, rules), kind.list_size)
    return array


def _paths(array: pyarrow.Array, rules) -> pyarrow.Array:
    if not rules or not pyarrow.compute.any(pyarrow.compute.starts_with(array, "/")).as_py():
        return array
    for pattern, replacement in rules:
        array = pyarrow.compute.replace_substring_regex(array, pattern=pattern, replacement=replacement,
                                                        max_replacements=1)
    return array
