"""Export a corpus as a Hub-ready folder: the builder's Parquet shards, the card (README.md) and
croissant.json, checked (rows in = rows out, the official sizes, the reload through the card's
`configs:`) in a partial folder of this build and only then swapped in (`corpora.swap`)."""

from __future__ import annotations

import errno
import math
import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import datasets
import pyarrow.parquet

from corpora import build
from corpora import cards
from corpora import croissant
from corpora import datasets_adapter
from corpora import download
from corpora import registry
from corpora import sources
from corpora import stats
from corpora import swap
from corpora.errors import check_utf8
from corpora.errors import shorten

# Shards stay well under the Hub's recommended file size.
MAX_SHARD_BYTES = 500 * 1024 * 1024


@dataclass(frozen=True)
class SplitRows:
    corpus: str
    config: str
    split: str
    rows: int
    read: int
    official: int | None  # the official size (None: a dummy build, or unknown)
    differs: bool = False  # rows differ from the official size (a build with --allow-modified-sources)


def export_corpus(
    name: str,
    out,
    configs: list[str] | None = None,
    data_dir=None,
    dummy: bool = False,
    num_proc: int | None = None,
    allow_modified_sources: bool = False,
    repo_id: str | None = None,
    lock_timeout: float | None = None,
    compare_to=None,
) -> list[SplitRows]:
    """Write OUT/NAME/README.md and OUT/NAME/<config>/<split>-0000i-of-0000n.parquet.

    Builds from real sources must read the recorded release (no Git LFS pointers; checksums.tsv)
    and give the official split sizes; `allow_modified_sources` lifts both (a fixed, extended or
    cut copy: the sizes are reported beside the official ones, in the rows returned and the
    card). Every split must hold as many examples as the loader's own count of source records,
    made apart from the code that types the records (rows in = rows out).
    `repo_id` is the Hub repository the export is for, if any (its card says how to load it from
    there). The rows reported are those of the files `load_dataset` resolves from the exported
    card (`reload_counts`). With `compare_to` (an export folder: COMPARE_TO/NAME is the old export,
    so OUT itself means the export being replaced), what the build changes in the rows is
    printed before the swap (`corpora diff`).

    Safety (corpora.swap): one build at a time per OUT/NAME (another one waits, at most
    `lock_timeout` seconds if given); the export and its datasets cache are made in a partial
    folder of this build; every check runs there, and only then is OUT/NAME swapped to it in one
    step. A failed or interrupted build leaves the previous export as it was.
    """
    corpus = registry.get(name)
    configs = list(dict.fromkeys(configs or corpus.configs))  # `--config a --config a` builds a once
    for config in configs:
        build.check_config(corpus, config)
    out = Path(out)
    target = out / name
    for path, option in ((out, "--out"), (data_dir, "--data-dir"), (compare_to, "--compare-to")):
        if path is not None:
            check_utf8(path, f"the {option} folder")
    given = Path(data_dir) if data_dir is not None else (corpus.dummy_dir if dummy else None)
    if given is not None:
        swap.check_no_overlap(target, [given])  # before any work: the swap would delete them
    swap.check_replaceable(target, configs)  # before any work; again under the lock
    swap.prepare_out(out)
    with swap.exclusive(target, lock_timeout):
        swap.repair_and_clean(target)
        swap.check_replaceable(target, configs)
        local = sources.resolve_data_dir(corpus, data_dir, dummy, configs)
        files = sources.local_files(corpus, local, configs, allow_modified_sources)
        swap.check_no_overlap(target, list(files.values()))
        if not dummy:
            sources.check(corpus, files, local, allow_modified_sources)
        read_from = local if local is not None else download.cache_folder(name)  # the builder reads the checked files
        workspace = swap.new_workspace(target)
        try:
            partial = workspace / name
            report, read = export_into(corpus, partial, workspace / "cache", configs, read_from, files, num_proc,
                                       dummy, data_dir, allow_modified_sources, repo_id)
            counts = reload_counts(partial, configs, workspace / "cache")
            if compare_to is not None:  # every check passed: what the swap is about to change
                from corpora import diff  # DuckDB is imported for this only: 0.05 s of every other build

                print(diff.summary(Path(compare_to) / name, partial, name, None, target))
            swap.write_mark(partial, name, configs)
            swap.swap_in(partial, target)
        except Exception as error:
            located = _located(error, target)
            if located is None:
                raise
            raise located from error
        finally:
            swap.abandon(workspace, target)  # the cache, half an export, or the previous one
    rows = []
    for config, splits in counts.items():
        for split, count in splits.items():
            official = None if dummy else corpus.split_sizes[config].get(split)
            differs = official is not None and official != count
            rows.append(SplitRows(name, config, split, count, read[config][split], official, differs))
    return rows


def export_into(corpus, partial: Path, cache_dir: Path, configs, local, files, num_proc, dummy, data_dir,
                allow_modified_sources, repo_id):
    """Build every config into `partial` (Parquet, README.md, croissant.json) and check rows in =
    rows out and the official sizes. Returns the card's report and the source records read."""
    infos, report = {}, {}
    for config in configs:
        features = corpus.features(config)
        builder = corpus.builder(config, local, cache_dir, writer_batch_size=build.row_group_rows(corpus, features))
        # Parquet straight from the builder: the export is these files, renamed. Except
        # for images, whose local paths datasets' Parquet writer cuts to the file name.
        file_format = "arrow" if build.has_media(features) else "parquet"
        swap.pause_at("generating")
        # The source records are counted in a second thread while the builder runs: both spend
        # their time in Arrow and zlib, which release the GIL, and the count is about a fifth of a
        # build of many small CSV files (`make bench`: build_summaries against
        # build_summaries_without_count). Never beside worker processes (--num-proc): a process
        # must not fork while another of its threads runs.
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="count-source-records") as pool:
            beside = (num_proc or 1) <= 1
            counting = pool.submit(build.count_source_records, corpus, config, files) if beside else None
            builder.download_and_prepare(
                num_proc=num_proc,
                file_format=file_format,
                max_shard_size=MAX_SHARD_BYTES,
            )
            read = counting.result() if counting else build.count_source_records(corpus, config, files)
        build.account_for_rows(corpus, config, builder.info, read)
        if file_format == "parquet":
            written = move_parquet(builder, partial / config)
        else:
            written = {
                split: write_parquet(dataset, partial / config, split)
                for split, dataset in builder.as_dataset().items()
            }
        infos[config] = builder.info
        report[config] = stats.ConfigReport(
            read=read,
            statistics={split: stats.compute(features, paths) for split, paths in written.items()},
            example=first_example(next(iter(written.values()))),
        )
    swap.pause_at("writing")
    if not dummy and not allow_modified_sources:
        build.check_official_sizes(corpus, infos)
    built_from = describe_sources(corpus, data_dir, dummy, allow_modified_sources, infos)
    notice = not_the_release(corpus, files, dummy, allow_modified_sources)
    croissant.write(corpus, partial, cards.card_source(corpus), configs, repo_id, notice)
    cards.write_export_card(corpus, infos, partial / "README.md", repo_id, report, built_from, notice)
    return report, {config: report[config].read for config in configs}


def _located(error: BaseException, target: Path) -> OSError | None:
    """A full disk reported without a file (datasets and pyarrow write through file objects, and
    a write that failed can surface later as "I/O operation on closed file", or as datasets' own
    "Not enough disk space") is about the export: the same error, naming OUT/NAME. None for any
    other error."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
            return error if error.filename else OSError(error.errno, os.strerror(error.errno), str(target))
        if isinstance(error, OSError) and str(error).startswith("Not enough disk space"):  # datasets' own check
            return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(target))
        error = error.__cause__ or error.__context__
    return None


def move_parquet(builder: datasets.DatasetBuilder, folder: Path) -> dict[str, list[Path]]:
    """Move the Parquet shards a builder prepared into `folder` as
    `<split>-0000i-of-0000n.parquet`, in shard order; returns the paths per split."""
    folder.mkdir(parents=True, exist_ok=True)
    written = {}
    for split, shards in datasets_adapter.prepared_shards(builder, "parquet").items():
        written[split] = []
        for index, shard in enumerate(shards):
            path = folder / f"{split}-{index:05d}-of-{len(shards):05d}.parquet"
            shutil.move(shard, path)
            written[split].append(path)
    return written


def write_parquet(dataset: datasets.Dataset, folder: Path, split: str) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    num_shards = max(1, math.ceil(dataset.data.nbytes / MAX_SHARD_BYTES))
    paths = []
    for index in range(num_shards):
        path = folder / f"{split}-{index:05d}-of-{num_shards:05d}.parquet"
        dataset.shard(num_shards=num_shards, index=index, contiguous=True).to_parquet(str(path))
        paths.append(path)
    return paths


def first_example(paths: list[Path]) -> dict:
    """The first row of a split as stored (class labels as their index, images as bytes). Read
    through a small buffer: by default pyarrow reads the whole first row group (0.06 s warm, 0.27 s
    cold for 100,000 summary rows; 3 ms so)."""
    parquet = pyarrow.parquet.ParquetFile(paths[0], pre_buffer=False, buffer_size=1 << 16)
    return next(parquet.iter_batches(batch_size=1)).to_pylist()[0]


def describe_sources(corpus: registry.Corpus, data_dir, dummy: bool, allow_modified_sources: bool, infos=None) -> str:
    """What a build read, in words for its card (never a local path), with the split sizes that
    differ from the official ones."""
    if dummy:
        return f"the dummy data of `dummy_data/{corpus.name}/` (not the real corpus)"
    release = cards.RELEASE_FILES if not allow_modified_sources else "files that may differ from the release"
    where = "a local copy" if data_dir is not None else "the pinned URLs"
    checked = "size and sha256 checked" if not allow_modified_sources else "built with --allow-modified-sources"
    described = f"{release}, read from {where} ({checked}; see Source files)"
    differing = build.differing_sizes(corpus, infos or {})
    if differing:
        described += "; split sizes that differ from the official ones: " + ", ".join(differing)
    return described


def not_the_release(corpus: registry.Corpus, files: dict, dummy: bool, allow_modified_sources: bool) -> str | None:
    """What opens the card and croissant.json of a build that is not of the release, else None."""
    if dummy:
        return (f"This export was built from the dummy data of `dummy_data/{corpus.name}/` (a few records in the "
                "real format, partly invented), not from the corpus.")
    differing = sources.differences(corpus, files) if allow_modified_sources else []
    if not differing:
        return None
    return (f"This export was built from {len(differing)} source file(s) that differ from the recorded release: "
            f"{shorten(differing, 3, '; ')}. Its rows, sizes and statistics are those of these files.")


def reload_counts(folder: Path, configs: list[str], cache_dir) -> dict[str, dict[str, int]]:
    """Rows per config and split of the export, in the files `load_dataset(folder, config)`
    resolves from the card's `configs:` (counted from the Parquet footers, so a reload of a big
    export costs no conversion)."""
    counts = {}
    for config in configs:
        builder = datasets.load_dataset_builder(str(folder), config, cache_dir=str(cache_dir))
        counts[config] = {
            split: sum(pyarrow.parquet.ParquetFile(str(path)).metadata.num_rows for path in paths)
            for split, paths in builder.config.data_files.items()
        }
    return counts
