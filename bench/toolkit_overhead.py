"""What the corpora toolkit costs around the builder: whole processes on a synthetic copy of the
caption_contest_ratings summaries (199 files, 1,081,771 rows, tests/synthetic_caption_contest_ratings.py),
each timed from start to exit (wall) and by the CPU time it used (user + system, all its threads;
steadier than wall time on a shared machine), median of 3 (of 1 with --quick):

- floor: `import datasets`, then pyarrow `read_csv` + `write_table` of every file, in one
  process: what any datasets-based tool pays for this export;
- floor with the export's file settings: the same, each file written as the export writes its
  own (zstd level 3, page index, content-defined chunking, row groups of at most 100,000 rows;
  corpora.parquet_files, issue 29), not pyarrow's defaults (snappy, no page index): what any
  tool pays for files that `corpora validate` accepts. A second row: the floor itself is as it was;
- csv: `load_dataset("csv", data_files=...)` + `to_parquet` (one call per header variant);
- corpora build: `corpora build caption_contest_ratings --config summaries --data-dir X
  --allow-modified-sources` (builder, Parquet export, rows-in = rows-out count, statistics,
  card, croissant.json with the sha256 of every file);
- python + `import datasets` alone, and `import corpora.cli`, for the import costs.

Goals: corpora build within 1.05x of the floor (issue 30; 1.2x in issue 14), and at most 0.8x of
csv (issue 14). Figures: loaders/caption_contest_ratings/SCALE.md.

Usage: python bench/toolkit_overhead.py [--quick] [--runs N] [--data-dir DIR]
(--data-dir: a copy of the upstream repository holding contests/summaries/, to measure on the
real files, as the goals are stated, instead of the synthetic copy.)
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "src"))

FLOOR = """
import sys
from pathlib import Path
import datasets
import pyarrow.csv
import pyarrow.parquet
root, out = Path(sys.argv[1]), Path(sys.argv[2])
out.mkdir()
for index, path in enumerate(sorted((root / "contests" / "summaries").glob("*.csv"))):
    table = pyarrow.csv.read_csv(path, parse_options=pyarrow.csv.ParseOptions(newlines_in_values=True))
    pyarrow.parquet.write_table(table, out / f"{index}.parquet")
"""

CSV = """
import sys
from pathlib import Path
import datasets
root, out = Path(sys.argv[1]), Path(sys.argv[2])
groups = {}
for path in sorted((root / "contests" / "summaries").glob("*.csv")):
    with open(path, "rb") as f:
        groups.setdefault(f.readline(), []).append(str(path))
for index, group in enumerate(groups.values()):  # the two headers cannot share one builder
    dataset = datasets.load_dataset("csv", data_files={"train": group}, cache_dir=str(out / "cache"), split="train")
    dataset.to_parquet(str(out / f"{index}.parquet"))
"""

# The floor, each file written with the export's settings, read from corpora.parquet_files here
# and written into the floor's code as values, so that the floor imports nothing of corpora.
# (Not its choice of dictionary-encoded columns: the floor writes pyarrow's default, every column.)
from corpora import parquet_files  # noqa: E402

EXPORT_SETTINGS = (
    f"compression={parquet_files.COMPRESSION!r}, compression_level={parquet_files.COMPRESSION_LEVEL}, "
    f"write_page_index=True, row_group_size={parquet_files.MAX_ROW_GROUP_ROWS}, "
    f"use_content_defined_chunking={parquet_files.CDC_OPTIONS!r}"
)
FLOOR_EXPORT_SETTINGS = FLOOR.replace('f"{index}.parquet")', f'f"{{index}}.parquet", {EXPORT_SETTINGS})')
assert FLOOR_EXPORT_SETTINGS != FLOOR

FLOOR_TASK = "floor (import datasets, read_csv + write_table)"
FLOOR_EXPORT_TASK = "floor, the export's file settings"


def tasks(data: Path, out: Path) -> dict[str, list[str]]:
    return {
        "python + import datasets": [sys.executable, "-c", "import datasets"],
        "python + import corpora.cli": [sys.executable, "-c", "import corpora.cli"],
        FLOOR_TASK: [sys.executable, "-c", FLOOR, str(data), str(out)],
        FLOOR_EXPORT_TASK: [sys.executable, "-c", FLOOR_EXPORT_SETTINGS, str(data), str(out)],
        'load_dataset("csv") + to_parquet': [sys.executable, "-c", CSV, str(data), str(out)],
        "corpora build --config summaries": [sys.executable, "-m", "corpora.cli", "build", "caption_contest_ratings"]
        + ["--config", "summaries", "--data-dir", str(data), "--allow-modified-sources", "--out", str(out)],
    }


def timed(command: list[str], out: Path, env: dict) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of a command in a fresh process."""
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    error = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed ({os.waitstatus_to_exitcode(status)}): {' '.join(command[:5])} ...\n{error[-2000:]}")
    return seconds, usage.ru_utime + usage.ru_stime


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one run of each process instead of three")
    parser.add_argument("--runs", type=int)
    parser.add_argument("--data-dir", type=Path, help="measure on these summaries (the real files) instead")
    args = parser.parse_args(argv)
    runs = args.runs or (1 if args.quick else 3)
    from synthetic_caption_contest_ratings import write_summary_release

    with tempfile.TemporaryDirectory(prefix="bench-toolkit-", dir=os.environ.get("BENCH_TMP")) as tmp:
        tmp = Path(tmp)
        data = args.data_dir.resolve() if args.data_dir else tmp / "data"
        if args.data_dir:
            files = sorted((data / "contests" / "summaries").glob("*.csv"))
            if not files:
                raise SystemExit(f"{args.data_dir}: no contests/summaries/*.csv")
            size = sum(path.stat().st_size for path in files)
            print(f"summaries: {len(files)} files, {size / 1e6:.1f} MB of CSV in {args.data_dir}", end="")
        else:
            start = time.perf_counter()
            size = write_summary_release(data)
            print(
                f"summaries: 199 synthetic files, 1,081,771 rows, {size / 1e6:.1f} MB of CSV (generated in "
                f"{time.perf_counter() - start:.0f} s)",
                end="",
            )
        print(f"; whole processes, median of {runs}", flush=True)
        env = {
            **os.environ,
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "HF_HOME": str(tmp / "hf"),
            "HF_DATASETS_DISABLE_PROGRESS_BARS": "1",
            "OPENBLAS_NUM_THREADS": "1",  # as bench/caption_contest_ratings_build.py: no idle BLAS threads spinning
            # This checkout's toolkit and loaders, whichever is installed.
            "PYTHONPATH": str(ROOT / "src"),
            "CORPORA_ROOT": str(ROOT),
        }
        # Python's bytecode caches read and written, as on a user's machine: with PYTHONDONTWRITEBYTECODE
        # every process compiles what it imports, the toolkit's many more modules than the floor's.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        commands = tasks(data, tmp / "out")
        times = {name: [] for name in commands}
        for _ in range(runs):  # interleaved, so that a busy moment of the machine hits every task
            for name, command in commands.items():
                times[name].append(timed(command, tmp / "out", env))
    wall = {name: statistics.median(wall for wall, _ in values) for name, values in times.items()}
    cpu = {name: statistics.median(cpu for _, cpu in values) for name, values in times.items()}
    print(f"  {'':50s} {'wall':>7s} {'CPU':>7s}   (wall of each run)")
    for name in times:
        each = ", ".join(f"{seconds:.2f}" for seconds, _ in times[name])
        print(f"  {name:50s} {wall[name]:6.2f}s {cpu[name]:6.2f}s   ({each})")
    build, floor, csv = "corpora build --config summaries", FLOOR_TASK, 'load_dataset("csv") + to_parquet'
    for label, measured in (("wall", wall), ("CPU", cpu)):
        print(
            f"  {label}: corpora build / floor {measured[build] / measured[floor]:.2f}x (goal <= 1.05x);"
            f" / the floor with the export's file settings {measured[build] / measured[FLOOR_EXPORT_TASK]:.2f}x;"
            f" / load_dataset(\"csv\") + to_parquet {measured[build] / measured[csv]:.2f}x (goal <= 0.8x);"
            f" corpora build - floor {measured[build] - measured[floor]:.2f} s"
        )


if __name__ == "__main__":
    main()
