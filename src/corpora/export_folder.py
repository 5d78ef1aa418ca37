"""`corpora build`: a corpus as a Hub-ready export folder. Each config is prepared as every build
prepares it (`corpora.prepare`, with every check), written as Parquet shards with the card
(README.md) and croissant.json into a partial folder of this build, read back through the card's
`configs:`, and only then swapped in (`corpora.exports`)."""

from __future__ import annotations

import collections
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import datasets
import pyarrow
import pyarrow.parquet
from datasets.table import table_cast

from corpora import cards
from corpora import croissant
from corpora import datasets_adapter
from corpora import exports
from corpora import parquet_files
from corpora import prepare
from corpora import stats
from corpora.errors import CorporaError
from corpora.path_errors import check_utf8


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
        report = write_files(request, partial, repo_id, shown_path(out, name))
        counts = reload_counts(partial.folder, configs, partial.cache)
        if compare_to is not None:  # every check passed: what the swap is about to change
            from corpora import diff  # imports DuckDB: not for the builds that do not compare

            print(diff.summary(Path(compare_to) / name, partial.folder, name, None, target))
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
    corpus, sources, folder, name = request.corpus, partial.sources, partial.folder, request.name
    infos, report = {}, {}
    for config in request.configs:
        features = corpus.features(config)
        # A Ctrl-C swallowed where Python ignores exceptions ends the build here.
        partial.phase("generating")
        # Prepared as Arrow, written as Parquet by this package (corpora.parquet_files): the same
        # file settings under every datasets version, which its own Parquet writer does not give.
        # Where datasets generates the tables in this process and a second core is free, the
        # Parquet files are written from them as they come, in a thread beside it (ParquetBeside);
        # else from its cache after.
        beside = ParquetBeside(folder / config, features.arrow_schema) if ParquetBeside.worth_it(request) else None
        try:
            prepared = prepare.prepare_config(request, config, sources, partial.cache, beside and beside.attach)
            written = beside.finish() if beside else {}
        finally:
            if beside:
                beside.abort()  # after an error: the thread stops, the files are discarded with the partial folder
        builder = prepared.builder
        tables, computing = {}, {}
        # The statistics are computed from the Arrow table of each split, in a thread: beside the
        # Parquet writer where the files are written from the cache (both spend their time in
        # Arrow, which releases the GIL).
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="statistics") as pool:
            for split, dataset in builder.as_dataset().items():
                tables[split] = dataset.with_format("arrow")[:]
                computing[split] = pool.submit(stats.compute, features, [tables[split]])
                if split not in written:
                    written[split] = write_parquet(dataset, folder / config, split)
                if written[split].rows != dataset.num_rows:  # not a user's error: this package's
                    raise CorporaError(f"{name}/{config}/{split}: {written[split].rows:,} rows written to Parquet, "
                                       f"{dataset.num_rows:,} generated")
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


def write_parquet(dataset: datasets.Dataset, folder: Path, split: str) -> parquet_files.SplitWriter:
    """Write a split of datasets' cache as `<split>-0000i-of-0000n.parquet` in `folder`
    (parquet_files.SplitWriter); returns the closed writer."""
    writer = parquet_files.SplitWriter(folder, split, dataset.features.arrow_schema)
    try:
        for batch in dataset.with_format("arrow").data.to_batches():
            writer.write(pyarrow.Table.from_batches([batch]))
    except BaseException:
        writer.abort()
        raise
    writer.close()
    return writer


class ParquetBeside:
    """The Parquet files of each split, written from the Arrow tables the builder generates while
    datasets writes them to its cache, in a thread beside it: reading the sources and writing
    Parquet then keep two cores busy, where the files written from the cache after would take
    one core alone (bench/toolkit_overhead.py). The tables are cast to the features as datasets
    casts them for its cache, and the files are the ones `write_parquet` writes from that cache
    (docs/parquet.md says where that is tested)."""

    # Tables handed to the thread and not yet written: memory holds these few tables, and the
    # rows of a row group not yet complete (SplitWriter).
    AHEAD = 2

    @staticmethod
    def worth_it(request: prepare.Request) -> bool:
        """Written beside the builder: datasets generates in this process (no worker processes),
        and the process may run on more than one core. On one core the two threads take turns,
        and the Parquet encoding, interleaved with the parsing, costs more CPU (about 0.3 s more
        for the summaries of bench/toolkit_overhead.py) than writing from the cache after."""
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        return (request.num_proc or 1) <= 1 and cores > 1

    def __init__(self, folder: Path, schema: pyarrow.Schema):
        self.folder, self.schema = folder, schema
        self.writers: dict[str, parquet_files.SplitWriter] = {}
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="parquet-beside")
        self.pending = collections.deque()

    def attach(self, builder: datasets.DatasetBuilder) -> None:
        datasets_adapter.observe_tables(builder, self.observe)

    def observe(self, split: str, table: pyarrow.Table) -> None:
        if split not in self.writers:
            self.writers[split] = parquet_files.SplitWriter(self.folder, split, self.schema)
        writer = self.writers[split]
        self.pending.append(self.pool.submit(lambda: writer.write(table_cast(table, self.schema))))
        while len(self.pending) > self.AHEAD or (self.pending and self.pending[0].done()):
            self.pending.popleft().result()  # the thread's error is raised here, in the builder

    def finish(self) -> dict[str, parquet_files.SplitWriter]:
        """The closed writer of each split the builder generated (none: a split datasets had)."""
        while self.pending:
            self.pending.popleft().result()
        for writer in self.writers.values():
            writer.close()
        finished, self.writers = self.writers, {}
        return finished

    def abort(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)  # waits for the table being written only
        for writer in self.writers.values():
            writer.abort()


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
