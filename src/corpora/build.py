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
    compare_to=None,
) -> list[SplitRows]:
    """Write OUT/NAME/README.md and OUT/NAME/<config>/<split>-0000i-of-0000n.parquet.

    Builds from real sources must read the recorded release (no Git LFS pointers; checksums.tsv)
    and give the official split sizes; `allow_modified_sources` lifts both (a fixed, extended or
    cut copy: the sizes are reported beside the official ones, in the rows returned and the
    card). Every split must hold as many examples as the loader's own count of source records,
    made apart from the code that types the records (rows in = rows out).
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
    files = sources.local_files(corpus, local, configs, sources.download_config())
    if not dummy:
        sources.check(corpus, files, local, allow_modified_sources)
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
                        download_config=sources.download_config(),
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
            if not dummy and not allow_modified_sources:
                check_official_sizes(corpus, infos)
            built_from = describe_sources(corpus, data_dir, dummy, allow_modified_sources, infos)
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
        rows = []
        for config, splits in reload_counts(target, configs, cache_dir).items():
            for split, count in splits.items():
                official = None if dummy else corpus.split_sizes[config].get(split)
                differs = official is not None and official != count
                rows.append(SplitRows(name, config, split, count, report[config].read[split], official, differs))
        return rows


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

