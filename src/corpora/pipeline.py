"""The export pipeline of any `datasets.DatasetBuilder`: Parquet in the Hub-optimized settings, statistics, the
rows `load_dataset` reads back, all inside `exports.transaction`. An `Export` plan, built once by the caller,
says what to export; its `Parts` add what one kind of export needs (the corpora's source checks and cards,
a converted script's card). docs/parquet.md says why the Parquet is written here and not by datasets."""

from __future__ import annotations

import collections
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

import datasets
import pyarrow
import pyarrow.parquet
from datasets.table import table_cast

from corpora import datasets_adapter
from corpora import exports
from corpora import parquet_files
from corpora.cards import figures
from corpora.datasets_adapter import cached_tables
from corpora.errors import CorporaError
from corpora.path_errors import check_utf8


@dataclass(frozen=True)
class FoundSources:
    """What the transaction needs of an export's sources: the local files the export must not overlap,
    and what its mark records (`kind`: "release", "modified" or "dummy"; the files that differ)."""

    kind: str
    files: dict[str, Path] = field(default_factory=dict)
    differing: tuple[str, ...] = ()


class Parts:
    """What one kind of export adds to the shared pipeline. The defaults serve a plain builder: no source
    records counted apart (rows in are the rows generated), no figures, no official sizes. A subclass gives
    `find_sources`, `make_builder` and `write_card`, and overrides what its exports check besides."""

    def find_sources(self):
        """The export's sources, found and checked under the export's lock: a `FoundSources`, or an object
        with the same `files`, `kind` and `differing` (sources.Sources)."""
        raise NotImplementedError

    def make_builder(self, config: str, sources, cache_dir: Path) -> datasets.DatasetBuilder:
        """The builder of `config`, not yet prepared, its datasets cache in `cache_dir`."""
        raise NotImplementedError

    def start(self, sources) -> None:
        """Before the first config is generated: what is read and checked once for the whole export."""

    def generate(self, builder: datasets.DatasetBuilder, config: str, sources, num_proc: int | None) -> dict[str, int]:
        """Prepare the builder; returns the records read per split (here: the rows generated)."""
        builder.download_and_prepare(num_proc=num_proc, max_shard_size=parquet_files.MAX_SHARD_BYTES)
        return {split: info.num_examples for split, info in builder.info.splits.items()}

    def stored(self, table: pyarrow.Table) -> pyarrow.Table:
        """A table of the builder's as the export stores it: here as generated (a converted script's
        media files are read into it: convert.checks.embed_media)."""
        return table

    def figures(self, config: str) -> list[figures.Figure]:
        """The figures the card of `config` shows, counted over its tables (figures.Tally)."""
        return []

    def official(self, config: str, split: str) -> int | None:
        """The official size of a split, None if unknown."""
        return None

    def write_card(self, folder: Path, infos: dict[str, datasets.DatasetInfo], report: dict[str, figures.ConfigReport],
                   sources, repo_id: str | None, export_path: str) -> None:
        """README.md (and croissant.json) of the export in `folder`: each config's info and report."""
        raise NotImplementedError


@dataclass(frozen=True)
class Export:
    """One export, planned once: OUT/NAME holds `configs`, each made by `parts`."""

    name: str
    configs: tuple[str, ...]
    parts: Parts
    known: tuple[str, ...] = ()  # every config the builder has (an export of another is not replaced); () = configs
    data_dir: Path | None = None  # the source folder the user gave (--data-dir)
    local_copy: Path | None = None  # the source folder read (data_dir or a dummy folder): never under the export
    num_proc: int | None = None


@dataclass(frozen=True)
class SplitRows:
    corpus: str  # the export's name
    config: str
    split: str
    rows: int
    read: int
    official: int | None  # the official size (None: a dummy build, or unknown)
    differs: bool = False  # rows differ from the official size (a build with --allow-modified-sources)


def run(plan: Export, out, repo_id: str | None = None, lock_timeout: float | None = None, compare_to=None,
        drop_other_configs: bool = False, hooks: exports.Hooks | None = None) -> list[SplitRows]:
    """Write OUT/NAME (Parquet, README.md, croissant.json) inside `exports.transaction`; the rows
    reported are those `load_dataset` reads back; `compare_to` prints `corpora diff` against COMPARE_TO/NAME."""
    out, name, configs = Path(out), plan.name, list(plan.configs)
    for path, option in ((out, "--out"), (plan.data_dir, "--data-dir"), (compare_to, "--compare-to")):
        if path is not None:
            check_utf8(path, f"the {option} folder")
    with exports.transaction(out, name, configs, plan.parts.find_sources, local_copy=plan.local_copy,
                             known=list(plan.known or configs), drop_others=drop_other_configs,
                             lock_timeout=lock_timeout, hooks=hooks) as partial:
        report = write_files(plan, partial, repo_id, shown_path(out, name))
        counts = reload_counts(partial.folder, configs, partial.cache)
        if compare_to is not None:  # every check passed: what the swap is about to change
            from corpora import diff  # imports DuckDB: not for the builds that do not compare

            print(diff.summary(Path(compare_to) / name, partial.folder, name, None, out / name))
    rows = []
    for config, splits in counts.items():
        for split, count in splits.items():
            official = plan.parts.official(config, split)
            differs = official is not None and official != count
            rows.append(SplitRows(name, config, split, count, report[config].read[split], official, differs))
    return rows


def shown_path(out: Path, name: str) -> str:
    """The export's folder as its card names it: never a local absolute path."""
    if not out.is_absolute() and ".." not in out.parts:
        return (out / name).as_posix()
    return f"path/to/{name}"


def write_files(plan: Export, partial: exports.Partial, repo_id, export_path: str) -> dict[str, figures.ConfigReport]:
    """Generate every config into the partial folder, then its card; returns the report per config."""
    parts, sources, folder = plan.parts, partial.sources, partial.folder
    infos, report = {}, {}
    beside_worth_it = ParquetBeside.worth_it(plan.num_proc)
    parts.start(sources)
    for config in plan.configs:
        # A Ctrl-C swallowed where Python ignores exceptions ends the build here.
        partial.phase("generating")
        builder = parts.make_builder(config, sources, partial.cache)
        features = builder.info.features
        # Parquet written here, not by datasets: the same file settings on every version (docs/parquet.md).
        beside = ParquetBeside(folder / config, features.arrow_schema, parts.stored) if beside_worth_it else None
        try:
            if beside:
                beside.attach(builder)
            read = parts.generate(builder, config, sources, plan.num_proc)
            written = beside.finish() if beside else {}
        finally:
            if beside:
                beside.abort()  # after an error: the thread stops, the files are discarded with the partial folder
        splits, computing, counting = list(builder.info.splits), {}, []
        tally = figures.Tally(parts.figures(config), features)
        # Statistics and figures in threads beside the Parquet writer: each spends its time in Arrow, free of the GIL.
        # Each reads the split from datasets' cache on its own, a batch at a time: memory holds batches, whatever
        # the split's size (the cache memory-mapped, as datasets' as_dataset reads it, keeps its pages resident).
        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="statistics") as pool:
            for split in splits:
                computing[split] = pool.submit(figures.split_statistics, features, cached_tables(builder, split))
                # A config without declared figures (a converted script's) need not read the split again.
                counting.append(pool.submit(tally.add, split, cached_tables(builder, split) if tally.figures else []))
                if split not in written:
                    written[split] = write_parquet(builder, split, folder / config, parts.stored)
                generated = builder.info.splits[split].num_examples
                if written[split].rows != generated:  # not a user's error: this package's
                    raise CorporaError(f"{plan.name}/{config}/{split}: {written[split].rows:,} rows written to "
                                       f"Parquet, {generated:,} generated")
            statistics = {split: future.result() for split, future in computing.items()}
            for future in counting:
                future.result()
        infos[config] = builder.info
        report[config] = figures.ConfigReport(
            read=read,
            statistics=statistics,
            example=first_example(builder, splits, parts.stored),
            # The overlap of splits compares the rows as stored, read from the files written.
            figures=tally.results(splits, {split: written[split].paths for split in splits}),
        )
    partial.phase("writing")
    parts.write_card(folder, infos, report, sources, repo_id, export_path)
    return report


def write_parquet(builder: datasets.DatasetBuilder, split: str, folder: Path, stored=None) -> parquet_files.SplitWriter:
    """A split of datasets' cache written as Parquet in `folder`, each batch as `stored(table)` gives
    it (Parts.stored); returns the closed writer."""
    writer = parquet_files.SplitWriter(folder, split, builder.info.features.arrow_schema)
    try:
        for table in cached_tables(builder, split):
            writer.write(stored(table) if stored else table)
    except BaseException:
        writer.abort()
        raise
    writer.close()
    return writer


class ParquetBeside:
    """Parquet written in a thread from the tables the builder generates: two cores busy, not one (docs/parquet.md)."""

    AHEAD = 2  # tables handed to the thread and not yet written: what memory holds

    @staticmethod
    def worth_it(num_proc: int | None) -> bool:
        """No worker processes and a second core: on one core the threads take turns and cost more CPU."""
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        return (num_proc or 1) <= 1 and cores > 1

    def __init__(self, folder: Path, schema: pyarrow.Schema, stored=None):
        self.folder, self.schema, self.stored = folder, schema, stored or (lambda table: table)
        self.writers: dict[str, parquet_files.SplitWriter] = {}
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="parquet-beside")
        self.pending = collections.deque()

    def attach(self, builder: datasets.DatasetBuilder) -> None:
        datasets_adapter.observe_tables(builder, self.observe)

    def observe(self, split: str, table: pyarrow.Table) -> None:
        if split not in self.writers:
            self.writers[split] = parquet_files.SplitWriter(self.folder, split, self.schema)
        writer = self.writers[split]
        self.pending.append(self.pool.submit(lambda: writer.write(self.stored(table_cast(table, self.schema)))))
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


def first_example(builder: datasets.DatasetBuilder, splits: list[str], stored) -> dict | None:
    """The first row of the first split that has rows, as stored (class labels as their index, images
    as bytes); None for a config with no rows at all. A legacy script's first split may be empty."""
    for split in splits:
        first = next((table for table in cached_tables(builder, split) if table.num_rows), None)
        if first is not None:
            return stored(first.slice(0, 1)).to_pylist()[0]
    return None


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
