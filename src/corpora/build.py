"""Build corpora with their builders and export them as Hub-ready folders of Parquet files."""

from __future__ import annotations

import errno
import math
import os
import re
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import datasets
import pyarrow.parquet

from corpora import cards
from corpora import croissant
from corpora import datasets_adapter
from corpora import diff
from corpora import export
from corpora import registry
from corpora import sources
from corpora import stats
from corpora.errors import CorporaError
from corpora.errors import shorten
from corpora.feature_types import list_item

# Shards stay well under the Hub's recommended file size.
MAX_SHARD_BYTES = 500 * 1024 * 1024


def load(
    name: str,
    config: str | None = None,
    *,
    split: str | None = None,
    data_dir=None,
    dummy: bool = False,
    streaming: bool = False,
    num_proc: int | None = None,
    cache_dir=None,
    allow_modified_sources: bool = False,
    **config_kwargs,
):
    """`load_dataset` for a corpus, with the checks of `corpora build`: a DatasetDict, or the
    Dataset of `split` (a name, or datasets' split syntax: "train[:10%]", "train+validation");
    an IterableDatasetDict (IterableDataset) when streaming.

    Sources are the pinned URLs, a local copy (`data_dir`) or the dummy data (`dummy=True`).
    From real sources the files must be the recorded release (no Git LFS pointers; size and
    sha256 as in checksums.tsv) and the splits the official sizes; `allow_modified_sources=True`
    lifts both (a fixed, extended or cut copy). Streaming from the pinned URLs downloads nothing
    ahead, so only a local copy's checksums are checked, and sizes are not known before reading.
    `config_kwargs` set parameters of the config (e.g. `contests=[508]`): the loader then reads
    a part of the files and checks itself that they are there; the official sizes do not apply.
    Works on datasets 3.6 and 5.x alike: the builder class is used directly, no script loading.
    """
    corpus = registry.get(name)
    _check_config(corpus, config)
    config = config or corpus.default_config
    _check_split(corpus, config, split, streaming)
    # With config parameters the loader may need only some files; it checks them itself.
    local = sources.resolve_data_dir(corpus, data_dir, dummy, [] if config_kwargs else [config])
    release = not dummy
    if release and (local is not None or not streaming):
        files = sources.local_files(corpus, local, [config], sources.download_config())
        if config_kwargs:  # only the files this part of the config reads are there to check
            files = {path: file for path, file in files.items() if file.is_file()}
        sources.check(corpus, files, local, allow_modified_sources)
    builder = corpus.builder(config, local, cache_dir, **config_kwargs)
    if streaming:
        return builder.as_streaming_dataset(split=split)
    builder.download_and_prepare(num_proc=num_proc, download_config=sources.download_config())
    if release and not allow_modified_sources and not config_kwargs:
        check_official_sizes(corpus, {config: builder.info})
    return builder.as_dataset(split=split)


def _check_split(corpus: registry.Corpus, config: str, split: str | None, streaming: bool) -> None:
    """Name an unknown split before any work; datasets' own error comes after the build."""
    if split is None:
        return
    names = list(corpus.split_sizes[config])
    if streaming and split not in names:
        raise CorporaError(
            f"{corpus.name}/{config}: streaming takes one split name ({', '.join(names)}), not {split!r}; "
            "take a part of a stream with .take(n) and .skip(n)"
        )
    for part in re.split(r"\+", split):
        base = re.match(r"\s*([^\[\s]+)", part)
        if base is None or base.group(1) not in names:
            raise CorporaError(f"{corpus.name}/{config} has no split {part.strip()!r}; splits: {', '.join(names)}")


def dummy_examples(name: str) -> dict[str, dict]:
    """The first example of each config (default first) of its dummy build, as stored (class
    labels as their index): what the committed card shows (cards.render)."""
    corpus = registry.get(name)
    examples = {}
    with tempfile.TemporaryDirectory(prefix="corpora-card-") as cache_dir:
        for config in [corpus.default_config] + [c for c in corpus.configs if c != corpus.default_config]:
            dataset = load(name, config, dummy=True, cache_dir=cache_dir)
            split = "train" if "train" in dataset else list(dataset)[0]
            examples[config] = dataset[split].data.slice(0, 1).to_pylist()[0]
    return examples


@dataclass(frozen=True)
class SplitRows:
    corpus: str
    config: str
    split: str
    rows: int
    read: int
    official: int | None  # the official size (None: a dummy build, or unknown)
    differs: bool = False  # rows differ from the official size (a build with --allow-modified-sources)


def build(
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

    Safety (corpora.export): one build at a time per OUT/NAME (another one waits, at most
    `lock_timeout` seconds if given); the export and its datasets cache are made in a partial
    folder of this build; every check runs there, and only then is OUT/NAME swapped to it in one
    step. A failed or interrupted build leaves the previous export as it was.
    """
    corpus = registry.get(name)
    configs = configs or corpus.configs
    for config in configs:
        _check_config(corpus, config)
    out = Path(out)
    target = out / name
    given = Path(data_dir) if data_dir is not None else (corpus.dummy_dir if dummy else None)
    if given is not None:
        export.check_no_overlap(target, [given])  # before any work: the swap would delete them
    export.prepare_out(out)
    with export.exclusive(target, lock_timeout):
        export.repair_and_clean(target)
        local = sources.resolve_data_dir(corpus, data_dir, dummy, configs)
        files = sources.local_files(corpus, local, configs, sources.download_config())
        export.check_no_overlap(target, list(files.values()))
        if not dummy:
            sources.check(corpus, files, local, allow_modified_sources)
        workspace = export.new_workspace(target)
        try:
            partial = workspace / name
            report, read = export_into(corpus, partial, workspace / "cache", configs, local, files, num_proc,
                                       dummy, data_dir, allow_modified_sources, repo_id)
            counts = reload_counts(partial, configs, workspace / "cache")
            if compare_to is not None:  # every check passed: what the swap is about to change
                print(diff.summary(Path(compare_to) / name, partial, name, configs, target))
            export.swap_in(partial, target)
        except Exception as error:
            located = _located(error, target)
            if located is None:
                raise
            raise located from error
        finally:
            shutil.rmtree(workspace, ignore_errors=True)  # the cache, or half an export
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
        builder = corpus.builder(config, local, cache_dir, writer_batch_size=row_group_rows(corpus, features))
        # Parquet straight from the builder: the export is these files, renamed. Except
        # for images, whose local paths datasets' Parquet writer cuts to the file name.
        file_format = "arrow" if has_media(features) else "parquet"
        export.pause_at("generating")
        # The source records are counted in a second thread while the builder runs: both spend
        # their time in Arrow and zlib, which release the GIL, and the count is a fifth of a
        # summaries build (bench/caption_contest_build.py: build_summaries against
        # build_summaries_without_count). Not beside worker processes: a process must not be
        # forked while another of its threads runs.
        with ThreadPoolExecutor(max_workers=1) as pool:
            counting = pool.submit(count_source_records, corpus, config, files) if (num_proc or 1) <= 1 else None
            builder.download_and_prepare(
                num_proc=num_proc,
                download_config=sources.download_config(),
                file_format=file_format,
                max_shard_size=MAX_SHARD_BYTES,
            )
            read = counting.result() if counting else count_source_records(corpus, config, files)
        account_for_rows(corpus, config, builder.info, read)
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
    export.pause_at("writing")
    if not dummy and not allow_modified_sources:
        check_official_sizes(corpus, infos)
    built_from = describe_sources(corpus, data_dir, dummy, allow_modified_sources, infos)
    croissant.write(corpus, partial, cards.card_source(corpus), configs, repo_id)
    cards.write_export_card(corpus, infos, partial / "README.md", repo_id, report, built_from)
    return report, {config: report[config].read for config in configs}


def _located(error: BaseException, target: Path) -> OSError | None:
    """A full disk reported without a file (datasets and pyarrow write through file objects)
    is about the export: the same error, naming OUT/NAME. None for any other error."""
    cause = error.__cause__ if type(error).__name__ == "DatasetGenerationError" else error
    if isinstance(cause, OSError) and cause.filename is None and cause.errno in (errno.ENOSPC, errno.EDQUOT):
        return OSError(cause.errno, os.strerror(cause.errno), str(target))
    return None


def count_source_records(corpus: registry.Corpus, config: str, files) -> dict[str, int]:
    """Source records per split, as the loader's `_count_source_records` counts them: apart from
    the code that types the records, though some loaders share their file reader with it (each
    one's docstring says how it counts)."""
    return {
        split: corpus.module._count_source_records(config, split, [str(files[path]) for path in paths])
        for split, paths in corpus.module._FILES[config].items()
    }


def account_for_rows(corpus: registry.Corpus, config: str, info: datasets.DatasetInfo, read: dict[str, int]) -> None:
    """A split whose example count differs from its source records is an error (a record lost
    or invented)."""
    wrong = []
    for split, records in read.items():
        written = info.splits[split].num_examples if split in info.splits else 0
        if written != records:
            wrong.append(f"{config}/{split}: {records:,} source records read, {written:,} examples written")
    if wrong:
        raise CorporaError(f"{corpus.name}: rows in != rows out: " + "; ".join(wrong))


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


def row_group_rows(corpus: registry.Corpus, features) -> int | None:
    """Rows per Parquet row group of the export. Arrow builders yield big tables: row groups of
    up to 100,000 rows write and read much faster than datasets' default of 1,000 (and stay
    far below the Hub's 100 MB per row group at these corpora's row sizes). Builders that yield
    examples buffer a batch as Python objects, so they keep the default, as media do."""
    arrow = issubclass(corpus.builder_class, datasets.ArrowBasedBuilder)
    return 100_000 if arrow and not has_media(features) else None


def has_media(feature) -> bool:
    """Whether a feature, nested ones included, is an image or audio."""
    if isinstance(feature, (datasets.Image, datasets.Audio)):
        return True
    if isinstance(feature, dict):
        return any(has_media(sub) for sub in feature.values())
    item = list_item(feature)
    return item is not None and has_media(item)


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
    """The first row of a split as stored (class labels as their index, images as bytes)."""
    parquet = pyarrow.parquet.ParquetFile(paths[0])
    return next(parquet.iter_batches(batch_size=1)).to_pylist()[0]


def describe_sources(corpus: registry.Corpus, data_dir, dummy: bool, allow_modified_sources: bool, infos=None) -> str:
    """What a build read, in words for its card (never a local path), with the split sizes that
    differ from the official ones."""
    if dummy:
        return f"the dummy data of `dummy_data/{corpus.name}/` (not the real corpus)"
    release = "the pinned release files" if not allow_modified_sources else "files that may differ from the release"
    where = "a local copy" if data_dir is not None else "the pinned URLs"
    checked = "size and sha256 checked" if not allow_modified_sources else "built with --allow-modified-sources"
    described = f"{release}, read from {where} ({checked}; see Source files)"
    differing = differing_sizes(corpus, infos or {})
    if differing:
        described += "; split sizes that differ from the official ones: " + ", ".join(differing)
    return described


def differing_sizes(corpus: registry.Corpus, infos: dict[str, datasets.DatasetInfo]) -> list[str]:
    """"config/split: N rows (official M)" for each split whose size is not the official one."""
    found = []
    for config, info in infos.items():
        built = {split: s.num_examples for split, s in (info.splits or {}).items()}
        for split, official in corpus.split_sizes[config].items():
            if official is not None and built.get(split) != official:
                rows = "missing" if split not in built else f"{built[split]:,} rows"
                found.append(f"{config}/{split}: {rows} (official {official:,})")
    return found


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


def check_official_sizes(corpus: registry.Corpus, infos: dict[str, datasets.DatasetInfo]) -> None:
    """Stop unless every split has its official size (an unknown official size is not compared)."""
    wrong = differing_sizes(corpus, infos)
    if wrong:
        raise CorporaError(
            f"{corpus.name}: split sizes differ from the official ones: {shorten(wrong, 5, '; ')}. "
            "To build a fixed, extended or cut copy anyway, use --allow-modified-sources "
            "(allow_modified_sources=True in Python)"
        )


def _check_config(corpus: registry.Corpus, config: str | None) -> None:
    if config is not None and config not in corpus.configs:
        raise CorporaError(f"{corpus.name} has no config {config!r}; configs: {', '.join(corpus.configs)}")

