"""`corpora build`: a corpus as a Hub-ready export folder. Each config is prepared by the one
pipeline (`corpora.pipeline`, with every check), written as Parquet shards with the card
(README.md) and croissant.json into a partial folder of this build, read back through the card's
`configs:`, and only then swapped in (`corpora.swap`)."""

from __future__ import annotations

import errno
import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import datasets
import pyarrow
import pyarrow.parquet

from corpora import cards
from corpora import croissant
from corpora import errors
from corpora import parquet_files
from corpora import pipeline
from corpora import sources
from corpora import stats
from corpora import swap
from corpora.errors import CorporaError
from corpora.errors import check_utf8


@dataclass(frozen=True)
class SplitRows:
    corpus: str
    config: str
    split: str
    rows: int
    read: int
    official: int | None  # the official size (None: a dummy build, or unknown)
    differs: bool = False  # rows differ from the official size (a build with --allow-modified-sources)


def export(request: pipeline.Request, out, repo_id: str | None = None, lock_timeout: float | None = None,
           compare_to=None, drop_other_configs: bool = False) -> list[SplitRows]:
    """Write OUT/NAME/README.md, croissant.json and OUT/NAME/<config>/<split>-0000i-of-0000n.parquet
    for each config of the request, prepared by the one pipeline (`pipeline.prepare`: every check).

    `repo_id` is the Hub repository the export is for, if any (its card says how to load it from
    there). The rows reported are those of the files `load_dataset` resolves from the exported
    card (`reload_counts`). With `compare_to` (an export folder: COMPARE_TO/NAME is the old export,
    so OUT itself means the export being replaced), what the build changes in the rows is
    printed before the swap (`corpora diff`). With `drop_other_configs`, an export that holds
    configs the request does not build (one the loader renamed, too) is replaced without them.

    Safety (corpora.swap): one build at a time per OUT/NAME (another one waits, at most
    `lock_timeout` seconds if given); the export and its datasets cache are made in a partial
    folder of this build; every check runs there, and only then is OUT/NAME swapped to it in one
    step. A failed or interrupted build leaves the previous export as it was.
    """
    corpus, name, configs = request.corpus, request.name, list(request.configs)
    if request.config_kwargs:
        raise CorporaError(f"{name}: an export holds whole configs; config parameters are for corpora.load")
    out = Path(out)
    target = out / name
    for path, option in ((out, "--out"), (request.data_dir, "--data-dir"), (compare_to, "--compare-to")):
        if path is not None:
            check_utf8(path, f"the {option} folder")
    given = request.data_dir if request.data_dir is not None else (corpus.dummy_dir if request.dummy else None)
    if given is not None:
        swap.check_no_overlap(target, [given])  # before any work: the swap would delete them
    replaceable = {"known": list(corpus.configs), "drop_others": drop_other_configs}
    swap.check_replaceable(target, configs, **replaceable)  # before any work; again under the lock
    swap.prepare_out(out)
    with swap.exclusive(target, lock_timeout):
        swap.repair_and_clean(target)
        swap.check_replaceable(target, configs, **replaceable)
        found = pipeline.resolve(request).with_differences()
        swap.check_no_overlap(target, list(found.files.values()))
        workspace = swap.new_workspace(target)
        try:
            partial = workspace / name
            report = write_files(request, found, partial, workspace / "cache", repo_id, shown_path(out, name))
            counts = reload_counts(partial, configs, workspace / "cache")
            if compare_to is not None:  # every check passed: what the swap is about to change
                from corpora import diff  # imports DuckDB: not for the builds that do not compare

                print(diff.summary(Path(compare_to) / name, partial, name, None, target))
            swap.write_mark(partial, name, configs, found)
            errors.stop_if_asked()  # the last moment a stop leaves the previous export as it was
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
            official = None if request.dummy else corpus.split_sizes[config].get(split)
            differs = official is not None and official != count
            rows.append(SplitRows(name, config, split, count, report[config].read[split], official, differs))
    return rows


def shown_path(out: Path, name: str) -> str:
    """How the card names its folder before a push: the --out path as given when it is relative
    and inside the current folder, else `path/to/NAME` (a card never shows a local absolute path)."""
    if not out.is_absolute() and ".." not in out.parts:
        return (out / name).as_posix()
    return f"path/to/{name}"


def write_files(request: pipeline.Request, found: sources.Sources, partial: Path, cache_dir: Path, repo_id,
                export_path: str):
    """Prepare every config (`pipeline.prepare`) and write it into `partial`: its Parquet files, then
    README.md and croissant.json. Returns the card's report per config."""
    corpus = request.corpus
    infos, report = {}, {}
    for config in request.configs:
        features = corpus.features(config)
        errors.stop_if_asked()  # a Ctrl-C swallowed where Python ignores exceptions ends the build here
        swap.pause_at("generating")
        # Prepared as Arrow, written as Parquet by this package (corpora.parquet_files): the same
        # file settings under every datasets version, which its own Parquet writer does not give.
        prepared = pipeline.prepare(request, config, found, cache_dir)
        builder = prepared.builder
        tables, computing = {}, {}
        # The statistics are computed from the Arrow table each split is written from, in a thread
        # beside the Parquet writer: both spend their time in Arrow, which releases the GIL.
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="statistics") as pool:
            for split, dataset in builder.as_dataset().items():
                tables[split] = dataset.with_format("arrow")[:]
                computing[split] = pool.submit(stats.compute, features, [tables[split]])
                write_parquet(dataset, partial / config, split)
            statistics = {split: future.result() for split, future in computing.items()}
        infos[config] = builder.info
        report[config] = stats.ConfigReport(
            read=prepared.read,
            statistics=statistics,
            example=first_example(next(iter(tables.values()))),
        )
    errors.stop_if_asked()
    swap.pause_at("writing")
    notice = cards.not_the_release(corpus, found)
    croissant.write(corpus, partial, cards.card_source(corpus), list(request.configs), repo_id, notice)
    built_from = cards.built_from(corpus, found, infos)
    cards.write_export_card(corpus, infos, partial / "README.md", repo_id, report, built_from, notice, export_path)
    return report


def _located(error: BaseException, target: Path) -> OSError | None:
    """A full disk reported without a file (datasets and pyarrow write through file objects, and
    a write that failed can surface later as "I/O operation on closed file", or as datasets' own
    "Not enough disk space") is about the export: the same error, naming OUT/NAME. None for any
    other error."""
    for cause in errors.chain(error):
        if isinstance(cause, OSError) and cause.errno in (errno.ENOSPC, errno.EDQUOT):
            return cause if cause.filename else OSError(cause.errno, os.strerror(cause.errno), str(target))
        if isinstance(cause, OSError) and str(cause).startswith("Not enough disk space"):  # datasets' own check
            return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(target))
    return None


def write_parquet(dataset: datasets.Dataset, folder: Path, split: str) -> list[Path]:
    """Write a split as `<split>-0000i-of-0000n.parquet` in `folder`, shards of at most
    MAX_SHARD_BYTES of Arrow data (contiguous rows), each with the export's settings
    (corpora.parquet_files); returns the paths."""
    folder.mkdir(parents=True, exist_ok=True)
    num_shards = max(1, math.ceil(dataset.data.nbytes / pipeline.MAX_SHARD_BYTES))
    paths = []
    for index in range(num_shards):
        path = folder / f"{split}-{index:05d}-of-{num_shards:05d}.parquet"
        shard = dataset.shard(num_shards=num_shards, index=index, contiguous=True)
        parquet_files.write(shard.with_format("arrow")[:], dataset.features.arrow_schema, path)
        paths.append(path)
    return paths


def first_example(table: pyarrow.Table) -> dict:
    """The first row of a split as stored (class labels as their index, images as bytes), from
    the Arrow table its Parquet files are written from."""
    return table.slice(0, 1).to_pylist()[0]


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
