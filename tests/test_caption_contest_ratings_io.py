"""caption_contest_ratings' reading machinery (loaders/caption_contest_ratings/_fast_io.py): the
zip member reader with both inflaters, the copy into Arrow's memory, the read-ahead and the
gathering of small tables. The messages a user sees for damaged archives are tested in test_caption_contest_ratings.py."""

import gc
import importlib
import os
import subprocess
import sys
import threading
import zipfile
import zlib

import datasets
import pyarrow as pa
import pytest
from isal import isal_zlib

from corpora import registry
from synthetic_caption_contest_ratings import cardinal_csv
from synthetic_caption_contest_ratings import write_big_cardinal

corpus = registry.get("caption_contest_ratings")
loader = corpus.module
fast_io = importlib.import_module(f"{loader.__package__}._fast_io")
ARCHIVE = "contests/responses/577-responses.csv.zip"
THREAD = "caption-contest-read-ahead"


def live_read_aheads():
    return [thread.name for thread in threading.enumerate() if thread.name.startswith(THREAD)]


def join_read_aheads(collect=True):
    """Wait for the read-ahead workers that are ending, after the garbage collector has closed
    any read-ahead an earlier test abandoned (unless `collect` is false)."""
    if collect:
        gc.collect()
    for thread in threading.enumerate():
        if thread.name.startswith(THREAD):
            thread.join(timeout=60)


def archive_of(path, data, method):
    with zipfile.ZipFile(path, "w", compression=method, compresslevel=9 if method == zipfile.ZIP_DEFLATED else None) as archive:
        archive.writestr("577-responses.csv", data)
    return path


@pytest.mark.parametrize("inflater", [isal_zlib, zlib], ids=["isal", "zlib"])
@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED], ids=["deflated", "stored"])
def test_read_member_gives_the_member_bytes_in_arrow_memory(tmp_path, monkeypatch, inflater, method):
    monkeypatch.setattr(fast_io, "deflate", inflater)
    monkeypatch.setattr(fast_io, "CHUNK", 1 << 12)  # many chunks
    data = cardinal_csv(20_000)
    path = archive_of(tmp_path / "577-responses.csv.zip", data, method)
    with open(path, "rb") as raw, zipfile.ZipFile(raw) as archive:
        member = fast_io.read_member(raw, archive, "577-responses.csv")
    assert isinstance(member, pa.Buffer) and member.is_mutable  # allocated by Arrow, not a Python object's
    assert member.to_pybytes() == data
    assert sum(t.num_rows for t in loader._cardinal_tables(loader._read_archive(str(path), ARCHIVE), ARCHIVE)) == 20_000


def test_other_compression_methods_are_read_by_zipfile(tmp_path, monkeypatch):
    data = cardinal_csv(100)
    path = archive_of(tmp_path / "577-responses.csv.zip", data, zipfile.ZIP_BZIP2)
    opened = []
    original = zipfile.ZipFile.open
    monkeypatch.setattr(zipfile.ZipFile, "open", lambda self, name, *a, **k: opened.append(name) or original(self, name, *a, **k))
    with open(path, "rb") as raw, zipfile.ZipFile(raw) as archive:
        assert fast_io.read_member(raw, archive, "577-responses.csv").to_pybytes() == data
    assert opened == ["577-responses.csv"]
    assert [t.num_rows for t in loader._cardinal_tables(loader._read_archive(str(path), ARCHIVE), ARCHIVE)] == [100]


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


def test_arrow_bytes_copies_into_memory_arrow_owns():
    data = b"a,b\n1,2\n"
    copied = fast_io.arrow_bytes(data)
    assert (copied.to_pybytes(), copied.is_mutable, copied.size) == (data, True, 8)
    assert fast_io.arrow_bytes(b"").size == 0


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
    early.close()  # the consumer stops: the worker closes the generator, then ends
    join_read_aheads()
    assert closed == [9, 4, produced[-1]]
    # The worker went no further than `depth` items past the consumer (a queued step is cancelled).
    assert produced == list(range(len(produced))) and 2 <= len(produced) <= 4
    assert live_read_aheads() == []


def test_closing_a_read_ahead_never_waits_for_its_worker():
    # The garbage collector may close an abandoned read-ahead in any thread, even one that holds
    # threading's own locks; a close that joined the worker there deadlocked the suite.
    release, closed = threading.Event(), threading.Event()

    def items():
        try:
            yield 0
            release.wait(timeout=60)  # the worker is busy with this step while the consumer closes
            yield 1
        finally:
            closed.set()

    reader = fast_io.read_ahead(items(), depth=1)
    assert next(reader) == 0
    reader.close()
    assert not release.is_set() and not closed.is_set()  # returned at once, the step still running
    release.set()
    assert closed.wait(timeout=60)  # the worker's last step closes the generator
    join_read_aheads()
    assert live_read_aheads() == []


def test_an_error_in_a_file_leaves_no_reading_thread(tmp_path):
    # The error's traceback keeps the loader's frames alive; the reader of the next files must be
    # closed as the error passes, not when the garbage collector frees the traceback (a worker
    # left waiting that way made the checks of other tests see a thread that was not theirs).
    import shutil

    root = tmp_path / "data"
    shutil.copytree(corpus.dummy_dir, root)
    broken = sorted((root / "contests" / "summaries").glob("*.csv"))[2]
    broken.write_bytes(b"rank,funny,somewhat_funny,unfunny,count,score,precision,contest,caption\nx,1,2\n")
    gc.disable()
    try:
        builder = corpus.builder("summaries", str(root), str(tmp_path / "cache"))
        with pytest.raises(datasets.exceptions.DatasetGenerationError) as caught:
            builder.download_and_prepare()
        join_read_aheads(collect=False)
        assert live_read_aheads() == []
        assert str(caught.value.__cause__).startswith(f"contests/summaries/{broken.name}: invalid CSV (CSV parse error: ")
    finally:
        gc.enable()


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


def test_a_streaming_iterator_left_open_at_exit_ends_the_process_cleanly(tmp_path):
    # `next(iter(streaming dataset))`, then exit: the consumer is never closed. pyarrow's own I/O
    # thread read the archive member (Python code) ahead of the parser; asking for the GIL while
    # Python shut down, it aborted the process in 4 of 6 runs on a 48 MB archive (here, 14 MB:
    # also most runs). Files are now read whole into Arrow's memory, which pyarrow reads without
    # Python, and the read-ahead workers, one bounded step at a time, are joined before shutdown.
    write_big_cardinal(tmp_path / "contests/responses/510-responses.csv.zip", 300_000)
    script = f"""
import atexit, threading
atexit.register(lambda: print("alive at exit:", [t.name for t in threading.enumerate() if {THREAD!r} in t.name]))
from corpora import registry
corpus = registry.get("caption_contest_ratings")
builder = corpus.builder("cardinal_responses", {str(tmp_path)!r}, {str(tmp_path / "cache")!r}, contests=[510])
rows = iter(builder.as_streaming_dataset()["train"])
print("first row:", next(rows)["row_index"])
"""
    env = dict(os.environ, CORPORA_ROOT=str(corpus.dummy_dir.parents[1]))
    for _ in range(3):
        result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, env=env)
        assert (result.returncode, result.stdout, result.stderr) == (0, "first row: 0\nalive at exit: []\n", "")
