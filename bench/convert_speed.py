"""Speed and memory of `corpora convert` on a synthetic legacy-style loading script (1,000,000 train
rows and 10,000 test rows read from --data-dir; a tenth with --quick), against what datasets 3.6 did
with the same script on the same data: `load_dataset(script, data_dir=..., trust_remote_code=True)`
into an empty cache. Each runs in its own process, timed from start to exit (wall, and CPU: user +
system, steadier on a shared machine), median of --runs; peak RSS is the child's own (`os.wait4`).

- convert: `corpora convert SCRIPT --data-dir D --out O` on this venv's datasets (the script's
  generation, the checks, the Parquet export, the card);
- load_dataset 3.6: the minimum venv's datasets 3.6 (`make .venv-minimum/.installed`), the last
  that ran scripts: generation and its Arrow cache.

Goal (issue 48): convert / load_dataset <= 1, and convert's peak RSS bounded (the same at a tenth
and at the full size, not growing with the rows).

    python bench/convert_speed.py [--quick] [--runs N] [--reference-python PY]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MINIMUM_PYTHON = REPO / ".venv-minimum" / "bin" / "python"

SCRIPT = '''"""A legacy-style loading script (as written for datasets 2.x) for the convert bench."""

import csv
import os

import datasets

_DESCRIPTION = "Synthetic rows for the convert bench."


class SyntheticRows(datasets.GeneratorBasedBuilder):
    VERSION = datasets.Version("1.0.0")

    def _info(self):
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            features=datasets.Features({
                "id": datasets.Value("string"),
                "text": datasets.Value("string"),
                "label": datasets.ClassLabel(names=["negative", "neutral", "positive"]),
                "score": datasets.Value("float32"),
                "tokens": datasets.Sequence(datasets.Value("string")),
            }),
        )

    def _split_generators(self, dl_manager):
        folder = dl_manager.manual_dir
        return [
            datasets.SplitGenerator(name=datasets.Split.TRAIN, gen_kwargs={"path": os.path.join(folder, "train.tsv")}),
            datasets.SplitGenerator(name=datasets.Split.TEST, gen_kwargs={"path": os.path.join(folder, "test.tsv")}),
        ]

    def _generate_examples(self, path):
        with open(path, encoding="utf-8", newline="") as rows:
            for row in csv.reader(rows, delimiter="\\t"):
                yield row[0], {"id": row[0], "text": row[1], "label": int(row[2]), "score": float(row[3]),
                               "tokens": row[1].split(" ")}
'''

WORDS = ("the cat sat on a mat while rain fell over quiet hills and every river ran to sea "
         "under grey skies people walked home slowly").split()

LOAD_DATASET = """
import sys
import datasets
dataset = datasets.load_dataset(sys.argv[1], data_dir=sys.argv[2], cache_dir=sys.argv[3], trust_remote_code=True)
print(dataset["train"].num_rows + dataset["test"].num_rows)
"""


def write_data(folder: Path, rows: int) -> None:
    generator = random.Random(48)
    for split, count in (("train", rows), ("test", rows // 100)):
        with open(folder / f"{split}.tsv", "w", encoding="utf-8") as out:
            for index in range(count):
                text = " ".join(generator.choices(WORDS, k=generator.randint(4, 24)))
                out.write(f"{split}-{index}\t{text}\t{generator.randrange(3)}\t{generator.random():.4f}\n")


def measured(command: list[str], env=None) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds (user + system), peak RSS MB) of one process."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    stderr = process.stderr.read()
    if process.returncode:
        raise SystemExit(f"{' '.join(command)} failed:\n{stderr[-3000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100,000 train rows")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--reference-python", default=str(MINIMUM_PYTHON), help="a Python with datasets 3.6")
    args = parser.parse_args(argv)
    rows = 100_000 if args.quick else 1_000_000
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_DATASETS_DISABLE_PROGRESS_BARS="1")
    with tempfile.TemporaryDirectory(prefix="corpora-convert-bench-") as work:
        work = Path(work)
        (work / "synthetic_rows").mkdir()
        script = work / "synthetic_rows" / "synthetic_rows.py"
        script.write_text(SCRIPT, encoding="utf-8")
        (work / "data").mkdir()
        write_data(work / "data", rows)
        corpora = str(Path(sys.executable).with_name("corpora"))
        results = {"convert": [], "load_dataset 3.6": []}
        for run in range(args.runs):
            for name in results:
                out = work / f"out-{run}-{name.split()[0]}"
                if name == "convert":
                    command = [corpora, "convert", str(script.parent), "--out", str(out),
                               "--data-dir", str(work / "data")]
                else:
                    command = [args.reference_python, "-c", LOAD_DATASET, str(script), str(work / "data"), str(out)]
                run_env = dict(env, HF_HOME=str(work / f"hf-{run}-{name.split()[0]}"))
                results[name].append(measured(command, run_env))
                shutil.rmtree(out, ignore_errors=True)
    print(f"{rows:,} train rows + {rows // 100:,} test rows, median of {args.runs}")
    print(f"{'case':20} {'wall s':>8} {'CPU s':>8} {'peak RSS MB':>12}")
    medians = {}
    for name, figures in results.items():
        medians[name] = [statistics.median(f[i] for f in figures) for i in range(3)]
        print(f"{name:20} {medians[name][0]:8.1f} {medians[name][1]:8.1f} {medians[name][2]:12.0f}")
    for i, what in ((0, "wall"), (1, "CPU")):
        ratio = medians["convert"][i] / medians["load_dataset 3.6"][i]
        print(f"ratio convert / load_dataset 3.6, {what} time: {ratio:.2f} (goal <= 1)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
