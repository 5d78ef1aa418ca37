"""Peak memory and time of building curiosity_dialogs' full-size train split.

Writes a synthetic train file at the real size (10,287 dialogs, about 67 MB on one line, see
tests/synthetic_curiosity_dialogs.py; a tenth of it with --quick) and small validation/test/test_zero files, then
measures, each in its own subprocess:

- builder:  `corpora.load("curiosity_dialogs", data_dir=..., cache_dir=...)` (prepares all four
  splits; the three small ones cost little);
- baseline: `json.load` of the train file plus `pyarrow.Table.from_pylist` of its dialogs, the
  least any loader of this format has to do.

Peak RSS is the child's `ru_maxrss` (what `resource.getrusage(RUSAGE_CHILDREN)` reports once that
child is the only one waited for; read per child with `os.wait4`). The synthetic files are also
written by a subprocess: Linux charges an exec'ed child with the parent's peak RSS, so the parent
must stay small for the figures to be the children's own.

    python bench/curiosity_memory.py [--quick] [--python PATH] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGET_MB = 1536  # peak RSS budget of the builder on the full train split

GENERATE = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from synthetic_curiosity_dialogs import write_curiosity
root = Path(sys.argv[1])
path = write_curiosity(root, dialogs=int(sys.argv[3]), split="train")
for split in ("validation", "test", "test_zero"):
    write_curiosity(root, dialogs=20, split=split)
print(path.stat().st_size)
"""

BUILDER = """
import sys
import time
import corpora
start = time.perf_counter()
dataset = corpora.load("curiosity_dialogs", data_dir=sys.argv[1], cache_dir=sys.argv[2], allow_modified_sources=True)
print(dataset["train"].num_rows, time.perf_counter() - start)
"""

BASELINE = """
import json
import sys
import time
import pyarrow
start = time.perf_counter()
with open(sys.argv[1], encoding="utf-8") as f:
    dialogs = json.load(f)["dialogs"]
table = pyarrow.Table.from_pylist(dialogs)
print(table.num_rows, time.perf_counter() - start)
"""


def run(python: str, code: str, *args: str, env: dict) -> tuple[str, float, float]:
    """(stdout, peak RSS in MB, wall seconds) of `python -c code args` in a fresh process."""
    start = time.perf_counter()
    process = subprocess.Popen([python, "-c", code, *args], stdout=subprocess.PIPE, env=env, text=True)
    stdout = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"child failed with exit code {process.returncode}: {python} -c ... {' '.join(args)}")
    return stdout.strip(), usage.ru_maxrss / 1024, wall  # ru_maxrss is in KiB on Linux


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable, help="interpreter for the children (default: this one)")
    parser.add_argument("--keep", metavar="DIR", help="write the synthetic files here and keep them")
    parser.add_argument("--quick", action="store_true", help="a tenth of the train split")
    args = parser.parse_args(argv)
    dialogs = 1029 if args.quick else 10287

    with tempfile.TemporaryDirectory(prefix="curiosity-bench-") as tmp:
        env = dict(os.environ)
        env.setdefault("HF_HOME", os.path.join(tmp, "hf"))
        env.setdefault("HF_HUB_OFFLINE", "1")
        env.setdefault("HF_DATASETS_OFFLINE", "1")
        data_dir = Path(args.keep) if args.keep else Path(tmp) / "data"
        train = data_dir / "dialog_data" / "curiosity_dialogs.train.json"

        tests = str(REPO / "tests")
        size, _, generate_seconds = run(args.python, GENERATE, str(data_dir), tests, str(dialogs), env=env)
        print(f"synthetic train file: {int(size) / 1e6:.1f} MB, {dialogs:,} dialogs", end=" ")
        print(f"(written in {generate_seconds:.1f} s)")

        out, base_mb, base_wall = run(args.python, BASELINE, str(train), env=env)
        base_rows, base_work = out.split()[-2:]
        out, build_mb, build_wall = run(args.python, BUILDER, str(data_dir), os.path.join(tmp, "cache"), env=env)
        build_rows, build_work = out.split()[-2:]
        children_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024

    rows = [
        ("baseline (json.load + Table.from_pylist)", base_rows, base_mb, base_wall, float(base_work)),
        ("builder (corpora.load, all 4 splits)", build_rows, build_mb, build_wall, float(build_work)),
    ]
    print(f"\n{'case':42} {'train rows':>10} {'peak RSS MB':>12} {'wall s':>8} {'work s':>8}")
    for name, count, mb, wall, work in rows:
        print(f"{name:42} {count:>10} {mb:12.0f} {wall:8.1f} {work:8.1f}")
    print(f"{'ratio builder / baseline':42} {'':>10} {build_mb / base_mb:12.2f} {build_wall / base_wall:8.2f} "
          f"{float(build_work) / float(base_work):8.2f}")
    print("\n(wall s: the child process, imports included; work s: the timed call inside it)")
    print(f"max RSS over all children (RUSAGE_CHILDREN): {children_mb:.0f} MB; builder budget {TARGET_MB} MB: "
          f"{'ok' if build_mb < TARGET_MB else 'EXCEEDED'}")
    if build_mb >= TARGET_MB:
        raise SystemExit(f"curiosity_dialogs builder peak RSS {build_mb:.0f} MB exceeds {TARGET_MB} MB")


if __name__ == "__main__":
    main()
