"""`corpora build`: a corpus as a Hub-ready export folder. Each config is prepared as every build
prepares it (`corpora.prepare`, with every check), written as Parquet shards with the card
(README.md) and croissant.json into a partial folder of this build, read back through the card's
`configs:`, and only then swapped in (`corpora.exports`)."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import datasets
import pyarrow
import pyarrow.parquet

from corpora import cards
from corpora import croissant
from corpora import errors
from corpora import exports
from corpora import parquet_files
from corpora import prepare
from corpora import stats
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


def export(request: prepare.Request, out, repo_id: str | None = None, lock_timeout: float | None = None,
           compare_to=None, drop_other_configs: bool = False, hooks: exports.Hooks | None = None) -> list[SplitRows]:
    """Write OUT/NAME/README.md, croissant.json and OUT/NAME/<config>/<split>-0000i-of-0000n.parquet
    for each config of the request, prepared as every build is (`prepare.prepare_config`: every check).

    `repo_id` is the Hub repository the export is for, if any (its card says how to load it from
    there). The rows reported are those of the files `load_dataset` resolves from the exported
    card (`reload_counts`). With `compare_to` (an export folder: COMPARE_TO/NAME is the old export,
    so OUT itself means the export being replaced), what the build changes in the rows is
    printed before the swap (`corpora diff`). With `drop_other_configs`, an export that holds
    configs the request does not build (one the loader renamed, too) is replaced without them.

    Safety (`exports.transaction`): one build at a time per OUT/NAME (another one waits, at most
    `lock_timeout` seconds if given); the export and its datasets cache are made in a partial
    folder of this build; every check runs there, and only then is OUT/NAME swapped to it in one
    step. A failed or interrupted build leaves the previous export as it was. `hooks`: a test's
    (exports.Hooks).
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
    with exports.transaction(out, name, configs, lambda: prepare.find_sources(request).with_differences(),
                             local_copy=given, known=list(corpus.configs), drop_others=drop_other_configs,
                             lock_timeout=lock_timeout, hooks=hooks) as partial:
        try:
            report = write_files(request, partial, repo_id, shown_path(out, name))
            counts = reload_counts(partial.folder, configs, partial.cache)
            if compare_to is not None:  # every check passed: what the swap is about to change
                from corpora import diff  # imports DuckDB: not for the builds that do not compare

                print(diff.summary(Path(compare_to) / name, partial.folder, name, None, target))
        except Exception as error:
            full = errors.full_disk(error, target)  # a full disk is said about the export, if no file is named
            if full is None:
                raise
            raise full from error
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


def write_files(request: prepare.Request, partial: exports.Partial, repo_id, export_path: str):
    """Prepare every config (`prepare.prepare_config`) and write it into the partial export
    folder: its Parquet files, then README.md and croissant.json. Returns the card's report per
    config."""
    corpus, sources, folder = request.corpus, partial.sources, partial.folder
    infos, report = {}, {}
    for config in request.configs:
        features = corpus.features(config)
        # A Ctrl-C swallowed where Python ignores exceptions ends the build here.
        partial.phase("generating")
        # Prepared as Arrow, written as Parquet by this package (corpora.parquet_files): the same
        # file settings under every datasets version, which its own Parquet writer does not give.
        prepared = prepare.prepare_config(request, config, sources, partial.cache)
        builder = prepared.builder
        tables, computing = {}, {}
        # The statistics are computed from the Arrow table each split is written from, in a thread
        # beside the Parquet writer: both spend their time in Arrow, which releases the GIL.
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="statistics") as pool:
            for split, dataset in builder.as_dataset().items():
                tables[split] = dataset.with_format("arrow")[:]
                computing[split] = pool.submit(stats.compute, features, [tables[split]])
                write_parquet(dataset, folder / config, split)
            statistics = {split: future.result() for split, future in computing.items()}
        infos[config] = builder.info
        report[config] = stats.ConfigReport(
            read=prepared.read,
            statistics=statistics,
            example=first_example(next(iter(tables.values()))),
        )
    partial.phase("writing")
    notice = cards.not_the_release(corpus, sources)
    croissant.write(corpus, folder, cards.card_source(corpus), list(request.configs), repo_id, notice)
    built_from = cards.built_from(corpus, sources, infos)
    cards.write_export_card(corpus, infos, folder / "README.md", repo_id, report, built_from, notice, export_path)
    return report


def write_parquet(dataset: datasets.Dataset, folder: Path, split: str) -> list[Path]:
    """Write a split as `<split>-0000i-of-0000n.parquet` in `folder`, shards of at most
    MAX_SHARD_BYTES of Arrow data (contiguous rows), each with the export's settings
    (corpora.parquet_files); returns the paths."""
    folder.mkdir(parents=True, exist_ok=True)
    num_shards = max(1, math.ceil(dataset.data.nbytes / parquet_files.MAX_SHARD_BYTES))
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
