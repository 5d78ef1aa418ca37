"""Time a full-size diplomacy_detection build (synthetic files with the official counts) against
raw pyarrow reading and writing the same files in the same run. Prints seconds and the ratio.

Usage: python bench/diplomacy_build.py [--quick]  (--quick: best of 1 instead of 3)"""

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import datasets
import pyarrow
import pyarrow.parquet

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import corpora  # noqa: E402
from corpora import export_folder  # noqa: E402
from corpora import prepare  # noqa: E402
from corpora import registry  # noqa: E402
from synthetic_diplomacy_detection import write_diplomacy  # noqa: E402

MIXED = ("receiver_labels", "game_score", "game_score_delta")


def best_of(runs, function):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv=None):
    datasets.disable_progress_bars()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="best of 1 instead of 3")
    runs = 1 if parser.parse_args(argv).quick else 3
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        upstream = write_diplomacy(tmp / "upstream")

        def raw():
            # The floor: parse the JSON Lines and write Parquet, no typing or checks.
            # pyarrow.json cannot read these files at all (receiver_labels mixes booleans and
            # strings), so the mixed lists become strings here.
            for split in ("train", "validation", "test"):
                with open(upstream / "data" / f"{split}.jsonl", encoding="utf-8") as f:
                    rows = [json.loads(line) for line in f]
                for row in rows:
                    for key in MIXED:
                        row[key] = [str(v) for v in row[key]]
                pyarrow.parquet.write_table(pyarrow.Table.from_pylist(rows), tmp / f"raw-{split}.parquet")

        def corpora_prepare():
            for config in ("conversations", "messages"):
                cache = tempfile.mkdtemp(dir=tmp)
                dataset = corpora.load("diplomacy_detection", config, data_dir=upstream, cache_dir=cache,
                                       allow_modified_sources=True)
                for split, part in dataset.items():
                    part.to_parquet(str(tmp / f"{config}-{split}.parquet"))

        def corpora_build():
            # Synthetic files are not the recorded release: their checksums differ by design.
            corpus = registry.get("diplomacy_detection")
            request = prepare.Request(corpus, data_dir=upstream, allow_modified_sources=True)
            export_folder.export(request, tmp / "out")

        raw_seconds = best_of(runs, raw)
        prepare_seconds = best_of(runs, corpora_prepare)
        build_seconds = best_of(runs, corpora_build)
    print("diplomacy_detection, full size (252 dialogs, 17,289 messages), both configs:")
    print(f"  raw json + pyarrow.Table.from_pylist + write_table: {raw_seconds:.3f} s")
    print(f"  builder, both configs, typed and checked, to Parquet: {prepare_seconds:.3f} s"
          f" ({prepare_seconds / raw_seconds:.1f}x raw)")
    print(f"  corpora build (the above + card with a dummy build + reload): {build_seconds:.3f} s"
          f" ({build_seconds / raw_seconds:.1f}x raw)")


if __name__ == "__main__":
    main()
