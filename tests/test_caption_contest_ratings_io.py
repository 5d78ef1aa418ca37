"""caption_contest_ratings' reading machinery (loaders/caption_contest_ratings/_fast_io.py): the
zip member reader with both inflaters, the chunks of records and the check of each cut, the
record counts, the copy into Arrow's memory, the read-ahead and the gathering of small tables. The
messages a user sees for damaged archives are tested in test_caption_contest_ratings.py."""

import importlib
import itertools
import zipfile
import zlib

import pyarrow as pa
import pyarrow.csv as pa_csv
import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from isal import isal_zlib

from corpora import registry
from synthetic_caption_contest_ratings import cardinal_csv
from synthetic_caption_contest_ratings import write_big_cardinal

corpus = registry.get("caption_contest_ratings")
loader = corpus.module
fast_io = importlib.import_module(f"{loader.__package__}._fast_io")
ARCHIVE = "contests/responses/577-responses.csv.zip"


def archive_of(path, data, method):
    with zipfile.ZipFile(path, "w", compression=method, compresslevel=9 if method == zipfile.ZIP_DEFLATED else None) as archive:
        archive.writestr("577-responses.csv", data)
    return path


@pytest.mark.parametrize("inflater", [isal_zlib, zlib], ids=["isal", "zlib"])
@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED], ids=["deflated", "stored"])
def test_read_member_gives_the_member_bytes_in_arrow_memory(tmp_path, monkeypatch, inflater, method):
    monkeypatch.setattr(fast_io, "deflate", inflater)
    monkeypatch.setattr(fast_io, "READ_SIZE", 1 << 12)  # many chunks
    data = cardinal_csv(20_000)
    path = archive_of(tmp_path / "577-responses.csv.zip", data, method)
    with open(path, "rb") as raw, zipfile.ZipFile(raw) as archive:
        member = fast_io.read_member(raw, archive, "577-responses.csv")
    assert isinstance(member, pa.Buffer) and member.is_mutable  # allocated by Arrow, not a Python object's
    assert member.to_pybytes() == data
    assert sum(t.num_rows for t in loader._cardinal_tables(loader._read_archive(str(path), ARCHIVE), str(path), ARCHIVE)) == 20_000


def test_other_compression_methods_are_read_by_zipfile(tmp_path, monkeypatch):
    data = cardinal_csv(100)
    path = archive_of(tmp_path / "577-responses.csv.zip", data, zipfile.ZIP_BZIP2)
    opened = []
    original = zipfile.ZipFile.open
    monkeypatch.setattr(zipfile.ZipFile, "open", lambda self, name, *a, **k: opened.append(name) or original(self, name, *a, **k))
    with open(path, "rb") as raw, zipfile.ZipFile(raw) as archive:
        assert fast_io.read_member(raw, archive, "577-responses.csv").to_pybytes() == data
    assert opened == ["577-responses.csv"]
    assert [t.num_rows for t in loader._cardinal_tables(loader._read_archive(str(path), ARCHIVE), str(path), ARCHIVE)] == [100]


@pytest.mark.parametrize("inflater", [isal_zlib, zlib], ids=["isal", "zlib"])
@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED], ids=["deflated", "stored"])
def test_read_member_checks_the_crc_and_the_size(tmp_path, monkeypatch, inflater, method):
    monkeypatch.setattr(fast_io, "deflate", inflater)
    data = cardinal_csv(3000)
    path = archive_of(tmp_path / "577-responses.csv.zip", data, method)
    with open(path, "rb") as raw, zipfile.ZipFile(raw) as archive:
        info = archive.getinfo("577-responses.csv")
        info.CRC ^= 1
        with pytest.raises(zipfile.BadZipFile, match=r"^Bad CRC-32 for file '577-responses.csv'$"):
            fast_io.read_member(raw, archive, "577-responses.csv")
        info.CRC ^= 1
        for recorded in (len(data) + 1, len(data) - 1):  # recorded longer, and shorter, than it is
            info.file_size = recorded
            with pytest.raises(zipfile.BadZipFile) as caught:
                fast_io.read_member(raw, archive, "577-responses.csv")
            assert str(caught.value) == f"'577-responses.csv' holds {len(data):,} bytes, the archive records {recorded:,}"


def test_read_member_stops_where_the_archive_ends(tmp_path):
    data = cardinal_csv(3000)
    path = archive_of(tmp_path / "577-responses.csv.zip", data, zipfile.ZIP_DEFLATED)
    with open(path, "rb") as raw, zipfile.ZipFile(raw) as archive:
        info = archive.getinfo("577-responses.csv")
        info.compress_size -= 10  # the deflate stream is cut before its end marker
        with pytest.raises(EOFError, match="^Compressed file ended before the end-of-stream marker was reached$"):
            fast_io.read_member(raw, archive, "577-responses.csv")
    cut = tmp_path / "cut.zip"
    cut.write_bytes(path.read_bytes())
    with open(cut, "rb") as raw, zipfile.ZipFile(raw) as archive:
        archive.getinfo("577-responses.csv").compress_size += 1 << 20  # more than the file holds
        with pytest.raises(EOFError, match="^the archive ends inside '577-responses.csv'$"):
            fast_io.read_member(raw, archive, "577-responses.csv")


def test_copy_to_arrow_memory_copies_into_memory_arrow_owns():
    data = b"a,b\n1,2\n"
    copied = fast_io.copy_to_arrow_memory([data])
    assert (copied.to_pybytes(), copied.is_mutable, copied.size) == (data, True, 8)
    assert fast_io.copy_to_arrow_memory([b""]).size == 0


def pieces_of(data, size):
    return [data[at : at + size] for at in range(0, len(data), size)]


def parsed(data, names=None):
    options = pa_csv.ReadOptions(column_names=names, use_threads=False)
    parse = pa_csv.ParseOptions(newlines_in_values=True, ignore_empty_lines=False)
    return pa_csv.read_csv(pa.BufferReader(data), read_options=options, parse_options=parse).to_pylist()


def test_record_chunks_end_after_the_last_line_feed(tmp_path):
    # A real-shaped archive: captions with commas, doubled quotes and (1 in 100) line feeds.
    path = write_big_cardinal(tmp_path / "510-responses.csv.zip", 20_000)
    with zipfile.ZipFile(path) as archive:
        data = archive.read("510-responses.csv")
    pieces = pieces_of(data, 1000)
    chunks = list(fast_io.record_chunks(pieces, 64 << 10))
    assert all(isinstance(chunk, pa.Buffer) and chunk.is_mutable for chunk in chunks)  # Arrow's memory
    assert b"".join(chunk.to_pybytes() for chunk in chunks) == data
    # 3,969,543 bytes: 60 chunks of 64 KiB and up to a piece more, and the rest.
    assert (len(data), len(chunks)) == (3_969_543, 61)
    assert all(64 << 10 <= chunk.size < (64 << 10) + 1000 for chunk in chunks[:-1]) and chunks[-1].size < 64 << 10
    # Each ends where the pieces read so far last had a line feed.
    read = 0
    for chunk in chunks[:-1]:
        read += chunk.size
        assert data[read - 1 : read] == b"\n" and b"\n" not in data[read : -(-read // 1000) * 1000]
    # Read by the loader, the chunks give the records of the whole file.
    rows = [batch.to_pylist() for _, _, batch in fast_io.csv_batches(
        iter(chunks), "t.csv", loader._CARDINAL_FORMAT, lambda: pa.py_buffer(data)
    )]
    whole = fast_io.csv_batches([pa.py_buffer(data)], "t.csv", loader._CARDINAL_FORMAT)
    assert [row for batch in rows for row in batch] == pa.Table.from_batches([b for _, _, b in whole]).to_pylist()


def test_record_chunks_edges():
    assert [c.to_pybytes() for c in fast_io.record_chunks([], 1000)] == [b""]
    no_lines = b"x" * 5000  # never a line feed: one chunk
    assert [c.to_pybytes() for c in fast_io.record_chunks(pieces_of(no_lines, 100), 1000)] == [no_lines]
    header = b"a,b\n"
    assert [c.to_pybytes() for c in fast_io.record_chunks([header, b"1,2"], 1000)] == [header + b"1,2"]
    assert [c.to_pybytes() for c in fast_io.record_chunks([header, b"1,2\n3,", b"4\n"], 4)] == [
        header, b"1,2\n", b"3,4\n"
    ]
    assert fast_io.copy_to_arrow_memory([b"ab", pa.py_buffer(b"cd"), memoryview(b"ef")[1:]]).to_pybytes() == b"abcdf"


TEXT_FORMAT = fast_io.CsvFormat(
    fast_io.exact_headers([["a", "b", "c"]]), {"a": pa.int32(), "b": pa.string(), "c": pa.string()}, "records", True
)


def batches_of(chunks, whole=None):
    batches = fast_io.csv_batches(iter(chunks), "t.csv", TEXT_FORMAT, whole)
    return [(offset, batch.to_pylist()) for _, offset, batch in batches]


def test_a_cut_inside_a_quoted_value_is_read_with_the_next_chunk():
    data = b'a,b,c\n1,x,y\n2,y,"z\nw"\n3,"p\nq",r\n4,s,t\n'
    rows = parsed(data)
    calls = []

    def read_whole():
        calls.append(1)
        return pa.py_buffer(data)

    def cut(*ends):
        ends = [0, *ends, len(data)]
        return [pa.py_buffer(data[a:b]) for a, b in itertools.pairwise(ends)]

    after = data.index  # the cut after a line feed
    # At record boundaries: the records of each chunk, numbered on.
    assert batches_of(cut(after(b"3,")), read_whole) == [(0, rows[:2]), (2, rows[2:])] and calls == []
    # Inside a quoted value, of the last field (the record parses, its value ends in a line feed)
    # and of another (too few fields): read again with the next chunk.
    for end in (after(b"w"), after(b"q")):
        assert batches_of(cut(end), read_whole) == [(0, rows)] and calls == []
    # Two cuts in a row inside values: the whole file is read, the records given are skipped.
    assert batches_of(cut(after(b"3,"), after(b"q")), read_whole) == [(0, rows[:2])] + [(2, rows[2:])]
    assert calls == []  # the first cut read; the second merges with the last chunk
    assert batches_of(cut(after(b"w"), after(b"q")), read_whole) == [(0, rows)] and calls == [1]
    # An error stays the file's error, with its record number.
    bad = data.replace(b"4,s,t", b"x,s,t")
    with pytest.raises(ValueError) as whole_file:
        batches_of([pa.py_buffer(bad)])
    with pytest.raises(ValueError) as chunked:
        batches_of([pa.py_buffer(bad[: after(b"3,")]), pa.py_buffer(bad[after(b"3,") :])], lambda: pa.py_buffer(bad))
    assert str(chunked.value) == str(whole_file.value) == "t.csv, record 4: field 'a': invalid value 'x' (expected an integer)"


def test_errors_in_later_chunks_are_those_of_the_whole_file(tmp_path, monkeypatch):
    def error(path):
        with pytest.raises(ValueError) as caught:
            list(loader._cardinal_tables(loader._read_archive(str(path), ARCHIVE), str(path), ARCHIVE))
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
    whole_file = [error(path) for path in paths]  # 1.8 MB: one chunk
    assert whole_file == [
        f"{ARCHIVE}!577-responses.csv, record 15001: field 'target_reward': invalid value 7 "
        "(expected 1 (unfunny), 2 (somewhat funny) or 3 (funny))",
        f"{ARCHIVE}!577-responses.csv: invalid CSV (CSV parse error: Row #15002: Expected 9 columns, got 10: "
        + lines[15_001].decode() + ",x)",
        f"{ARCHIVE}: corrupt zip archive (Bad CRC-32 for file '577-responses.csv')",
    ]
    # Chunks of 64 KiB and more, from pieces inflated from 4 KiB of the archive at a time.
    monkeypatch.setattr(fast_io, "BLOCK_SIZE", 64 << 10)
    monkeypatch.setattr(fast_io, "READ_SIZE", 4 << 10)
    good = archive_of(tmp_path / "good.zip", data, zipfile.ZIP_DEFLATED)
    chunks = [chunk for _, chunk in loader._read_archive(str(good), ARCHIVE)]
    tables = list(loader._cardinal_tables(iter([(ARCHIVE, chunk) for chunk in chunks]), str(good), ARCHIVE))
    assert (len(data), len(chunks), len(tables)) == (1_815_880, 23, 23)  # a table per chunk
    assert pa.concat_tables(tables).column("row_index").to_pylist() == list(range(20_000))
    assert [error(path) for path in paths] == whole_file


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.text(alphabet='ab,"\n\r é', max_size=12), st.text(alphabet='ab,"\n é', max_size=12)),
        min_size=1,
        max_size=40,
    ),
    st.integers(min_value=1, max_value=64),
    st.integers(min_value=1, max_value=200),
    st.booleans(),
)
def test_chunked_reading_gives_the_records_of_the_whole_file(rows, piece, size, stray_quote):
    # Any text, quoted as pandas quotes it, and a quote inside an unquoted value where asked:
    # chunks of any size, cut anywhere after a line feed, read to the records of the whole file.
    def cell(text):
        return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\n\r') or text == "" else text

    lines = [f"{i},{cell(b)},{cell(c)}" for i, (b, c) in enumerate(rows)]
    if stray_quote:
        lines[len(lines) // 2] = f'{len(lines) // 2},x"y,z'
    data = ("a,b,c\n" + "\n".join(lines) + "\n").encode()
    chunks = fast_io.record_chunks(pieces_of(data, piece), size)
    whole = batches_of([pa.py_buffer(data)])
    assert len(whole) == 1 and len(whole[0][1]) == len(rows)
    chunked = batches_of(chunks, lambda: pa.py_buffer(data))
    assert [row for _, batch in chunked for row in batch] == whole[0][1]
    assert [offset for offset, _ in chunked] == list(itertools.accumulate([0] + [len(b) for _, b in chunked[:-1]]))
    # The count of source records reads the chunks in the same way.
    assert fast_io.count_records(fast_io.record_chunks(pieces_of(data, piece), size), lambda: pa.py_buffer(data)) == len(rows)


def test_check_rows_names_the_first_bad_record_of_the_file():
    batch = pa.record_batch({"n": pa.array([3, 4, -1, -2])})
    fast_io.check_rows("t.csv", 10, batch, "n", pa.array([False] * 4), "an integer >= 0")  # nothing bad
    with pytest.raises(ValueError) as caught:  # the batch starts at record 11; a null counts as bad
        fast_io.check_rows("t.csv", 10, batch, "n", pa.array([False, None, True, True]), "an integer >= 0")
    assert str(caught.value) == "t.csv, record 12: field 'n': invalid value 4 (expected an integer >= 0)"


def test_gather_small_tables_joins_small_tables_and_passes_big_ones():
    def table(first, rows):
        return pa.table({"n": list(range(first, first + rows))})

    # Tables under 40 // 4 rows are small.
    sizes = [("a:0", 4), ("b:0", 3), ("c:0", 30), ("d:0", 5), ("d:1", 9), ("e:0", 8), ("f:0", 9), ("g:0", 9), ("h:0", 2)]
    parts, first = [], 0
    for key, rows in sizes:
        parts.append((key, table(first, rows)))
        first += rows
    out = list(fast_io.gather_small_tables(iter(parts), 40))
    assert [(key, t.num_rows) for key, t in out] == [("a:0", 7), ("c:0", 30), ("d:0", 40), ("h:0", 2)]
    assert pa.concat_tables([t for _, t in out])["n"].to_pylist() == list(range(79))


@pytest.mark.parametrize("index", ["", "Unnamed: 0"])
def test_a_negative_row_index_is_named_by_its_column(tmp_path, index):
    data = cardinal_csv(3).replace(b"\n1,KLUCB", b"\n-1,KLUCB", 1)
    if index:
        data = index.encode() + data
    path = archive_of(tmp_path / "bad.zip", data, zipfile.ZIP_DEFLATED)
    with pytest.raises(ValueError) as caught:
        list(loader._cardinal_tables(loader._read_archive(str(path), ARCHIVE), str(path), ARCHIVE))
    assert str(caught.value) == (
        f"{ARCHIVE}!577-responses.csv, record 2: field {index!r}: invalid value -1 (expected a row index >= 0)"
    )
