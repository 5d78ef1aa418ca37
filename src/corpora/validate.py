"""`corpora validate`: what CI checks for each corpus folder."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import datasets

from corpora import build
from corpora import cards
from corpora import registry
from corpora.errors import CorporaError


def validate(name: str) -> Iterator[tuple[str, str | None]]:
    """Yield (check, None if it passed else what is wrong) for one corpus."""
    corpus = registry.get(name)
    yield "card", _card_problem(corpus)
    with tempfile.TemporaryDirectory(prefix="corpora-validate-") as tmp:
        prepared = {}
        for config in corpus.configs:
            try:
                prepared[config] = build.load(name, config, dummy=True, cache_dir=f"{tmp}/cache-{config}")
            except Exception as error:  # noqa: BLE001 - reported, not raised: the other checks still run
                yield f"dummy build {config}", f"{type(error).__name__}: {error}"
                continue
            yield f"dummy build {config}", _count_problem(corpus, config, prepared[config])
        if len(prepared) == len(corpus.configs):
            yield "export round trip", _round_trip_problem(corpus, prepared, tmp)


def _card_problem(corpus) -> str | None:
    try:
        diff = cards.check(corpus)
    except CorporaError as error:
        return str(error)
    return None if diff is None else f"loaders/{corpus.name}/README.md is out of date: run `corpora card {corpus.name}`"


def _count_problem(corpus, config, dataset_dict) -> str | None:
    expected = corpus.expected_dummy_counts()[config]
    actual = {split: dataset_dict[split].num_rows for split in dataset_dict}
    return None if actual == expected else f"rows {actual}, dummy_data declares {expected}"


def _round_trip_problem(corpus, prepared: dict[str, datasets.DatasetDict], tmp: str) -> str | None:
    build.build(corpus.name, f"{tmp}/export", dummy=True)
    for config, dataset_dict in prepared.items():
        reloaded = datasets.load_dataset(f"{tmp}/export/{corpus.name}", config, cache_dir=f"{tmp}/reload")
        problem = compare(dataset_dict, reloaded)
        if problem:
            return f"{config}: {problem}"
    problems = cards.export_problems(corpus, Path(tmp) / "export" / corpus.name)
    return "export card: " + "; ".join(problems) if problems else None


def compare(expected: datasets.DatasetDict, actual: datasets.DatasetDict) -> str | None:
    """What differs between two DatasetDicts (splits, features, rows), or None."""
    if sorted(expected) != sorted(actual):
        return f"splits {sorted(actual)} != {sorted(expected)}"
    for split in expected:
        if actual[split].features != expected[split].features:
            return f"{split}: features {actual[split].features} != {expected[split].features}"
        if actual[split].to_list() != expected[split].to_list():
            return f"{split}: rows differ"
    return None
