"""caption_contest_ratings' processes and threads: a process that leaves a streaming iterator open in a big
archive exits cleanly (pyarrow reads no Python file in a thread of its own), and the thread of `corpora build`
that writes the Parquet files beside the builder (pipeline.ParquetBeside; on every Arrow-based corpus:
tests/test_parquet_beside.py) stops the build cleanly on a full disk, an error of its own, or Ctrl-C."""

import shlex
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time

import datasets
import pytest

from corpora import parquet_files
from corpora import pipeline
from corpora import prepare
from corpora import registry
from helpers import namespace_with_tmpfs
from helpers import run_process
from helpers import written_once
from synthetic_caption_contest_ratings import write_big_cardinal

NAME = "caption_contest_ratings"
corpus = registry.get(NAME)
ARCHIVE = "contests/responses/510-responses.csv.zip"


@pytest.mark.both_legs
def test_a_process_that_leaves_a_streaming_iterator_open_in_a_big_archive_exits_cleanly(tmp_path):
    # `next(iter(streaming dataset))`, then exit, the iterator never closed. Given the zipfile stream of the
    # member, pyarrow's own I/O thread read it (Python code) ahead of the parser in blocks of pyarrow's 1 MiB;
    # asking for the GIL while Python shut down, it aborted or hung about one run in two (pyarrow 21 and 26).
    write_big_cardinal(tmp_path / ARCHIVE, 40_000)  # 8 MB of CSV
    script = textwrap.dedent(f"""
        import importlib
        from corpora import registry
        corpus = registry.get({NAME!r})
        reader = importlib.import_module(corpus.module.__package__ + "._reader")
        assert hasattr(reader, "BLOCK_SIZE")
        reader.BLOCK_SIZE = 1 << 20
        builder = corpus.builder("cardinal_responses", {str(tmp_path)!r}, {str(tmp_path / "cache")!r}, contests=[510])
        print("rows:", next(iter(builder.as_streaming_dataset()["train"]))["row_index"])
    """)
    env = dict(CORPORA_ROOT=str(corpus.dummy_dir.parents[1]), HF_DATASETS_DISABLE_PROGRESS_BARS="1")
    for _ in range(3):
        result = run_process([sys.executable, "-c", script], timeout=60, env=env)
        assert (result.returncode, result.stdout, result.stderr) == (0, "rows: 0\n", "")


def test_a_full_disk_while_parquet_is_written_beside_is_one_line(tmp_path):
    mount = tmp_path / "small"
    prefix = namespace_with_tmpfs(mount, "size=48k")  # the summaries export takes 68 kB, over 128 kB while built
    command = [sys.executable, "-m", "corpora.cli", "build", "caption_contest_ratings", "--dummy", "--config",
               "summaries", "--out", str(mount)]
    script = f'{shlex.join(command)}; code=$?; ls -A "{mount}"; exit $code'
    result = run_process([*prefix, "sh", "-c", script], timeout=300)
    assert (result.returncode, result.stderr) == (
        1, f"corpora build: error: {mount / 'caption_contest_ratings'}: No space left on device\n")
    assert result.stdout == ".caption_contest_ratings.lock\n"


@pytest.mark.both_legs
@pytest.mark.parametrize("group_rows", [10, 100_000], ids=["while generating", "at the end"])
def test_an_error_of_the_thread_beside_stops_the_build_and_leaves_no_thread(tmp_path, monkeypatch, group_rows):
    # The dummy summaries are 400 rows in 199 files, a table each: in row groups of 10, they are
    # written while the builder runs; in row groups of 100,000, only when the split ends (finish).
    monkeypatch.setattr(parquet_files, "MAX_ROW_GROUP_ROWS", group_rows)
    (tmp_path / "beside").write_text("a file where the Parquet files' folder should be")
    request = prepare.Request(registry.get("caption_contest_ratings"), ("summaries",), dummy=True)
    beside = pipeline.ParquetBeside(tmp_path / "beside" / "summaries", corpus.features("summaries").arrow_schema)
    sources = prepare.find_sources(request)
    builder = request.corpus.builder("summaries", sources.folder, tmp_path / "cache")
    beside.attach(builder)
    with pytest.raises((datasets.exceptions.DatasetGenerationError, NotADirectoryError)) as raised:
        prepare.generate(request, "summaries", builder, sources)
        beside.finish()
    beside.abort()
    error = raised.value if group_rows > 400 else raised.value.__cause__
    assert type(error) is NotADirectoryError and error.filename == str(tmp_path / "beside" / "summaries")
    assert [thread.name for thread in threading.enumerate() if thread.name.startswith("parquet-beside")] == []


def test_ctrl_c_while_the_thread_beside_writes_leaves_the_lock_only(tmp_path):
    # A copy of the dummy data whose contest 510 holds 300,000 ratings: row groups of 100,000 rows
    # are written beside the builder (a `.part` file) before it ends; Ctrl-C then.
    if not pipeline.ParquetBeside.worth_it(None):
        pytest.skip("one core: a build writes its Parquet files from the cache, after the builder")
    big = written_once("caption-510-responses-300000", lambda folder: write_big_cardinal(folder / ARCHIVE, 300_000))  # 14 MB
    data = shutil.copytree(corpus.dummy_dir, tmp_path / "data")
    shutil.copyfile(big / ARCHIVE, data / ARCHIVE)
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
