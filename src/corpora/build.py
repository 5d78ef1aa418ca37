"""Build corpora with their builders and export them as Hub-ready folders of Parquet files."""

from __future__ import annotations

import math
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import datasets

from corpora import cards
from corpora import croissant
from corpora import registry
from corpora import sources
from corpora import stats
from corpora.errors import CorporaError

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
) -> list[SplitRows]:
    """Write OUT/NAME/README.md and OUT/NAME/<config>/<split>-0000i-of-0000n.parquet.

    Builds from real sources must read the recorded release (checksums.tsv) and give the official
    split sizes; `allow_modified_sources` lifts only the first check. Every split must hold as
    many examples as the loader's independent count of source records (rows in = rows out).
    `repo_id` is the Hub repository the export is for, if any (its card says how to load it from
    there). The export is written beside OUT/NAME and swapped in only when complete, so a failed
    or interrupted build leaves the previous export as it was; it is then reloaded with
    `load_dataset` and the rows counted there are the ones reported.
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
                builder = corpus.builder(config, local, cache_dir)
                builder.download_and_prepare(num_proc=num_proc, download_config=_download_config())
                read = account_for_rows(corpus, config, builder.info, files)
                prepared = builder.as_dataset()
                for split, dataset in prepared.items():
                    write_parquet(dataset, partial / config, split)
                infos[config] = builder.info
                report[config] = stats.ConfigReport(
                    read=read,
                    statistics={split: stats.compute(dataset) for split, dataset in prepared.items()},
                    example=cards.first_example(next(iter(prepared.values()))),
                )
            if not dummy:
                check_official_sizes(corpus, infos)
            built_from = describe_sources(corpus, data_dir, dummy, allow_modified_sources)
            cards.write_export_card(corpus, infos, partial / "README.md", repo_id, report, built_from)
            croissant.write(corpus, partial, cards.card_source(corpus), configs, repo_id)
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


def account_for_rows(corpus: registry.Corpus, config: str, info: datasets.DatasetInfo, files) -> dict[str, int]:
    """Source records per split, counted by the loader independently of its parser; a split
    whose example count differs is an error (a record lost or invented)."""
    read, wrong = {}, []
    for split, paths in corpus.module._FILES[config].items():
        read[split] = corpus.module._count_source_records(config, split, [str(files[path]) for path in paths])
        written = info.splits[split].num_examples if split in info.splits else 0
        if written != read[split]:
            wrong.append(f"{config}/{split}: {read[split]:,} source records read, {written:,} examples written")
    if wrong:
        raise CorporaError(f"{corpus.name}: rows in != rows out: " + "; ".join(wrong))
    return read


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


def write_parquet(dataset: datasets.Dataset, folder: Path, split: str) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    num_shards = max(1, math.ceil(dataset.data.nbytes / MAX_SHARD_BYTES))
    paths = []
    for index in range(num_shards):
        path = folder / f"{split}-{index:05d}-of-{num_shards:05d}.parquet"
        dataset.shard(num_shards=num_shards, index=index, contiguous=True).to_parquet(str(path))
        paths.append(path)
    return paths


def reload_counts(folder: Path, configs: list[str], cache_dir) -> dict[str, dict[str, int]]:
    """Rows per config and split, as `load_dataset(folder, config)` sees them."""
    counts = {}
    for config in configs:
        reloaded = datasets.load_dataset(str(folder), config, cache_dir=str(cache_dir))
        counts[config] = {split: reloaded[split].num_rows for split in reloaded}
    return counts


def check_official_sizes(corpus: registry.Corpus, infos: dict[str, datasets.DatasetInfo]) -> None:
    wrong = []
    for config, info in infos.items():
        built = {split: split_info.num_examples for split, split_info in (info.splits or {}).items()}
        for split, official in corpus.split_sizes[config].items():
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
