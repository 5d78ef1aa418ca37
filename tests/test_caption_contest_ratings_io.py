"""caption_contest_ratings' reader (loaders/caption_contest_ratings/_reader.py): zipfile's checks of
an archive, pyarrow's blocks read to the records and errors of the whole file (any text, any block
size), the CR LF that pyarrow loses at a block end and the record counts. The messages a user sees
for damaged archives are tested in test_caption_contest_ratings.py."""

import csv
import importlib
import io
import itertools
import zipfile

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from corpora import registry
from synthetic_caption_contest_ratings import cardinal_csv

corpus = registry.get("caption_contest_ratings")
loader = corpus.module
reader = importlib.import_module(f"{loader.__package__}._reader")
CARDINAL = corpus.config("cardinal_responses")
ARCHIVE = "contests/responses/577-responses.csv.zip"


def archive_of(path, data, method):
    with zipfile.ZipFile(path, "w", compression=method, compresslevel=9 if method == zipfile.ZIP_DEFLATED else None) as archive:
        archive.writestr("577-responses.csv", data)
    return path


def cardinal_rows(path):
    return sum(t.num_rows for t in loader._file_tables(CARDINAL, str(path), ARCHIVE))


@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED, zipfile.ZIP_BZIP2], ids=["deflated", "stored", "bzip2"])
def test_an_archive_is_read_by_zipfile_whatever_its_method(tmp_path, method):
    data = cardinal_csv(20_000)
    path = archive_of(tmp_path / "577-responses.csv.zip", data, method)
    assert reader.read_archive(str(path), ARCHIVE) == (f"{ARCHIVE}!577-responses.csv", data)
    assert cardinal_rows(path) == 20_000


def test_errors_in_later_chunks_are_those_of_the_whole_file(tmp_path, monkeypatch):
    def error(path):
        with pytest.raises(ValueError) as caught:
            list(loader._file_tables(CARDINAL, str(path), ARCHIVE))
        return str(caught.value)

    data = cardinal_csv(20_000)
    lines = data.split(b"\n")
    head, _, stamp = lines[15_001].rsplit(b",", 2)  # record 15,001 (line 1 is the header)
    bad_value = b"\n".join(lines[:15_001] + [head + b",7," + stamp] + lines[15_002:])
    extra_cell = b"\n".join(lines[:15_001] + [lines[15_001] + b",x"] + lines[15_002:])
    stored = archive_of(tmp_path / "stored.zip", data, zipfile.ZIP_STORED)
    changed = bytearray(stored.read_bytes())
    at = changed.index(b"caption 17,", len(changed) * 3 // 4)
    changed[at + 8] = ord("8")  # a late byte: only the CRC-32 tells
    crc = tmp_path / "crc.zip"
    crc.write_bytes(bytes(changed))
    paths = [
        archive_of(tmp_path / "value.zip", bad_value, zipfile.ZIP_DEFLATED),
        archive_of(tmp_path / "cell.zip", extra_cell, zipfile.ZIP_DEFLATED),
        crc,
    ]
    whole_file = [error(path) for path in paths]  # 1.8 MB: one block
    assert whole_file == [
        f"{ARCHIVE}!577-responses.csv, record 15001: field 'target_reward': invalid value 7 "
        "(expected 1 (unfunny), 2 (somewhat funny) or 3 (funny))",
        f"{ARCHIVE}!577-responses.csv: invalid CSV (CSV parse error: Row #15002: Expected 9 columns, got 10: "
        + lines[15_001].decode() + ",x)",
        f"{ARCHIVE}: corrupt zip archive (Bad CRC-32 for file '577-responses.csv')",
    ]
    # Blocks of 64 KiB: a table per block, the same records and errors.
    monkeypatch.setattr(reader, "BLOCK_SIZE", 64 << 10)
    good = archive_of(tmp_path / "good.zip", data, zipfile.ZIP_DEFLATED)
    tables = list(loader._file_tables(CARDINAL, str(good), ARCHIVE))
    assert (len(data), len(tables)) == (1_815_880, 28)
    assert pa.concat_tables(tables).column("row_index").to_pylist() == list(range(20_000))
    assert [error(path) for path in paths] == whole_file


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.text(alphabet='ab,"\n\r é', max_size=12), st.text(alphabet='ab,"\n é', max_size=12)),
        min_size=1,
        max_size=40,
    ),
    st.integers(min_value=100, max_value=400),
    st.booleans(),
    st.booleans(),
)
def test_reading_in_blocks_gives_the_records_of_the_whole_file(rows, block_size, crlf, stray_quote):
    # Any text, quoted as pandas quotes it, LF or CR LF line ends, and a quote inside an unquoted
    # value where asked: blocks of any size give the records of the file read in one block.
    def cell(text):
        return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\n\r') or text == "" else text

    lines = [f"{i},{cell(b)},{cell(c)}" for i, (b, c) in enumerate(rows)]
    if stray_quote:
        lines[len(lines) // 2] = f'{len(lines) // 2},x"y,z'
    end = "\r\n" if crlf else "\n"
    data = ("a,b,c" + end + end.join(lines) + end).encode()
    whole = batches_of(data)
    # Python's csv module, another reader, reads the same records from the same bytes (an empty cell, quoted too, is
    # null, as pandas reads it).
    by_python = [{"a": int(a), "b": b or None, "c": c or None}
                 for a, b, c in list(csv.reader(io.StringIO(data.decode(), newline="")))[1:]]
    assert (len(whole), whole[0][1], len(by_python)) == (1, by_python, len(rows))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reader, "BLOCK_SIZE", block_size)  # longer than a record: pyarrow needs no more
        blocks = batches_of(data)
        # The count of source records reads the blocks in the same way.
        assert reader.count_records("t.csv", data) == len(rows)
    assert [row for _, batch in blocks for row in batch] == whole[0][1]
    assert [offset for offset, _ in blocks] == list(itertools.accumulate([0] + [len(b) for _, b in blocks[:-1]]))


TEXT_TYPES = {"a": pa.int32(), "b": pa.string(), "c": pa.string()}


def batches_of(data):
    return [(offset, batch.to_pylist()) for offset, batch in reader.csv_batches("t.csv", data, TEXT_TYPES, "records", True)]


def test_a_cr_lf_inside_a_quoted_value_survives_a_block_end(monkeypatch):
    # pyarrow's reader drops the LF of a CR LF inside a quoted value where one of its blocks ends
    # between the two (pyarrow 21 and 26): the reader chooses a block size that ends no block there.
    monkeypatch.setattr(reader, "BLOCK_SIZE", 512)
    for pad in range(480, 540):
        data = f'a,b,c\n1,{"x" * pad},y\n2,z,"a\r\nb"\n'.encode()
        rows = [row for _, batch in batches_of(data) for row in batch]
        assert rows == [{"a": 1, "b": "x" * pad, "c": "y"}, {"a": 2, "b": "z", "c": "a\r\nb"}], pad


def test_check_rows_names_the_first_bad_record_of_the_file():
    batch = pa.record_batch({"n": pa.array([3, 4, -1, -2])})
    reader.check_rows("t.csv", 10, batch, "n", pa.array([False] * 4), "an integer >= 0")  # nothing bad
    with pytest.raises(ValueError) as caught:  # the batch starts at record 11; a null counts as bad
        reader.check_rows("t.csv", 10, batch, "n", pa.array([False, None, True, True]), "an integer >= 0")
    assert str(caught.value) == "t.csv, record 12: field 'n': invalid value 4 (expected an integer >= 0)"


@pytest.mark.parametrize("index", ["", "Unnamed: 0"])
def test_a_negative_row_index_is_named_by_its_column(tmp_path, index):
    data = cardinal_csv(3).replace(b"\n1,KLUCB", b"\n-1,KLUCB", 1)
    if index:
        data = index.encode() + data
    path = archive_of(tmp_path / "bad.zip", data, zipfile.ZIP_DEFLATED)
    with pytest.raises(ValueError) as caught:
        list(loader._file_tables(CARDINAL, str(path), ARCHIVE))
    assert str(caught.value) == (
        f"{ARCHIVE}!577-responses.csv, record 2: field {index!r}: invalid value -1 (expected a row index >= 0)"
    )
