"""The one way a config is prepared, with every check: load, build, card, validate and push go through it."""

from __future__ import annotations

import os
import re
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

import datasets

from corpora import parquet_files
from corpora import registry
from corpora.errors import CorporaError
from corpora.errors import shorten
from corpora.loader_shared.builder_base import SourceConfig
from corpora.sources import Sources
from corpora.sources import find


@dataclass(frozen=True)
class Request:
    """A corpus, its configs (default: all) and its source: the pinned URLs, `data_dir` or the dummy data."""

    corpus: registry.Corpus
    configs: tuple[str, ...] = ()
    data_dir: Path | None = None
    dummy: bool = False
    allow_modified_sources: bool = False
    num_proc: int | None = None
    config_kwargs: dict = field(default_factory=dict)  # parameters of the config (e.g. contests=[508])

    def __post_init__(self):
        corpus = self.corpus
        if self.dummy and self.data_dir is not None:
            raise CorporaError("give either a data_dir or dummy=True, not both")
        if self.data_dir is not None:
            object.__setattr__(self, "data_dir", Path(self.data_dir))
        for config in self.configs or ():
            corpus.config(config)  # one that is not the loader's is said here
        # `--config a --config a` builds a once
        object.__setattr__(self, "configs", tuple(dict.fromkeys(self.configs or corpus.configs)))

    @property
    def name(self) -> str:
        return self.corpus.name


def find_sources(request: Request) -> Sources:
    """The request's source files, found and checked (sources.find)."""
    return find(request.corpus, list(request.configs), request.data_dir, request.dummy,
                request.allow_modified_sources, partial=bool(request.config_kwargs))


@dataclass(frozen=True)
class Prepared:
    builder: datasets.DatasetBuilder
    read: dict[str, int]  # source records per split, as the loader counts them apart from its typing


def prepare_config(request: Request, config: str, sources: Sources, cache_dir) -> Prepared:
    """One config built with rows in = rows out (not for config parameters nor a cached split) and,
    from the release, the official sizes."""
    builder = request.corpus.builder(config, sources.folder, cache_dir, **request.config_kwargs)
    return Prepared(builder, generate(request, config, builder, sources))


def generate(request: Request, config: str, builder: datasets.DatasetBuilder, sources: Sources) -> dict[str, int]:
    """`builder` of `config` prepared with every check; returns the source records read per split."""
    corpus = request.corpus
    facts = corpus.config(config)  # its files, record counter and official sizes: asked once, passed on
    cached = os.path.isfile(os.path.join(builder.cache_dir, "dataset_info.json"))
    counted = not request.config_kwargs and not cached
    # Counted in a thread beside the builder (Arrow and zlib release the GIL); never beside forked workers.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="count-source-records") as pool:
        beside = counted and (request.num_proc or 1) <= 1
        counting = pool.submit(count_source_records, facts, sources.files) if beside else None
        builder.download_and_prepare(num_proc=request.num_proc, max_shard_size=parquet_files.MAX_SHARD_BYTES)
        read = counting.result() if beside else count_source_records(facts, sources.files) if counted else {}
    if counted:
        account_for_rows(corpus.name, config, builder.info, read)
    if sources.release and not request.config_kwargs:
        check_official_sizes(corpus.name, {config: dict(facts.split_sizes)}, {config: builder.info})
    return read


def check_split(corpus: registry.Corpus, config: str, split: str | None, streaming: bool) -> None:
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


def dummy_build(corpus: registry.Corpus, config: str, cache_dir) -> datasets.DatasetDict:
    """A config of the dummy data, prepared with every check (`corpora.load(name, config, dummy=True)`)."""
    request = Request(corpus, (config,), dummy=True)
    return prepare_config(request, config, find_sources(request), cache_dir).builder.as_dataset()


def dummy_examples(corpus: registry.Corpus) -> dict[str, dict]:
    """The first stored example of each config's dummy build (default first): what the card shows."""
    examples = {}
    with tempfile.TemporaryDirectory(prefix="corpora-card-") as cache_dir:
        for config in [corpus.default_config] + [c for c in corpus.configs if c != corpus.default_config]:
            dataset = dummy_build(corpus, config, cache_dir)
            split = "train" if "train" in dataset else list(dataset)[0]
            examples[config] = dataset[split].data.slice(0, 1).to_pylist()[0]
    return examples


def count_source_records(config: SourceConfig, files) -> dict[str, int]:
    """Source records per split, counted by the loader apart from the code that types them."""
    return {
        split: config.count_source_records(split, [str(files[path]) for path in paths])
        for split, paths in config.files.items()
    }


def account_for_rows(name: str, config: str, info: datasets.DatasetInfo, read: dict[str, int]) -> None:
    """Stop if a split's examples differ from its source records (one lost or invented)."""
    wrong = []
    for split, records in read.items():
        written = info.splits[split].num_examples if split in info.splits else 0
        if written != records:
            wrong.append(f"{config}/{split}: {records:,} source records read, {written:,} examples written")
    if wrong:
        raise CorporaError(f"{name}: rows in != rows out: " + "; ".join(wrong))


def differing_sizes(split_sizes: dict[str, dict], infos: dict[str, datasets.DatasetInfo]) -> list[str]:
    """"config/split: N rows (official M)" for each split whose size is not the official one (`split_sizes`)."""
    found = []
    for config, info in infos.items():
        built = {split: s.num_examples for split, s in (info.splits or {}).items()}
        for split, official in split_sizes[config].items():
            if official is not None and built.get(split) != official:
                rows = "missing" if split not in built else f"{built[split]:,} rows"
                found.append(f"{config}/{split}: {rows} (official {official:,})")
    return found


def check_official_sizes(name: str, split_sizes: dict[str, dict], infos: dict[str, datasets.DatasetInfo]) -> None:
    """Stop unless every split has its official size (an unknown official size is not compared)."""
    wrong = differing_sizes(split_sizes, infos)
    if wrong:
        raise CorporaError(
            f"{name}: split sizes differ from the official ones: {shorten(wrong, 5, '; ')}. "
            "To build a fixed, extended or cut copy anyway, use --allow-modified-sources "
            "(allow_modified_sources=True in Python)"
        )

