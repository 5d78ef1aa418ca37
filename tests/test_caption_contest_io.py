"""caption_contest_ratings' reading machinery (loaders/caption_contest_ratings/_fast_io.py): the
zip member reader with both inflaters, the tail reader, the read-ahead and the gathering of small
tables. The messages a user sees for damaged archives are tested in test_caption_contest_ratings.py."""

import importlib
import io
import os
import subprocess
import sys
import threading
import zipfile
import zlib

import pyarrow as pa
import pytest
from isal import isal_zlib

from corpora import registry
from synthetic_caption_contest import cardinal_csv
from synthetic_caption_contest import write_big_cardinal

corpus = registry.get("caption_contest_ratings")
loader = corpus.module
fast_io = importlib.import_module(f"{loader.__package__}._fast_io")
ARCHIVE = "contests/responses/577-responses.csv.zip"
THREAD = "caption-contest-read-ahead"


def live_read_aheads():
    return [thread.name for thread in threading.enumerate() if thread.name.startswith(THREAD)]


def archive_of(path, data, method):
    with zipfile.ZipFile(path, "w", compression=method, compresslevel=9 if method == zipfile.ZIP_DEFLATED else None) as archive:
        archive.writestr("577-responses.csv", data)
    return path


@pytest.mark.parametrize("inflater", [isal_zlib, zlib], ids=["isal", "zlib"])
@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED], ids=["deflated", "stored"])
def test_member_gives_the_member_bytes(tmp_path, monkeypatch, inflater, method):
    monkeypatch.setattr(fast_io, "deflate", inflater)
    data = cardinal_csv(20_000)
    path = archive_of(tmp_path / "577-responses.csv.zip", data, method)
    with open(path, "rb") as raw, zipfile.ZipFile(raw) as archive:
        member = fast_io.open_member(raw, archive, "577-responses.csv")
        assert isinstance(member, fast_io.Member)
        pieces, sizes = [], [1, 7, 1 << 16, 3, 1 << 24]
        while piece := member.read(sizes[len(pieces) % len(sizes)]):
            assert len(piece) <= sizes[len(pieces) % len(sizes)]
            pieces.append(piece)
        assert b"".join(pieces) == data
        assert member.read(10) == b""
        member.seek(0)  # the CSV reader reads the header first, then starts again
        assert member.read() == data
        with pytest.raises(io.UnsupportedOperation):
            member.seek(5)
    assert sum(t.num_rows for t in loader._cardinal_tables(str(path), ARCHIVE)) == 20_000


def test_other_compression_methods_are_read_by_zipfile(tmp_path):
    data = cardinal_csv(100)
    path = archive_of(tmp_path / "577-responses.csv.zip", data, zipfile.ZIP_BZIP2)
    with open(path, "rb") as raw, zipfile.ZipFile(raw) as archive:
        member = fast_io.open_member(raw, archive, "577-responses.csv")
        assert not isinstance(member, fast_io.Member)
        assert member.read() == data
    assert [t.num_rows for t in loader._cardinal_tables(str(path), ARCHIVE)] == [100]


@pytest.mark.parametrize("inflater", [isal_zlib, zlib], ids=["isal", "zlib"])
def test_member_checks_the_crc_and_the_size_at_the_end(tmp_path, monkeypatch, inflater):
    monkeypatch.setattr(fast_io, "deflate", inflater)
    size = len(cardinal_csv(3000))
    path = archive_of(tmp_path / "577-responses.csv.zip", cardinal_csv(3000), zipfile.ZIP_STORED)
    data = bytearray(path.read_bytes())
    at = data.index(b"caption 17,")
    data[at + 8] = ord("8")
    path.write_bytes(bytes(data))
    with open(path, "rb") as raw, zipfile.ZipFile(raw) as archive:
        member = fast_io.open_member(raw, archive, "577-responses.csv")
        with pytest.raises(zipfile.BadZipFile, match=r"^Bad CRC-32 for file '577-responses.csv'$"):
            member.read()
        info = archive.getinfo("577-responses.csv")
        info.file_size += 1
        with pytest.raises(zipfile.BadZipFile) as caught:
            fast_io.Member(raw, info).read()
        assert str(caught.value) == f"'577-responses.csv' holds {size:,} bytes, the archive records {size + 1:,}"


def test_tail_passes_the_bytes_and_keeps_the_last_one():
    tail = fast_io.Tail(io.BytesIO(b"a,b\n1,2"))
    assert tail.last == b""
    assert tail.read(4) == b"a,b\n" and tail.last == b"\n"
    buffer = bytearray(10)
    assert tail.readinto(buffer) == 3 and bytes(buffer[:3]) == b"1,2" and tail.last == b"2"
    assert tail.read(4) == b"" and tail.last == b"2"


def test_read_ahead_passes_items_and_errors_and_stops_with_the_consumer():
    produced, closed = [], []

    def items(fail_at=None):
        try:
            for i in range(10):
                if i == fail_at:
                    raise ValueError(f"bad record {i}")
                produced.append(i)
                yield i
        finally:
            closed.append(i)

    assert list(fast_io.read_ahead(items())) == list(range(10))
    with pytest.raises(ValueError, match="^bad record 4$"):
        list(fast_io.read_ahead(items(fail_at=4)))
    assert closed == [9, 4]
    produced.clear()
    early = fast_io.read_ahead(items(), depth=2)
    assert [next(early), next(early)] == [0, 1]
    early.close()  # the consumer stops: the worker stops and the generator is closed
    assert closed == [9, 4, produced[-1]]
    # The worker went no further than `depth` items past the consumer (a queued step is cancelled).
    assert produced == list(range(len(produced))) and 2 <= len(produced) <= 4
    assert live_read_aheads() == []


def test_gathered_joins_small_tables_and_passes_big_ones():
    def table(first, rows):
        return pa.table({"n": list(range(first, first + rows))})

    # Tables under 40 // 4 rows are small.
    sizes = [("a:0", 4), ("b:0", 3), ("c:0", 30), ("d:0", 5), ("d:1", 9), ("e:0", 8), ("f:0", 9), ("g:0", 9), ("h:0", 2)]
    parts, first = [], 0
    for key, rows in sizes:
        parts.append((key, table(first, rows)))
        first += rows
    out = list(fast_io.gathered(iter(parts), 40))
    assert [(key, t.num_rows) for key, t in out] == [("a:0", 7), ("c:0", 30), ("d:0", 40), ("h:0", 2)]
    assert pa.concat_tables([t for _, t in out])["n"].to_pylist() == list(range(79))


def test_a_streaming_iterator_left_open_at_exit_leaves_no_thread(tmp_path):
    # The consumer is never closed. The read-ahead's worker only ever runs one bounded step, so
    # the interpreter joins it at exit (before atexit handlers) and exits cleanly.
    write_big_cardinal(tmp_path / "contests/responses/510-responses.csv.zip", 20_000)
    script = f"""
import atexit, importlib, threading
atexit.register(lambda: print("alive at exit:", [t.name for t in threading.enumerate() if {THREAD!r} in t.name]))
from corpora import registry
corpus = registry.get("caption_contest_ratings")
corpus.module._BLOCK_SIZE = 1 << 16  # many blocks, each its own table: the reader stays in the middle of the file
corpus.module._MIN_ROWS_PER_TABLE = 100
importlib.import_module(corpus.module.__package__ + "._fast_io").Member.CHUNK = 1 << 14
builder = corpus.builder("cardinal_responses", {str(tmp_path)!r}, {str(tmp_path / "cache")!r}, contests=[510])
rows = iter(builder.as_streaming_dataset()["train"])
print("first row:", next(rows)["row_index"])
"""
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
        env=dict(os.environ, CORPORA_ROOT=str(corpus.dummy_dir.parents[1])),
    )
    assert (result.returncode, result.stdout) == (0, "first row: 0\nalive at exit: []\n"), result.stderr
