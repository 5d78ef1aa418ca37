"""The export's Parquet files: the settings they are written with in every leg (page index,
content-defined chunking, row groups capped in bytes, zstd, dictionary encoding where values
repeat), read back from their footers, and `corpora validate PATH` naming a file that breaks
them."""

import itertools
import json
import tempfile
from pathlib import Path

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from corpora import parquet_files
from corpora import pipeline
from corpora import prepare
from corpora import registry
from helpers import EXAMPLE
from helpers import corpora_here

pytestmark = [pytest.mark.usefixtures("example_collection"), pytest.mark.both_legs]

CDC = {"min_chunk_size": 262144, "max_chunk_size": 1048576, "norm_level": 0}


def footer(path):
    return pq.ParquetFile(path).metadata


def test_every_file_of_an_export_has_the_settings_in_its_footer(dummy_export):
    folder = dummy_export(EXAMPLE)
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.parquet"))
    assert len(files) == 7
    corpus = registry.get(EXAMPLE)
    for name in files:
        metadata = footer(folder / name)
        chunks = [metadata.row_group(0).column(i) for i in range(metadata.num_columns)]
        assert metadata.num_row_groups == 1  # a few rows: one row group
        assert {chunk.compression for chunk in chunks} == {"ZSTD"}
        assert {(chunk.has_column_index, chunk.has_offset_index) for chunk in chunks} == {(True, True)}
        assert json.loads(metadata.metadata[b"content_defined_chunking"]) == CDC
        # The features come back from the schema metadata, class labels and all.
        config = name.split("/")[0]
        assert datasets.Features.from_arrow_schema(pq.read_schema(folder / name)) == corpus.features(config)
        assert parquet_files.problems(folder / name, name) == []
    assert footer(folder / "ratings" / "train-00000-of-00001.parquet").num_rows == 10


def one_file(table, schema, folder):
    """The one file SplitWriter writes of `table`."""
    writer = parquet_files.SplitWriter(folder, "train", schema)
    writer.write(table)
    (path,) = writer.close()
    return path


def test_row_groups_are_capped_in_bytes_and_rows(tmp_path, monkeypatch):
    table = pa.table({"n": pa.array(range(1000), pa.int64())})  # 8 bytes a row
    schema = pa.schema([pa.field("n", pa.int64())], metadata={"huggingface": "{}"})
    monkeypatch.setattr(parquet_files, "MAX_ROW_GROUP_BYTES", 3000)  # 375 rows at most
    metadata = footer(one_file(table, schema, tmp_path / "bytes"))
    # 1,000 rows halved to 250; the 750 left halved to 375, twice.
    assert [metadata.row_group(i).num_rows for i in range(metadata.num_row_groups)] == [250, 375, 375]
    monkeypatch.setattr(parquet_files, "MAX_ROW_GROUP_ROWS", 300)
    path = one_file(table, schema, tmp_path / "rows")
    metadata = footer(path)
    assert [metadata.row_group(i).num_rows for i in range(metadata.num_row_groups)] == [300, 300, 300, 100]
    assert pq.read_table(path)["n"].to_pylist() == list(range(1000))


def test_a_row_over_the_cap_is_a_row_group_alone(monkeypatch):
    table = pa.table({"text": ["a" * 10, "b" * 5000, "c" * 10, "d" * 10]})
    monkeypatch.setattr(parquet_files, "MAX_ROW_GROUP_BYTES", 1000)
    assert list(parquet_files.row_groups(table)) == [(0, 1), (1, 1), (2, 2)]


def test_only_columns_whose_values_repeat_are_dictionary_encoded(tmp_path):
    table = pa.table({
        "label": pa.array([1, 2, 1, 2, None, None], pa.int32()),  # 2 distinct of 4 values: repeats
        "score": pa.array([0.5, 0.25, 0.125, 0.0625, 1.0, 2.0]),  # all distinct
        "words": pa.array([["a"], ["b"], ["c"], ["d"], ["e"], ["f"]]),  # nested: pyarrow's default
    })
    schema = pa.schema(table.schema, metadata={"huggingface": "{}"})
    assert parquet_files.dictionary_columns(table) == ["label", "words.list.element"]
    path = one_file(table, schema, tmp_path)
    group = footer(path).row_group(0)
    encodings = {group.column(i).path_in_schema: group.column(i).encodings for i in range(group.num_columns)}
    assert "RLE_DICTIONARY" in encodings["label"]
    assert "RLE_DICTIONARY" not in encodings["score"]
    assert "RLE_DICTIONARY" in encodings["words.list.element"]
    assert pq.read_table(path).to_pylist() == table.to_pylist()


def test_a_column_of_values_over_the_statistics_limit_has_an_offset_index_and_passes(tmp_path):
    # pyarrow writes no min and max for a page holding a value over 4,096 bytes, and so no column
    # index for its column chunk; the offset index, which the dataset viewer reads, is still there.
    features = datasets.Features({"text": datasets.Value("string"), "image": datasets.Image(),
                                  "label": datasets.Value("int32")})
    long_text, image_bytes = "word " * 1000, bytes(range(256)) * 17  # 5,000 and 4,352 bytes
    table = pa.table({
        "text": ["short", long_text],
        "image": pa.array([{"bytes": b"tiny", "path": "a.png"}, {"bytes": image_bytes, "path": "b.png"}],
                          features["image"].pa_type),
        "label": pa.array([0, 1], pa.int32()),
    })
    path = one_file(table, features.arrow_schema, tmp_path)
    group = footer(path).row_group(0)
    indexes = [(group.column(i).path_in_schema, group.column(i).has_column_index, group.column(i).has_offset_index)
               for i in range(group.num_columns)]
    assert indexes == [("text", False, True), ("image.bytes", False, True), ("image.path", True, True),
                       ("label", True, True)]
    assert parquet_files.problems(path, "train.parquet") == []
    assert pq.read_table(path).to_pylist() == table.to_pylist()


ROWS = pa.table({"n": pa.array(range(1000), pa.int64()), "text": [f"row {i}" * (i % 7) for i in range(1000)]})
ROWS_SCHEMA = pa.schema(ROWS.schema, metadata={"huggingface": "{}"})


def split_files(folder, tables):
    writer = parquet_files.SplitWriter(folder, "train", ROWS_SCHEMA)
    for table in tables:
        writer.write(table)
    return writer, writer.close()


def test_a_split_becomes_files_of_whole_row_groups(tmp_path, monkeypatch):
    monkeypatch.setattr(parquet_files, "MAX_ROW_GROUP_ROWS", 300)
    two_groups = sum(ROWS.slice(start, 300).combine_chunks().nbytes for start in (0, 300))
    monkeypatch.setattr(parquet_files, "MAX_SHARD_BYTES", two_groups)  # the first two row groups fill a file
    writer, paths = split_files(tmp_path, [ROWS])
    assert [p.name for p in paths] == ["train-00000-of-00002.parquet", "train-00001-of-00002.parquet"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [p.name for p in paths]  # no .part file left
    groups = [[footer(p).row_group(i).num_rows for i in range(footer(p).num_row_groups)] for p in paths]
    assert groups == [[300, 300], [300, 100]]
    assert writer.rows == 1000
    assert pa.concat_tables(pq.read_table(p) for p in paths).to_pylist() == ROWS.to_pylist()
    assert [parquet_files.problems(p, p.name) for p in paths] == [[], []]


def test_a_split_of_no_rows_is_one_file_of_its_schema(tmp_path):
    writer, paths = split_files(tmp_path, [ROWS.slice(0, 0)])
    assert [p.name for p in paths] == ["train-00000-of-00001.parquet"]
    assert (writer.rows, footer(paths[0]).num_rows, pq.read_schema(paths[0]).names) == (0, 0, ["n", "text"])


@settings(max_examples=25, deadline=None)
@given(cuts=st.lists(st.integers(0, 1000), max_size=12), limits=st.sampled_from([(300, 10**9), (128, 6000), (1000, 900)]))
def test_the_files_are_the_same_however_the_rows_come(cuts, limits):
    # The same bytes as the whole split written at once (the cache's tables or the builder's).
    rows, shard_bytes = limits
    with pytest.MonkeyPatch.context() as patch, tempfile.TemporaryDirectory() as tmp:
        patch.setattr(parquet_files, "MAX_ROW_GROUP_ROWS", rows)
        patch.setattr(parquet_files, "MAX_ROW_GROUP_BYTES", 4000)
        patch.setattr(parquet_files, "MAX_SHARD_BYTES", shard_bytes)
        bounds = sorted({0, 1000, *cuts})
        pieces = [ROWS.slice(start, end - start) for start, end in itertools.pairwise(bounds)]
        _, whole = split_files(Path(tmp) / "whole", [ROWS])
        _, pieced = split_files(Path(tmp) / "pieces", pieces)
        assert [p.name for p in pieced] == [p.name for p in whole]
        assert [p.read_bytes() for p in pieced] == [p.read_bytes() for p in whole]
        offsets = [footer(p).row_group(i).num_rows for p in whole for i in range(footer(p).num_row_groups)]
        assert offsets == [count for _, count in parquet_files.row_groups(ROWS)]


def test_no_thread_writes_beside_a_builder_of_examples(tmp_path):
    request = prepare.Request(registry.get(EXAMPLE), ("ratings",), dummy=True)
    beside = pipeline.ParquetBeside(tmp_path / "beside", registry.get(EXAMPLE).features("ratings").arrow_schema)
    sources = prepare.find_sources(request)
    builder = request.corpus.builder("ratings", sources.folder, tmp_path / "cache")
    beside.attach(builder)
    prepare.generate(request, "ratings", builder, sources)
    assert beside.finish() == {}
    assert not (tmp_path / "beside").exists()


def parquet_line(out, folder):
    (line,) = [line for line in out.splitlines() if line.startswith(f"{folder}: parquet files: ")]
    return line.removeprefix(f"{folder}: parquet files: ")


def test_validate_names_a_file_written_with_other_settings(capsys, tmp_path):
    assert corpora_here("build", EXAMPLE, "--dummy", "--out", str(tmp_path))[0] == 0
    folder = tmp_path / EXAMPLE
    shard = folder / "raters" / "train-00000-of-00001.parquet"
    pq.write_table(pq.read_table(shard), shard, compression="snappy")  # pyarrow's defaults otherwise
    code, out, _ = corpora_here("validate", str(folder))
    assert code == 1
    assert parquet_line(out, folder) == (
        "FAILED: raters/train-00000-of-00001.parquet: no page index (offset index) for native_language, rater, years_rating; "
        "raters/train-00000-of-00001.parquet: compressed other than ZSTD: native_language (SNAPPY), rater (SNAPPY), "
        "years_rating (SNAPPY); "
        "raters/train-00000-of-00001.parquet: written without content-defined chunking (no content_defined_chunking "
        '{"min_chunk_size": 262144, "max_chunk_size": 1048576, "norm_level": 0} in its metadata)'
    )


def test_validate_names_a_row_group_over_the_viewers_limit(capsys, tmp_path, monkeypatch):
    assert corpora_here("build", EXAMPLE, "--dummy", "--out", str(tmp_path))[0] == 0
    folder = tmp_path / EXAMPLE
    assert parquet_line(corpora_here("validate", str(folder))[1], folder) == "ok"
    sizes = {p.relative_to(folder).as_posix(): footer(p).row_group(0).total_byte_size for p in folder.rglob("*.parquet")}
    biggest = max(sizes, key=sizes.get)
    assert sorted(sizes.values())[-2] < sizes[biggest]  # one file alone is over the limit set below
    monkeypatch.setattr(parquet_files, "VIEWER_ROW_GROUP_LIMIT", sizes[biggest] - 1)
    assert parquet_line(corpora_here("validate", str(folder))[1], folder) == (
        f"FAILED: {biggest}: row group 0 holds {sizes[biggest]:,} bytes uncompressed, over the dataset viewer's limit "
        f"of {sizes[biggest] - 1:,}")
