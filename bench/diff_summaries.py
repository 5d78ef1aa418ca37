"""`corpora diff` on caption_contest_ratings' summaries at full size (1,081,771 rows), against a
raw scan of the same two Parquet files by DuckDB and by pyarrow.

The old export is the loader's own output on synthetic summary files in the real format
(tests/synthetic_caption_contest_ratings.py): `corpora.load(..., "summaries", data_dir=...)` written as
Parquet in row groups of 100,000 rows, as `corpora build` writes them. The new export is the old
one with a caption edited in every 100th row, `funny` raised by one in every 1,000th row and
1,000 rows appended (a new contest file), written one row group at a time.

Measured, each in its own subprocess (peak RSS: that child's ru_maxrss, read with os.wait4, so
the parent's memory never counts):
- `corpora diff OLD NEW --format json`: summaries have no key, rows matched by position;
- the same with `--key summaries=source_file,rank` (unique in these synthetic files): a keyed
  join of 1.1 million rows;
- raw DuckDB: every column of both files hashed (`sum(hash(COLUMNS(*)))`), nothing joined;
- raw pyarrow: every row group of both files read.

    python bench/diff_summaries.py [--quick] [--keep DIR]

`--quick` uses a tenth of the rows (a smoke run of the benchmark itself).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROWS = 1_081_771
FILES = 199
BUDGET_MB = 1024  # the memory budget for diffing the summaries
ROW_GROUP = 100_000

GENERATE = """
import shutil
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import numpy
import pyarrow
import pyarrow.compute
import pyarrow.parquet
import synthetic_caption_contest_ratings as synthetic
import corpora

rows, work = int(sys.argv[2]), Path(sys.argv[3])
data = work / "data"
synthetic.write_summary_release(data, rows)  # exactly `rows` rows over the 199 files
dataset = corpora.load(
    "caption_contest_ratings", "summaries", data_dir=data, cache_dir=work / "cache", allow_modified_sources=True
)["train"]  # synthetic files: not the release's bytes
old = work / "old" / "caption_contest_ratings" / "summaries" / "train-00000-of-00001.parquet"
old.parent.mkdir(parents=True)
dataset.to_parquet(str(old), batch_size=100_000)
shutil.rmtree(work / "cache")
shutil.rmtree(data)

new = work / "new" / "caption_contest_ratings" / "summaries" / "train-00000-of-00001.parquet"
new.parent.mkdir(parents=True)
source = pyarrow.parquet.ParquetFile(old)
with pyarrow.parquet.ParquetWriter(new, source.schema_arrow) as writer:
    start = 0
    for group in range(source.num_row_groups):
        table = source.read_row_group(group)
        position = numpy.arange(start, start + table.num_rows)
        start += table.num_rows
        every_100, every_1000 = pyarrow.array(position % 100 == 0), pyarrow.array(position % 1000 == 0)
        caption = pyarrow.compute.if_else(
            every_100, pyarrow.compute.binary_join_element_wise(table["caption"], "(edited)", " "), table["caption"])
        funny = pyarrow.compute.if_else(every_1000, pyarrow.compute.add(table["funny"], 1), table["funny"])
        table = table.set_column(table.schema.get_field_index("caption"), "caption", caption)
        table = table.set_column(table.schema.get_field_index("funny"), "funny", funny.cast(pyarrow.int32()))
        writer.write_table(table)
    extra = source.read_row_group(0).slice(0, 1000)
    names = pyarrow.array(["contests/summaries/692_summary_KLUCB.csv"] * 1000)
    writer.write_table(extra.set_column(extra.schema.get_field_index("source_file"), "source_file", names))
print(source.metadata.num_rows, old.stat().st_size, new.stat().st_size)
"""

DIFF = """
import sys
import time
start = time.perf_counter()
from corpora.cli import main
code = main(["diff", *sys.argv[1:], "--format", "json"])
print(code, time.perf_counter() - start, file=sys.stderr)
"""

RAW_DUCKDB = """
import sys
import time
start = time.perf_counter()
import duckdb
for path in sys.argv[1:]:
    duckdb.sql(f"SELECT count(*), sum(hash(COLUMNS(*))) FROM read_parquet('{path}')").fetchall()
print(0, time.perf_counter() - start, file=sys.stderr)
"""

RAW_PYARROW = """
import sys
import time
start = time.perf_counter()
import pyarrow.parquet
for path in sys.argv[1:]:
    file = pyarrow.parquet.ParquetFile(path)
    rows = sum(file.read_row_group(group).num_rows for group in range(file.num_row_groups))
print(0, time.perf_counter() - start, file=sys.stderr)
"""


def run(code: str, *args: str, ok=(0,)) -> tuple[str, str, float, float]:
    """(stdout, stderr, peak RSS in MB, wall seconds) of `python -c code args` in a fresh process,
    which must end with a status in `ok`."""
    with tempfile.TemporaryFile("w+") as errors:
        start = time.perf_counter()
        command = [sys.executable, "-c", code, *args]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, text=True)
        stdout = process.stdout.read()
        _, status, usage = os.wait4(process.pid, 0)  # this child's own peak RSS, in KiB on Linux
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        stderr = errors.read()
    if process.returncode not in ok:
        raise SystemExit(f"child failed ({process.returncode}): {stderr.strip()[-2000:]}")
    return stdout, stderr, usage.ru_maxrss / 1024, wall


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the rows")
    parser.add_argument("--keep", metavar="DIR", help="write the two exports here and keep them")
    args, _ = parser.parse_known_args(argv)  # bench/run.py passes its own arguments along
    rows = ROWS // 10 if args.quick else ROWS
    env_home = tempfile.mkdtemp(prefix="diff-bench-hf-")
    os.environ.setdefault("HF_HOME", env_home)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    with tempfile.TemporaryDirectory(prefix="diff-bench-") as tmp:
        work = Path(args.keep) if args.keep else Path(tmp)
        out, _, _, seconds = run(GENERATE, str(ROOT / "tests"), str(rows), str(work))
        count, old_bytes, new_bytes = map(int, out.split())
        print(f"summaries: {count:,} rows, old {old_bytes / 1e6:.0f} MB, new {new_bytes / 1e6:.0f} MB of Parquet "
              f"(written in {seconds:.0f} s)")
        old, new = work / "old" / "caption_contest_ratings", work / "new" / "caption_contest_ratings"
        files = [str(side / "summaries" / "train-00000-of-00001.parquet") for side in (old, new)]
        results = {}
        for label, code, arguments in (
            ("raw pyarrow: read both files", RAW_PYARROW, files),
            ("raw DuckDB: hash every column of both", RAW_DUCKDB, files),
            ("corpora diff (by position)", DIFF, [str(old), str(new)]),
            ("corpora diff --key source_file,rank", DIFF, [str(old), str(new), "--key", "summaries=source_file,rank"]),
        ):
            stdout, stderr, peak, wall = run(code, *arguments)
            status, work_seconds = stderr.strip().splitlines()[-1].split()
            results[label] = (peak, wall, float(work_seconds), stdout)
        report = json.loads(results["corpora diff (by position)"][3])
        split = report["configs"][0]["splits"][0]
        print(f"diff found: {split['added']:,} added, {split['removed']:,} removed, {split['changed']:,} changed; "
              + ", ".join(f"{f['name']} {f['rows']:,}" for f in split["fields"]))
    base_peak, base_wall, base_work, _ = results["raw DuckDB: hash every column of both"]
    print(f"\n{'case':40} {'peak RSS MB':>12} {'wall s':>8} {'work s':>8} {'RSS ratio':>10} {'work ratio':>10}")
    for label, (peak, wall, work_seconds, _) in results.items():
        print(f"{label:40} {peak:12.0f} {wall:8.2f} {work_seconds:8.2f} {peak / base_peak:10.2f} "
              f"{work_seconds / base_work:10.2f}")
    print("(ratios against raw DuckDB; wall s: the child process, imports included; work s: timed inside it)")
    worst = max(results[label][0] for label in results if label.startswith("corpora"))
    print(f"corpora diff peak RSS {worst:.0f} MB; budget {BUDGET_MB} MB: {'ok' if worst < BUDGET_MB else 'EXCEEDED'}")
    if worst >= BUDGET_MB:
        raise SystemExit(f"corpora diff peak RSS {worst:.0f} MB exceeds {BUDGET_MB} MB")


if __name__ == "__main__":
    main()
