"""caption_contest_ratings at full size, on synthetic files in the real formats
(tests/synthetic_caption_contest_ratings.py), against raw pyarrow and the packaged csv builder measured in
the same run. Every measurement runs in its own subprocess; its peak memory is that process's
maximum resident set size (os.wait4), worker processes of num_proc included as the largest one.

1. summaries, 199 files / 1,081,771 rows:
   - raw pyarrow: pyarrow.csv.read_csv (newlines in values, types inferred) + Parquet, per file;
   - `load_dataset("csv", data_files=...)` (the packaged builder; one call per header variant);
   - the builder alone (download_and_prepare), the builder + the Parquet export (what raw pyarrow
     does), `corpora build --config summaries` (the builder, its Parquet files, the rows-in =
     rows-out count in a thread alongside, per-split statistics, card, croissant.json, the
     export's rows counted as load_dataset resolves its files), and the count alone.
2. cardinal responses, 20 million rows in 8 zipped CSVs shaped like the real ones (about 48 bytes
   per row zipped, 200 unzipped): rows per second of the builder with num_proc 1 and 2, and with
   num_proc 1 held to one core; raw pyarrow (the zipfile stream of the member + a typed open_csv,
   nothing written: the plain reader) in one and in two processes and on one core, which shows
   what two processes can get out of the machine; raw pyarrow reading the member's bytes inflated
   whole, as the loader does (its _reader.py says why: pyarrow's thread on a Python file aborts
   the process at exit), so that the cost of that workaround shows; the record count; peak memory.

3. whole processes, timed from start to exit (imports included), as issue 46 states the summaries'
   goal: the floor with the export's settings (`import datasets`, pyarrow `read_csv` + `write_table`
   with the export's Parquet settings, bench/toolkit_overhead.py's) against `corpora build
   caption_contest_ratings --config summaries`.

The tasks run interleaved, round after round (`--runs` rounds), each in a process of its own; the
figures are the medians. On a shared machine, run it under `taskset -c 1` too (one core).

Usage: python bench/caption_contest_ratings_build.py [--quick] [--scale 0.05] [--runs N] [--only summaries|cardinal]
       [--tasks a,b] [--keep DIR]
(--quick: summaries at full size and 400,000 cardinal rows, one run each; --tasks: only these tasks;
--keep: write the synthetic files into DIR once and read them from there in later runs.)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the synthetic data generators
sys.path.insert(0, str(ROOT / "src"))

NAME = "caption_contest_ratings"
SUMMARY_ROWS = 1_081_771
CARDINAL_ROWS = 20_000_000
CARDINAL_CONTESTS = list(range(510, 518))  # 8 real archive names


def loader():
    from corpora import registry

    return registry.get(NAME).module


# --- tasks, each run in a fresh subprocess ------------------------------------------------------------


def task_raw_summaries(root, work):
    import pyarrow.csv
    import pyarrow.parquet

    rows = 0
    for index, path in enumerate(sorted((Path(root) / "contests" / "summaries").glob("*.csv"))):
        table = pyarrow.csv.read_csv(path, parse_options=pyarrow.csv.ParseOptions(newlines_in_values=True))
        pyarrow.parquet.write_table(table, Path(work) / f"{index}.parquet")
        rows += table.num_rows
    return rows


def task_csv_builder(root, work):
    import datasets

    files = sorted(str(p) for p in (Path(root) / "contests" / "summaries").glob("*.csv"))
    groups = {}
    for path in files:
        with open(path, "rb") as f:
            groups.setdefault(f.readline(), []).append(path)
    rows = 0
    for index, group in enumerate(groups.values()):  # the two headers cannot share one builder
        dataset = datasets.load_dataset(
            "csv", data_files={"train": group}, cache_dir=f"{work}/cache{index}", split="train"
        )
        rows += dataset.num_rows
    return rows


def task_prepare_summaries(root, work):
    from corpora import registry

    builder = registry.get(NAME).builder("summaries", root, f"{work}/cache")
    builder.download_and_prepare()
    return builder.info.splits["train"].num_examples


def task_prepare_parquet_summaries(root, work):
    # The part of `corpora build` that raw pyarrow's read + write_table compares with: the
    # builder, and the Parquet files as the export writes them (beside it, pipeline.ParquetBeside).
    from corpora import pipeline
    from corpora import registry

    corpus = registry.get(NAME)
    builder = corpus.builder("summaries", root, f"{work}/cache")
    beside = pipeline.ParquetBeside(Path(work) / "parquet", corpus.features("summaries").arrow_schema)
    beside.attach(builder)
    try:
        builder.download_and_prepare()
        written = beside.finish()
    finally:
        beside.abort()
    return written["train"].rows


def task_build_summaries(root, work):
    from corpora import export_folder
    from corpora import prepare
    from corpora import registry

    request = prepare.Request(registry.get(NAME), configs=["summaries"], data_dir=root, allow_modified_sources=True)
    result = export_folder.export(request, f"{work}/out")
    return sum(r.rows for r in result)


def task_build_summaries_without_count(root, work):
    from corpora import export_folder
    from corpora import prepare
    from corpora import registry

    # No count: every split "read" as many records as it wrote.
    prepare.count_source_records = lambda config, files: {}
    prepare.account_for_rows = lambda corpus, config, info, read: read.update(
        {split: info.splits[split].num_examples for split in info.splits}
    )
    request = prepare.Request(registry.get(NAME), configs=["summaries"], data_dir=root, allow_modified_sources=True)
    result = export_folder.export(request, f"{work}/out")
    return sum(r.rows for r in result)


def task_count_summaries(root, work):
    from corpora import registry

    corpus = registry.get(NAME)
    paths = [str(Path(root) / p) for p in corpus.config("summaries").files["train"]]
    return corpus.count_source_records("summaries", "train", paths)


def _cardinal_builder(root, work):
    from corpora import registry

    return registry.get(NAME).builder("cardinal_responses", root, f"{work}/cache", contests=CARDINAL_CONTESTS)


def task_cardinal_1(root, work):
    builder = _cardinal_builder(root, work)
    builder.download_and_prepare(num_proc=1)
    return builder.info.splits["train"].num_examples


def task_cardinal_2(root, work):
    builder = _cardinal_builder(root, work)
    builder.download_and_prepare(num_proc=2)
    return builder.info.splits["train"].num_examples


def _cardinal_types():
    """The Arrow type of every column an archive may have, by name: the types the loader parses
    them as (integers as integers, as these archives write them), so that raw pyarrow, like the
    loader, reads an archive by its header's names in whatever order they come."""
    import pyarrow

    from corpora import registry

    columns = registry.get(NAME).config("cardinal_responses").columns
    types = {field.source(name): field.feature.pa_type for name, field in columns.items()}
    return {"": pyarrow.int64(), "Unnamed: 0": pyarrow.int64(), **types}  # and the optional index column


def _raw_read_archive(path, types):
    """Rows of one archive read by raw pyarrow: zipfile + a typed CSV read, nothing written."""
    import zipfile

    import pyarrow.csv

    with zipfile.ZipFile(path) as archive, archive.open(archive.namelist()[0]) as f:
        reader = pyarrow.csv.open_csv(
            f,
            # One thread, as the loader reads: pyarrow's readahead thread on a Python file object
            # can outlive the file and abort the process at exit.
            read_options=pyarrow.csv.ReadOptions(block_size=16 << 20, use_threads=False),
            parse_options=pyarrow.csv.ParseOptions(newlines_in_values=True),
            convert_options=pyarrow.csv.ConvertOptions(
                column_types=types, null_values=[""], strings_can_be_null=True, quoted_strings_can_be_null=True
            ),
        )
        rows = sum(batch.num_rows for batch in reader)
        reader.close()
    return rows


def task_raw_cardinal_arrow(root, work):
    """Raw pyarrow's read (zipfile stream + typed open_csv) with each batch written to an Arrow
    stream file, as a datasets builder writes its cache: what any datasets builder pays."""
    import zipfile

    import pyarrow
    import pyarrow.csv

    types, rows = _cardinal_types(), 0
    for index, path in enumerate(_archives(root)):
        with zipfile.ZipFile(path) as archive, archive.open(archive.namelist()[0]) as f:
            reader = pyarrow.csv.open_csv(
                f,
                read_options=pyarrow.csv.ReadOptions(block_size=16 << 20, use_threads=False),
                parse_options=pyarrow.csv.ParseOptions(newlines_in_values=True),
                convert_options=pyarrow.csv.ConvertOptions(
                    column_types=types, null_values=[""], strings_can_be_null=True, quoted_strings_can_be_null=True
                ),
            )
            with pyarrow.ipc.new_stream(f"{work}/{index}.arrow", reader.schema) as writer:
                for batch in reader:
                    writer.write_batch(batch)
                    rows += batch.num_rows
            reader.close()
    return rows


def _raw_read_archive_whole(path, types):
    """Rows of one archive read as the loader reads it, with nothing else: the member inflated
    whole by zipfile, then a typed open_csv over its bytes."""
    import zipfile

    import pyarrow
    import pyarrow.csv

    with zipfile.ZipFile(path) as archive:
        data = archive.read(archive.namelist()[0])
    reader = pyarrow.csv.open_csv(
        pyarrow.BufferReader(pyarrow.py_buffer(data)),
        read_options=pyarrow.csv.ReadOptions(block_size=16 << 20, use_threads=False),
        parse_options=pyarrow.csv.ParseOptions(newlines_in_values=True),
        convert_options=pyarrow.csv.ConvertOptions(
            column_types=types, null_values=[""], strings_can_be_null=True, quoted_strings_can_be_null=True
        ),
    )
    return sum(batch.num_rows for batch in reader)


def task_raw_cardinal_whole(root, work):
    types = _cardinal_types()
    return sum(_raw_read_archive_whole(path, types) for path in _archives(root))


def _archives(root):
    return sorted(str(p) for p in (Path(root) / "contests" / "responses").glob("*.zip"))


def task_raw_cardinal(root, work):
    types = _cardinal_types()
    return sum(_raw_read_archive(path, types) for path in _archives(root))


def task_raw_cardinal_2(root, work):
    # Two raw processes, an archive at a time each: what two processes get out of this machine.
    import multiprocessing

    # The workers get the column types, so they import pyarrow only (not datasets).
    types = _cardinal_types()
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        return sum(pool.starmap(_raw_read_archive, [(path, types) for path in _archives(root)], chunksize=1))


def _one_core():
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def task_raw_cardinal_one_core(root, work):
    _one_core()
    return task_raw_cardinal(root, work)


def task_cardinal_1_one_core(root, work):
    _one_core()
    return task_cardinal_1(root, work)


def task_count_cardinal(root, work):
    from corpora import registry

    paths = sorted(str(p) for p in (Path(root) / "contests" / "responses").glob("*.zip"))
    return registry.get(NAME).count_source_records("cardinal_responses", "train", paths)


TASKS = {name[len("task_") :]: function for name, function in globals().items() if name.startswith("task_")}


def whole_processes(root, work):
    """{task: command} of the tasks timed as whole processes, from start to exit."""
    from toolkit_overhead import FLOOR_EXPORT_SETTINGS

    build = ["-m", "corpora.cli", "build", NAME, "--config", "summaries", "--data-dir", str(root)]
    return {
        "process_floor_export": [sys.executable, "-c", FLOOR_EXPORT_SETTINGS, str(root), f"{work}/floor"],
        "process_build_summaries": [sys.executable, *build, "--allow-modified-sources", "--out", f"{work}/out"],
    }


def run(task, root):
    """(seconds, rows, peak RSS in MiB) of one task in a fresh subprocess with its own temp dir."""
    with tempfile.TemporaryDirectory(prefix=f"bench-{task}-", dir=os.environ.get("BENCH_TMP")) as work:
        env = {
            **os.environ,
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "HF_HOME": f"{work}/hf",
            "HF_DATASETS_DISABLE_PROGRESS_BARS": "1",
            # datasets' streaming patches import scipy where it is installed (the test extra
            # brings it); its OpenBLAS threads would spin beside the builder, not beside raw pyarrow.
            "OPENBLAS_NUM_THREADS": "1",
        }
        whole = whole_processes(root, work)
        command = whole.get(task, [sys.executable, __file__, "--task", task, str(root), work])
        # Python's bytecode caches are read and written, as on a user's machine (the Makefile says why):
        # without them every process compiles the modules it imports, the toolkit's many more than the floor's.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        # This checkout's toolkit and loaders, whichever is installed; bench/ for the floor's code.
        env.update(PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT / "bench")]), CORPORA_ROOT=str(ROOT))
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, env=env)
        output = process.stdout.read()
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            raise TaskFailed(f"task {task} failed ({process.returncode})")
        if task in whole:  # the process's own CPU time (all its threads), its rows not counted
            return seconds, None, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime
        result = json.loads(output.decode().strip().splitlines()[-1])
        return result["seconds"], result["rows"], usage.ru_maxrss / 1024, result["cpu"]


class TaskFailed(Exception):
    pass


def interleaved(tasks, root, runs):
    """{task: (seconds, rows, peak MiB, CPU seconds)}, the medians of `runs` rounds of every task in turn."""
    import statistics

    results = {task: [] for task in tasks}
    for round_ in range(runs):
        for task in tasks:
            try:
                results[task].append(run(task, root))
            except TaskFailed as failure:
                # A pyarrow CSV reader on a Python file object (the raw tasks) may abort the
                # process at exit; said, and run again.
                print(f"  {failure}; running it again", flush=True)
                results[task].append(run(task, root))
            seconds, rows, rss, cpu = results[task][-1]
            print(f"  round {round_ + 1}: {task:28s} {seconds:7.2f} s  CPU {cpu:6.2f} s  {rss:6.0f} MiB", flush=True)
    return {
        task: (statistics.median(r[0] for r in runs_), runs_[0][1], max(r[2] for r in runs_),
               statistics.median(r[3] for r in runs_))
        for task, runs_ in results.items()
    }


def ratio(results, a, b):
    """a / b in wall time, and in CPU time (steadier when other work shares the machine)."""
    return f"{results[a][0] / results[b][0]:.2f}x (CPU {results[a][3] / results[b][3]:.2f}x)"


def report(results, ratios):
    """Each task's medians, then each ratio (label, a, b) whose two tasks ran."""
    for task, (seconds, rows, rss, cpu) in results.items():
        shown = f"{rows:>11,} rows  {rows / seconds / 1e6:5.2f} M rows/s" if rows else f"{'(whole process)':>32s}"
        print(f"  {task:32s} {seconds:7.2f} s  CPU {cpu:6.2f} s  {shown}  peak {rss:6.0f} MiB", flush=True)
    for label, a, b in ratios:
        if a in results and b in results:
            print(f"  {label}: {ratio(results, a, b)}")


@contextlib.contextmanager
def data_folder(keep, name):
    """A folder for the synthetic files: `keep`/`name`, kept for later runs, or a temporary one."""
    if keep:
        folder = Path(keep) / name
        folder.mkdir(parents=True, exist_ok=True)
        yield folder
        return
    with tempfile.TemporaryDirectory(prefix=f"bench-ccr-{name}-", dir=os.environ.get("BENCH_TMP")) as folder:
        yield Path(folder)


SUMMARY_TASKS = ["raw_summaries", "csv_builder", "prepare_summaries", "prepare_parquet_summaries", "count_summaries"]
# corpora build checks the official size, so only at full size
FULL_SIZE_SUMMARY_TASKS = ["build_summaries", "build_summaries_without_count", "process_floor_export",
                           "process_build_summaries"]
SUMMARY_RATIOS = [
    ("builder (prepare) / raw pyarrow", "prepare_summaries", "raw_summaries"),
    ("builder (prepare) / load_dataset('csv')", "prepare_summaries", "csv_builder"),
    ("builder + Parquet export / raw pyarrow", "prepare_parquet_summaries", "raw_summaries"),
    ("source-record count / raw pyarrow", "count_summaries", "raw_summaries"),
    ("corpora build / raw pyarrow", "build_summaries", "raw_summaries"),
    ("corpora build / load_dataset('csv')", "build_summaries", "csv_builder"),
    ("without the count / raw", "build_summaries_without_count", "raw_summaries"),
    ("whole processes: corpora build / the floor with the export's settings (goal <= 1.10x)",
     "process_build_summaries", "process_floor_export"),
]


def bench_summaries(scale, runs, only_tasks, keep):
    with data_folder(keep, f"summaries-{scale}") as root:
        total = round(SUMMARY_ROWS * scale)
        start = time.perf_counter()
        from synthetic_caption_contest_ratings import write_summary_release

        if not (root / "written").exists():
            (root / "written").write_text(str(write_summary_release(root, total)))
        size = int((root / "written").read_text())
        print(
            f"summaries: 199 files, {total:,} rows, {size / 1e6:.1f} MB of CSV "
            f"(ready in {time.perf_counter() - start:.0f} s); medians of {runs}",
            flush=True,
        )
        tasks = SUMMARY_TASKS + (FULL_SIZE_SUMMARY_TASKS if scale == 1 else [])
        results = interleaved([task for task in tasks if not only_tasks or task in only_tasks], root, runs)
        report(results, SUMMARY_RATIOS)


def _write_archive(job):
    from synthetic_caption_contest_ratings import write_big_cardinal

    path, rows, seed = job
    write_big_cardinal(Path(path), rows, seed=seed)


CARDINAL_TASKS = ["raw_cardinal", "raw_cardinal_whole", "raw_cardinal_arrow", "cardinal_1", "raw_cardinal_2",
                  "raw_cardinal_one_core", "cardinal_1_one_core", "count_cardinal", "cardinal_2"]
CARDINAL_RATIOS = [
    ("builder (num_proc 1) / raw pyarrow read (goal <= 1.10x)", "cardinal_1", "raw_cardinal"),
    ("builder (num_proc 1) / raw pyarrow read + its Arrow stream written", "cardinal_1", "raw_cardinal_arrow"),
    ("raw pyarrow, member read whole / zipfile stream", "raw_cardinal_whole", "raw_cardinal"),
    ("on one core, builder / raw pyarrow", "cardinal_1_one_core", "raw_cardinal_one_core"),
    ("num_proc 1 / num_proc 2 (rate of 2 vs 1)", "cardinal_1", "cardinal_2"),
    ("raw pyarrow, 1 / 2 processes", "raw_cardinal", "raw_cardinal_2"),
    ("num_proc 1 on 1 core / num_proc 2 on 2 cores", "cardinal_1_one_core", "cardinal_2"),
    ("raw pyarrow, 1 on 1 core / 2 processes", "raw_cardinal_one_core", "raw_cardinal_2"),
]


def bench_cardinal(scale, runs, only_tasks, keep):
    import multiprocessing
    import zipfile

    with data_folder(keep, f"cardinal-{scale}") as root:
        total = round(CARDINAL_ROWS * scale)
        start = time.perf_counter()
        per_archive, extra = divmod(total, len(CARDINAL_CONTESTS))
        folder = root / "contests" / "responses"
        jobs = [
            (str(folder / f"{contest}-responses.csv.zip"), per_archive + (index < extra), index)
            for index, contest in enumerate(CARDINAL_CONTESTS)
        ]
        jobs = [job for job in jobs if not Path(job[0]).exists()]
        with multiprocessing.get_context("spawn").Pool(2) as pool:
            pool.map(_write_archive, jobs, chunksize=1)
        paths = _archives(root)
        zipped = sum(Path(p).stat().st_size for p in paths)
        csv_bytes = sum(zipfile.ZipFile(p).infolist()[0].file_size for p in paths)
        print(
            f"cardinal responses: 8 archives, {total:,} rows, {zipped / 1e6:.0f} MB zipped "
            f"({zipped / total:.1f} bytes per row; real archives 46-55), {csv_bytes / 1e9:.2f} GB of CSV "
            f"({csv_bytes / total:.0f} bytes per row); ready in {time.perf_counter() - start:.0f} s;"
            f" medians of {runs}",
            flush=True,
        )
        results = interleaved([task for task in CARDINAL_TASKS if not only_tasks or task in only_tasks], root, runs)
        report(results, CARDINAL_RATIOS)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="full-size summaries, 400,000 cardinal rows, one run")
    parser.add_argument("--scale", type=float, help="of both corpora's sizes (default 1)")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--only", choices=["summaries", "cardinal"])
    parser.add_argument("--tasks", type=lambda text: text.split(","), help="only these tasks (a,b,...)")
    parser.add_argument("--keep", help="a folder for the synthetic files, kept for later runs")
    parser.add_argument("--task", nargs=3)
    args = parser.parse_args()
    if args.task:
        task, root, work = args.task
        # Imports are not timed: every task pays the same interpreter start. That includes
        # scipy.io where it is installed (the test extra brings it): every datasets builder
        # imports it once per process when it patches its module for streaming (0.17 s here).
        import importlib.util

        import datasets  # noqa: F401
        import pyarrow.csv  # noqa: F401
        import pyarrow.parquet  # noqa: F401

        from corpora import prepare  # noqa: F401

        if importlib.util.find_spec("scipy") is not None:
            import scipy.io  # noqa: F401
        loader()
        start = time.perf_counter()
        # CPU of every thread of this process and of its worker processes (num_proc, raw pyarrow's 2).
        cpu_start = time.process_time()
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        children_start = children.ru_utime + children.ru_stime
        rows = TASKS[task](root, work)
        seconds = time.perf_counter() - start
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = time.process_time() - cpu_start + children.ru_utime + children.ru_stime - children_start
        print(json.dumps({"seconds": seconds, "rows": rows, "cpu": cpu}))
        return
    if args.only in (None, "summaries"):
        bench_summaries(args.scale or 1.0, args.runs, args.tasks, args.keep)
    if args.only in (None, "cardinal"):
        bench_cardinal(args.scale or (0.02 if args.quick else 1.0), args.runs, args.tasks, args.keep)


if __name__ == "__main__":
    main()
