"""The export's Parquet compression, measured (docs/parquet.md): each codec written with the
export's other settings (corpora.parquet_files: page index, content-defined chunking, row groups
capped in bytes) from the same Arrow tables, its file size, its write time and its read time
(pyarrow.parquet.read_table, best of `--runs`).

Tables: every config of every corpus's dummy data (`corpora build --all --dummy`, summed), and the
synthetic caption_contest_ratings summaries at full size (tests/synthetic_caption_contest_ratings.py,
1,081,771 rows; --quick: 200,000).

Usage: python bench/parquet_settings.py [--quick] [--runs N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the synthetic data generators
sys.path.insert(0, str(ROOT / "src"))

CODECS = [("none", None), ("snappy", None), ("lz4", None), ("zstd", 1), ("zstd", 3), ("zstd", 9), ("gzip", 6),
          ("brotli", 5)]


def dummy_tables(work: Path):
    """(name, Arrow table, schema) of every config of every corpus, from its dummy data."""
    import corpora
    from corpora import registry

    for corpus in registry.all_corpora():
        for config in corpus.configs:
            dataset_dict = corpora.load(corpus.name, config, dummy=True, cache_dir=work / "cache")
            for split, dataset in dataset_dict.items():
                yield f"{corpus.name}/{config}/{split}", dataset.with_format("arrow")[:], dataset.features.arrow_schema


def summary_tables(work: Path, rows: int):
    import synthetic_caption_contest_ratings as synthetic
    from corpora import registry

    root = work / "release"
    synthetic.write_summary_release(root, rows)
    builder = registry.get("caption_contest_ratings").builder("summaries", root, work / "cache-summaries")
    builder.download_and_prepare()
    dataset = builder.as_dataset(split="train")
    name = "caption_contest_ratings/summaries (synthetic)"
    yield name, dataset.with_format("arrow")[:], dataset.features.arrow_schema


def measure(tables, work: Path, runs: int) -> dict:
    import pyarrow.parquet as pq

    from corpora import parquet_files

    figures = {}
    for codec, level in CODECS:
        size = write_s = read_s = 0.0
        for index, (_, table, schema) in enumerate(tables):
            name = f"{codec}-{level}-{index}"
            with mock.patch.object(parquet_files, "COMPRESSION", codec), \
                    mock.patch.object(parquet_files, "COMPRESSION_LEVEL", level):
                best = []
                for _ in range(runs):
                    start = time.perf_counter()
                    writer = parquet_files.SplitWriter(work, name, schema)
                    writer.write(table)
                    (path,) = writer.close()
                    best.append(time.perf_counter() - start)
                write_s += min(best)
            size += path.stat().st_size
            best = []
            for _ in range(runs):
                start = time.perf_counter()
                pq.read_table(path)
                best.append(time.perf_counter() - start)
            read_s += min(best)
            path.unlink()
        figures[f"{codec}" + (f" {level}" if level is not None else "")] = (int(size), write_s, read_s)
    return figures


def show(title: str, figures: dict, arrow_bytes: int) -> None:
    print(f"\n{title} (Arrow data: {arrow_bytes:,} bytes)")
    print("| codec | file bytes | vs snappy | write s | read s |")
    print("|---|---:|---:|---:|---:|")
    snappy = figures["snappy"][0]
    for name, (size, write_s, read_s) in figures.items():
        print(f"| {name} | {size:,} | {size / snappy:.2f} | {write_s:.3f} | {read_s:.3f} |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200,000 synthetic summary rows")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="corpora-bench-parquet-") as tmp:
        work = Path(tmp)
        dummy = list(dummy_tables(work))
        show(f"dummy data, {len(dummy)} splits", measure(dummy, work, args.runs), sum(t.nbytes for _, t, _ in dummy))
        big = list(summary_tables(work, 200_000 if args.quick else 1_081_771))
        show(f"synthetic summaries, {big[0][1].num_rows:,} rows", measure(big, work, args.runs), big[0][1].nbytes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
