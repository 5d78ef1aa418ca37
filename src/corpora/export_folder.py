"""`corpora build`: a corpus written as a Hub-ready export folder, checked, then swapped in (exports)."""

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

from corpora import datasets_adapter
from corpora import exports
from corpora import parquet_files
from corpora import prepare
from corpora.cards import croissant
from corpora.cards import figures
from corpora.cards import readme
from corpora.cards import source
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
    """Write OUT/NAME (Parquet, README.md, croissant.json) inside `exports.transaction`; the rows
    reported are those `load_dataset` reads back; `compare_to` prints `corpora diff` against COMPARE_TO/NAME."""
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
    """The export's folder as its card names it: never a local absolute path."""
    if not out.is_absolute() and ".." not in out.parts:
        return (out / name).as_posix()
    return f"path/to/{name}"


def write_files(request: prepare.Request, partial: exports.Partial, repo_id, export_path: str):
    """Prepare every config into the partial folder, then its card and croissant.json; returns the report per config."""
    corpus, sources, folder, name = request.corpus, partial.sources, partial.folder, request.name
    infos, report, configs = {}, {}, list(request.configs)
    # The card source read, checked and settled once: the figures counted below, the card and croissant.json.
    card = source.export_source(corpus, configs)
    for config in configs:
        features = corpus.features(config)
        # A Ctrl-C swallowed where Python ignores exceptions ends the build here.
        partial.phase("generating")
        # Parquet written here, not by datasets: the same file settings on every version (docs/parquet.md).
        beside = ParquetBeside(folder / config, features.arrow_schema) if ParquetBeside.worth_it(request) else None
        try:
            prepared = prepare.prepare_config(request, config, sources, partial.cache, beside and beside.attach)
            written = beside.finish() if beside else {}
        finally:
            if beside:
                beside.abort()  # after an error: the thread stops, the files are discarded with the partial folder
        builder = prepared.builder
        tables, computing, counting = {}, {}, []
        tally = figures.Tally([figure for figure in card["declared_figures"] if config in figure.configs], features)
        # Statistics and figures in threads beside the Parquet writer: each spends its time in Arrow, free of the GIL.
        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="statistics") as pool:
            for split, dataset in builder.as_dataset().items():
                tables[split] = dataset.with_format("arrow")[:]
                computing[split] = pool.submit(figures.split_statistics, features, [tables[split]])
                counting.append(pool.submit(tally.add, split, tables[split]))
                if split not in written:
                    written[split] = write_parquet(dataset, folder / config, split)
                if written[split].rows != dataset.num_rows:  # not a user's error: this package's
                    raise CorporaError(f"{name}/{config}/{split}: {written[split].rows:,} rows written to Parquet, "
                                       f"{dataset.num_rows:,} generated")
            statistics = {split: future.result() for split, future in computing.items()}
            for future in counting:
                future.result()
        infos[config] = builder.info
        report[config] = figures.ConfigReport(
            read=prepared.read,
            statistics=statistics,
            example=first_example(next(iter(tables.values()))),
            figures=tally.results(list(tables)),
        )
    partial.phase("writing")
    notice = readme.not_the_release(corpus, sources)
    croissant.write(corpus, folder, card, configs, repo_id, notice)
    built_from = readme.built_from(corpus, sources, infos)
    readme.write_export_card(corpus, infos, folder / "README.md", repo_id, report, built_from, notice, export_path,
                             card)
    return report


def write_parquet(dataset: datasets.Dataset, folder: Path, split: str) -> parquet_files.SplitWriter:
    """A split of datasets' cache written as Parquet in `folder`; returns the closed writer."""
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
    """Parquet written in a thread from the tables the builder generates: two cores busy, not one (docs/parquet.md)."""

    AHEAD = 2  # tables handed to the thread and not yet written: what memory holds

    @staticmethod
    def worth_it(request: prepare.Request) -> bool:
        """No worker processes and a second core: on one core the threads take turns and cost more CPU."""
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
    """The first row of a split as stored (class labels as their index, images as bytes)."""
    return table.slice(0, 1).to_pylist()[0]


def reload_counts(folder: Path, configs: list[str], cache_dir) -> dict[str, dict[str, int]]:
    """Rows per config and split in the files `load_dataset` resolves from the card, counted from the footers."""
    counts = {}
    for config in configs:
        builder = datasets.load_dataset_builder(str(folder), config, cache_dir=str(cache_dir))
        counts[config] = {
            split: sum(pyarrow.parquet.ParquetFile(str(path)).metadata.num_rows for path in paths)
            for split, paths in builder.config.data_files.items()
        }
    return counts
