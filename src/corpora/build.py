"""Build corpora with their builders and export them as Hub-ready folders of Parquet files."""

from __future__ import annotations

import math
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
from corpora import diff
from corpora import registry
from corpora import sources
from corpora import stats
from corpora.errors import CorporaError
from corpora.feature_types import list_item

# Shards stay well under the Hub's recommended file size.
MAX_SHARD_BYTES = 500 * 1024 * 1024


def load(
    name: str,
    config: str | None = None,
    data_dir=None,
    dummy: bool = False,
    streaming: bool = False,
    num_proc: int | None = None,
    cache_dir=None,
    **config_kwargs,
):
    """A DatasetDict (or IterableDatasetDict when streaming) built by the corpus's builder.

    Works on datasets 3.6 and 5.x: the builder class is used directly, no script loading.
    `config_kwargs` set parameters of the config (e.g. `contests=[508]`); the loader itself then
    checks that the files it needs are there.
    """
    corpus = registry.get(name)
    _check_config(corpus, config)
    # With config parameters the loader may need only some files; it checks them itself.
    needed = [] if config_kwargs else [config or corpus.default_config]
    local = sources.resolve_data_dir(corpus, data_dir, dummy, needed)
    builder = corpus.builder(config, local, cache_dir, **config_kwargs)
    if streaming:
        return builder.as_streaming_dataset()
    builder.download_and_prepare(num_proc=num_proc, download_config=_download_config())
    return builder.as_dataset()


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
    official: int | None


def build(
    name: str,
    out,
    configs: list[str] | None = None,
    data_dir=None,
    dummy: bool = False,
    num_proc: int | None = None,
    allow_modified_sources: bool = False,
    repo_id: str | None = None,
    compare_to=None,
) -> list[SplitRows]:
    """Write OUT/NAME/README.md and OUT/NAME/<config>/<split>-0000i-of-0000n.parquet.

    Builds from real sources must read the recorded release (checksums.tsv) and give the official
    split sizes; `allow_modified_sources` lifts only the first check. Every split must hold as
    many examples as the loader's own count of source records, made apart from the code that
    types the records (rows in = rows out).
    `repo_id` is the Hub repository the export is for, if any (its card says how to load it from
    there). The export is written beside OUT/NAME and swapped in only when complete, so a failed
    or interrupted build leaves the previous export as it was. The rows reported are those of
    the files `load_dataset` resolves from the exported card (`reload_counts`). With `compare_to`
    (an export folder: COMPARE_TO/NAME is the old export, so OUT itself means the export being
    replaced), what the build changes in the rows is printed before the swap (`corpora diff`).
    """
    corpus = registry.get(name)
    configs = configs or corpus.configs
    for config in configs:
        _check_config(corpus, config)
    local = sources.resolve_data_dir(corpus, data_dir, dummy, configs)
    files = sources.local_files(corpus, local, configs, _download_config())
    if not dummy and not allow_modified_sources:
        sources.verify(corpus, files)
    target = Path(out) / name
    partial = Path(out) / f".{name}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    with tempfile.TemporaryDirectory(prefix="corpora-") as cache_dir:
        try:
            infos, report = {}, {}
            for config in configs:
                features = corpus.features(config)
                builder = corpus.builder(config, local, cache_dir, writer_batch_size=row_group_rows(corpus, features))
                # Parquet straight from the builder: the export is these files, renamed. Except
                # for images, whose local paths datasets' Parquet writer cuts to the file name.
                file_format = "arrow" if has_media(features) else "parquet"
                # The source records are counted in a second thread while the builder runs
                # (both spend their time in Arrow and zlib, which release the GIL); not beside
                # worker processes, which must not be forked while another thread runs.
                parallel = num_proc is None or num_proc <= 1
                with ThreadPoolExecutor(max_workers=1) as pool:
                    counting = pool.submit(count_source_records, corpus, config, files) if parallel else None
                    builder.download_and_prepare(
                        num_proc=num_proc,
                        download_config=_download_config(),
                        file_format=file_format,
                        max_shard_size=MAX_SHARD_BYTES,
                    )
                    read = counting.result() if parallel else count_source_records(corpus, config, files)
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
            if not dummy:
                check_official_sizes(corpus, infos)
            built_from = describe_sources(corpus, data_dir, dummy, allow_modified_sources)
            # croissant.json (which hashes every Parquet file) is written alongside the card.
            with ThreadPoolExecutor(max_workers=1) as pool:
                describing = pool.submit(croissant.write, corpus, partial, cards.card_source(corpus), configs, repo_id)
                cards.write_export_card(corpus, infos, partial / "README.md", repo_id, report, built_from)
                describing.result()
            if compare_to is not None:  # every check passed: what the swap is about to change
                print(diff.summary(Path(compare_to) / name, partial, name, configs, target))
        except BaseException:
            shutil.rmtree(partial, ignore_errors=True)  # never leave half an export behind
            raise
        swap_into_place(partial, target)
        return [
            SplitRows(name, config, split, rows, report[config].read[split],
                      None if dummy else corpus.split_sizes[config].get(split))
            for config, splits in reload_counts(target, configs, cache_dir).items()
            for split, rows in splits.items()
        ]


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
    prepared = Path(builder._output_dir)
    written = {}
    for split in builder.info.splits:
        pattern = re.compile(rf"{re.escape(builder.dataset_name)}-{re.escape(split)}(-\d{{5}}-of-\d{{5}})?\.parquet")
        shards = sorted(p for p in prepared.iterdir() if pattern.fullmatch(p.name))
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


def describe_sources(corpus: registry.Corpus, data_dir, dummy: bool, allow_modified_sources: bool) -> str:
    """What a build read, in words for its card (never a local path)."""
    if dummy:
        return f"the dummy data of `dummy_data/{corpus.name}/` (not the real corpus)"
    release = "the pinned release files" if not allow_modified_sources else "files that may differ from the release"
    where = "a local copy" if data_dir is not None else "the pinned URLs"
    checked = "size and sha256 checked" if not allow_modified_sources else "built with --allow-modified-sources"
    return f"{release}, read from {where} ({checked}; see Source files)"


def swap_into_place(partial: Path, target: Path) -> None:
    """Replace `target` by `partial` with renames only, so there is always a complete export."""
    previous = target.with_name(f".{target.name}.previous")
    shutil.rmtree(previous, ignore_errors=True)
    if target.exists():
        target.rename(previous)
    partial.rename(target)
    shutil.rmtree(previous, ignore_errors=True)


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
    wrong = []
    for config, info in infos.items():
        built = {split: split_info.num_examples for split, split_info in (info.splits or {}).items()}
        for split, official in corpus.split_sizes[config].items():
            if official is None:  # unknown official size: nothing to compare
                continue
            if built.get(split) != official:
                rows = "missing" if split not in built else f"{built[split]:,} rows"
                wrong.append(f"{config}/{split}: {rows}, official {official:,}")
    if wrong:
        raise CorporaError(f"{corpus.name}: split sizes differ from the official ones: " + "; ".join(wrong))


def _check_config(corpus: registry.Corpus, config: str | None) -> None:
    if config is not None and config not in corpus.configs:
        raise CorporaError(f"{corpus.name} has no config {config!r}; configs: {', '.join(corpus.configs)}")


def _download_config() -> datasets.DownloadConfig:
    # Downloads are cached in the usual place even when the Arrow cache is temporary.
    return datasets.DownloadConfig(cache_dir=datasets.config.DOWNLOADED_DATASETS_PATH)
