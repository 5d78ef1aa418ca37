"""caption_contest_ratings' reader and threads: a process that left a streaming iterator open, or
stopped at a bad record of a big archive, exits cleanly (pyarrow reads no Python file in a thread
of its own); and the thread of `corpora build` that writes its Parquet files beside the builder
(pipeline.ParquetBeside)."""

import csv
import io
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

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

corpus = registry.get("caption_contest_ratings")
loader = corpus.module


def copy_big_cardinal(data: Path) -> None:
    """Put at contest 510 of the folder `data` an archive of 300,000 ratings (14 MB, written once)."""
    big = written_once("caption-510-responses-300000", lambda folder: write_big_cardinal(folder / ARCHIVE, 300_000))
    (data / ARCHIVE).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(big / ARCHIVE, data / ARCHIVE)


ARCHIVE = "contests/responses/510-responses.csv.zip"


@pytest.mark.parametrize("how", ["a streaming iterator left open", "an error late in the archive"])
@pytest.mark.both_legs
def test_a_process_that_stops_inside_a_big_archive_exits_cleanly(tmp_path, how):
    # `next(iter(streaming dataset))`, then exit (the consumer is never closed), or a bad value at
    # record 287,105 of 300,000. Given the zipfile stream of the member, pyarrow's own I/O thread
    # read it (Python code) ahead of the parser; asking for the GIL while Python shut down, it
    # aborted the process in most runs (pyarrow 21 and 26). It now reads the member's bytes.
    copy_big_cardinal(tmp_path)
    expected = "rows: 0\n"
    if how == "an error late in the archive":
        path = tmp_path / ARCHIVE
        with zipfile.ZipFile(path) as archive:
            [member] = archive.namelist()
            lines = archive.read(member).split(b"\n")
        head, stamp = lines[290_000].rsplit(b",", 1)  # the end of a record (a caption may hold a line feed)
        lines[290_000] = head + b",x" + stamp
        record = len(list(csv.reader(io.StringIO(b"\n".join(lines[:290_001]).decode(), newline="")))) - 1
        assert record == 287_105
        expected = (f"{ARCHIVE}!510-responses.csv, record {record}: field 'timestamp_query_generated': invalid value "
                    f"'x{stamp.decode()}' (expected a timestamp YYYY-MM-DD HH:MM:SS[.ffffff])\n")
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(member, b"\n".join(lines))
    script = f"""
from corpora import registry
corpus = registry.get("caption_contest_ratings")
builder = corpus.builder("cardinal_responses", {str(tmp_path)!r}, {str(tmp_path / "cache")!r}, contests=[510])
try:
    if {how == "an error late in the archive"}:
        builder.download_and_prepare()
    else:
        print("rows:", next(iter(builder.as_streaming_dataset()["train"]))["row_index"])
except Exception as error:
    print(error.__cause__)
"""
    env = dict(CORPORA_ROOT=str(corpus.dummy_dir.parents[1]), HF_DATASETS_DISABLE_PROGRESS_BARS="1")
    for _ in range(3):
        result = run_process([sys.executable, "-c", script], timeout=300, env=env)
        assert (result.returncode, result.stdout, result.stderr) == (0, expected, "")


@pytest.mark.both_legs  # datasets' private _prepare_split and _generate_tables (datasets_adapter)
@pytest.mark.parametrize("config", ["summaries", "cardinal_responses", "dueling_responses", "cartoons"])
def test_the_files_written_beside_the_builder_are_those_of_its_cache(tmp_path, config):
    # caption_contest_ratings generates Arrow tables: its files are written as they come (ParquetBeside).
    request = prepare.Request(registry.get("caption_contest_ratings"), (config,), dummy=True)
    beside = pipeline.ParquetBeside(tmp_path / "beside", registry.get(request.name).features(config).arrow_schema)
    sources = prepare.find_sources(request)
    builder = request.corpus.builder(config, sources.folder, tmp_path / "cache")
    beside.attach(builder)
    prepare.generate(request, config, builder, sources)
    written = beside.finish()
    beside.abort()
    dataset = builder.as_dataset()
    assert sorted(written) == sorted(dataset) and len(dataset) >= 1
    for split in dataset:
        from_cache = pipeline.write_parquet(builder, split, tmp_path / "cache-files")  # read without as_dataset
        assert written[split].rows == from_cache.rows == dataset[split].num_rows > 0
        assert [p.name for p in written[split].paths] == [p.name for p in from_cache.paths]
        assert [p.read_bytes() for p in written[split].paths] == [p.read_bytes() for p in from_cache.paths]


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
@pytest.mark.both_legs
def test_on_one_core_the_files_are_written_after_the_builder(tmp_path):
    # Where the two threads would only take turns, the build writes from the cache (worth_it).
    script = (
        "import os; from corpora.pipeline import ParquetBeside; "
        "print(ParquetBeside.worth_it(None), ParquetBeside.worth_it(2)); "
        "os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); print(ParquetBeside.worth_it(None))"
    )
    result = run_process([sys.executable, "-c", script], timeout=120)
    cores = len(os.sched_getaffinity(0))
    assert (result.returncode, result.stdout, result.stderr) == (0, f"{cores > 1} False\nFalse\n", "")
