"""caption_contest_ratings' read-ahead threads (loaders/caption_contest_ratings/_fast_io.py): they
pass items and errors, stop with their consumer, never make a close wait, and leave no thread
behind after a bad file or at the exit of a process that left a streaming iterator open. And the
thread of `corpora build` that writes its Parquet files beside the builder (export_folder.ParquetBeside)."""

import gc
import importlib
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import datasets
import pytest

from conftest import namespace_with_tmpfs
from conftest import written_once
from corpora import export_folder
from corpora import parquet_files
from corpora import prepare
from corpora import registry
from synthetic_caption_contest_ratings import write_big_cardinal

corpus = registry.get("caption_contest_ratings")
loader = corpus.module
fast_io = importlib.import_module(f"{loader.__package__}._fast_io")
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


def copy_big_cardinal(data: Path) -> None:
    """Put at contest 510 of the folder `data` an archive of 300,000 ratings (14 MB, written once)."""
    big = written_once("caption-510-responses-300000", lambda folder: write_big_cardinal(folder / ARCHIVE, 300_000))
    (data / ARCHIVE).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(big / ARCHIVE, data / ARCHIVE)


ARCHIVE = "contests/responses/510-responses.csv.zip"


def test_a_streaming_iterator_left_open_at_exit_ends_the_process_cleanly(tmp_path):
    # `next(iter(streaming dataset))`, then exit: the consumer is never closed. pyarrow's own I/O
    # thread read the archive member (Python code) ahead of the parser; asking for the GIL while
    # Python shut down, it aborted the process in 4 of 6 runs on a 48 MB archive (here, 14 MB:
    # also most runs). pyarrow now reads only buffers in Arrow's memory (chunks of the member), which
    # needs no Python, and the read-ahead workers, one bounded step at a time, end before shutdown.
    copy_big_cardinal(tmp_path)
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


@pytest.mark.both_legs  # datasets' private _prepare_split and _generate_tables (datasets_adapter)
@pytest.mark.parametrize("config", ["summaries", "cardinal_responses", "dueling_responses", "cartoons"])
def test_the_files_written_beside_the_builder_are_those_of_its_cache(tmp_path, config):
    # caption_contest_ratings generates Arrow tables: its files are written as they come (ParquetBeside).
    request = prepare.Request(registry.get("caption_contest_ratings"), (config,), dummy=True)
    beside = export_folder.ParquetBeside(tmp_path / "beside", registry.get(request.name).features(config).arrow_schema)
    prepared = prepare.prepare_config(request, config, prepare.find_sources(request), tmp_path / "cache", beside.attach)
    written = beside.finish()
    beside.abort()
    dataset = prepared.builder.as_dataset()
    assert sorted(written) == sorted(dataset) and len(dataset) >= 1
    for split in dataset:
        from_cache = export_folder.write_parquet(dataset[split], tmp_path / "cache-files", split)
        assert written[split].rows == from_cache.rows == dataset[split].num_rows > 0
        assert [p.name for p in written[split].paths] == [p.name for p in from_cache.paths]
        assert [p.read_bytes() for p in written[split].paths] == [p.read_bytes() for p in from_cache.paths]


def test_a_full_disk_while_parquet_is_written_beside_is_one_line(tmp_path):
    mount = tmp_path / "small"
    prefix = namespace_with_tmpfs(mount, "size=48k")  # the summaries export takes 68 kB, over 128 kB while built
    command = [sys.executable, "-m", "corpora.cli", "build", "caption_contest_ratings", "--dummy", "--config",
               "summaries", "--out", str(mount)]
    script = f'{shlex.join(command)}; code=$?; ls -A "{mount}"; exit $code'
    result = subprocess.run([*prefix, "sh", "-c", script], capture_output=True, text=True, timeout=300, check=False)
    assert (result.returncode, result.stderr) == (
        1, f"corpora build: error: {mount / 'caption_contest_ratings'}: No space left on device\n")
    assert result.stdout == ".caption_contest_ratings.lock\n"


@pytest.mark.both_legs
@pytest.mark.parametrize("group_rows", [10, 100_000], ids=["while generating", "at the end"])
def test_an_error_of_the_thread_beside_stops_the_build_and_leaves_no_thread(tmp_path, monkeypatch, group_rows):
    # The dummy summaries are 400 rows: in tables of about 10 rows and row groups of 10, they are
    # written while the builder runs; in row groups of 100,000, only when the split ends (finish).
    monkeypatch.setattr(parquet_files, "MAX_ROW_GROUP_ROWS", group_rows)
    # The module the build imports now: a test before may have made the registry import it anew
    # (registry.forget), and this file's `loader` is then no longer the one the builder runs.
    monkeypatch.setattr(registry.get(corpus.name).module, "_MIN_ROWS_PER_TABLE", 10)
    (tmp_path / "beside").write_text("a file where the Parquet files' folder should be")
    request = prepare.Request(registry.get("caption_contest_ratings"), ("summaries",), dummy=True)
    beside = export_folder.ParquetBeside(tmp_path / "beside" / "summaries", corpus.features("summaries").arrow_schema)
    with pytest.raises((datasets.exceptions.DatasetGenerationError, NotADirectoryError)) as raised:
        prepare.prepare_config(request, "summaries", prepare.find_sources(request), tmp_path / "cache", beside.attach)
        beside.finish()
    beside.abort()
    error = raised.value if group_rows > 400 else raised.value.__cause__
    assert type(error) is NotADirectoryError and error.filename == str(tmp_path / "beside" / "summaries")
    assert [thread.name for thread in threading.enumerate() if thread.name.startswith("parquet-beside")] == []


def test_ctrl_c_while_the_thread_beside_writes_leaves_the_lock_only(tmp_path):
    # A copy of the dummy data whose contest 510 holds 300,000 ratings: row groups of 100,000 rows
    # are written beside the builder (a `.part` file) before it ends; Ctrl-C then.
    if not export_folder.ParquetBeside.worth_it(prepare.Request(registry.get("caption_contest_ratings"))):
        pytest.skip("one core: a build writes its Parquet files from the cache, after the builder")
    data = shutil.copytree(corpus.dummy_dir, tmp_path / "data")
    copy_big_cardinal(data)
    out = tmp_path / "out"
    command = [sys.executable, "-m", "corpora.cli", "build", "caption_contest_ratings", "--config", "cardinal_responses",
               "--data-dir", str(data), "--allow-modified-sources", "--out", str(out)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not list(out.glob(".caption_contest_ratings.partial-*/caption_contest_ratings/cardinal_responses/*.part")):
            assert process.poll() is None and time.monotonic() < deadline, "no Parquet file was begun beside the builder"
            time.sleep(0.01)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert (process.returncode, err) == (130, "corpora build: interrupted\n")
    assert sorted(p.name for p in out.iterdir()) == [".caption_contest_ratings.lock"]


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity to set on this system")
def test_on_one_core_the_files_are_written_after_the_builder(tmp_path):
    # Where the two threads would only take turns, the build writes from the cache (worth_it).
    script = (
        "import os; from corpora import export_folder, prepare, registry; "
        "corpus = registry.get('caption_contest_ratings'); request = prepare.Request(corpus); "
        "print(export_folder.ParquetBeside.worth_it(request), "
        "export_folder.ParquetBeside.worth_it(prepare.Request(corpus, num_proc=2))); "
        "os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); print(export_folder.ParquetBeside.worth_it(request))"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    cores = len(os.sched_getaffinity(0))
    assert result.stdout == f"{cores > 1} False\nFalse\n"
