"""`corpora build`: a corpus of this collection written as a Hub-ready export folder through the shared
pipeline (pipeline.py), with what the corpora add: source records counted apart (rows in = rows out), the
official sizes, the card source's figures, and the card and croissant.json of cards/."""

from __future__ import annotations

from pathlib import Path

import datasets

from corpora import pipeline
from corpora import prepare
from corpora.cards import croissant
from corpora.cards import readme
from corpora.cards import source
from corpora.errors import CorporaError


class CorpusParts(pipeline.Parts):
    """A corpus's part of an export: the request resolved once, asked by the pipeline at each step."""

    def __init__(self, request: prepare.Request):
        self.request, self.corpus = request, request.corpus
        self.configs = list(request.configs)
        self.card: dict = {}  # the card source, settled for these configs (start)

    def find_sources(self):
        return prepare.find_sources(self.request).with_differences()

    def make_builder(self, config: str, sources, cache_dir: Path) -> datasets.DatasetBuilder:
        return self.corpus.builder(config, sources.folder, cache_dir)

    def start(self, sources) -> None:
        # The card source read, checked and settled once: the figures counted, the card and croissant.json.
        self.card = source.export_source(self.corpus, self.configs)

    def generate(self, builder, config: str, sources, num_proc) -> dict[str, int]:
        return prepare.generate(self.request, config, builder, sources)

    def figures(self, config: str) -> list:
        return [figure for figure in self.card["declared_figures"] if config in figure.configs]

    def official(self, config: str, split: str) -> int | None:
        return None if self.request.dummy else self.corpus.split_sizes[config].get(split)

    def write_card(self, folder: Path, infos, report, sources, repo_id, export_path: str) -> None:
        corpus = self.corpus
        notice = readme.not_the_release(corpus, sources)
        origin = sources.origin()  # the pinned URLs, their records and the provenance: once, for both files
        croissant.write_json(corpus, folder, self.card, self.configs, origin, repo_id, notice)
        built_from = readme.built_from(corpus, sources, infos)
        readme.write_export_card(corpus, self.card, infos, folder / "README.md", report, origin, repo_id, built_from,
                                 notice, export_path)


def plan(request: prepare.Request) -> pipeline.Export:
    """The export of a corpus's request, planned once."""
    corpus = request.corpus
    if request.config_kwargs:
        raise CorporaError(f"{corpus.name}: an export holds whole configs; config parameters are for corpora.load")
    local_copy = request.data_dir if request.data_dir is not None else (corpus.dummy_dir if request.dummy else None)
    return pipeline.Export(corpus.name, tuple(request.configs), CorpusParts(request), known=tuple(corpus.configs),
                           data_dir=request.data_dir, local_copy=local_copy, num_proc=request.num_proc)


def export(request: prepare.Request, out, repo_id: str | None = None, lock_timeout: float | None = None,
           compare_to=None, drop_other_configs: bool = False, hooks=None) -> list[pipeline.SplitRows]:
    """Write OUT/NAME of a corpus (pipeline.run): its Parquet, README.md and croissant.json."""
    return pipeline.run(plan(request), out, repo_id, lock_timeout, compare_to, drop_other_configs, hooks)
