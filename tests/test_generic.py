"""The same checks for every corpus x config, on its dummy data, and the module contract every
loader keeps (README, "Add a corpus")."""

import json

import datasets
import pytest

from conftest import CASES
from corpora import registry
from corpora import validate

pytestmark = pytest.mark.parametrize("name,config", CASES, ids=[f"{n}-{c}" for n, c in CASES])


def test_dummy_build_has_the_declared_rows_per_split(name, config, dummy_build):
    expected = registry.get(name).expected_dummy_counts()[config]
    dataset = dummy_build(name, config)
    assert {split: dataset[split].num_rows for split in dataset} == expected


def test_dummy_data_covers_every_official_split(name, config):
    corpus = registry.get(name)
    assert list(corpus.expected_dummy_counts()[config]) == list(corpus.split_sizes[config])


def test_features_are_the_declared_ones(name, config, dummy_build):
    declared = registry.get(name).features(config)
    for split, dataset in dummy_build(name, config).items():
        assert dataset.features == declared, split


def test_keys_are_unique_and_deterministic(name, config):
    corpus = registry.get(name)
    builder = corpus.builder(config, data_dir=corpus.dummy_dir)
    # Arrow-based builders yield (key, table) from _generate_tables, the others (key, example).
    generate = getattr(builder, "_generate_tables", None) or builder._generate_examples
    for generator in builder._split_generators(datasets.DownloadManager()):
        first = [str(key) for key, _ in generate(**generator.gen_kwargs)]
        again = [str(key) for key, _ in generate(**generator.gen_kwargs)]
        assert len(set(first)) == len(first), generator.name
        assert first == again
        assert all(str(corpus.dummy_dir) not in str(key) for key in first)


def test_no_example_is_in_two_splits(name, config, dummy_build):
    seen = {}
    for split, dataset in dummy_build(name, config).items():
        for row in dataset:
            text = json.dumps(row, sort_keys=True, default=str)
            assert text not in seen, f"{split} repeats an example of {seen.get(text)}"
            seen[text] = split


def test_streaming_yields_the_prepared_rows(name, config, dummy_build):
    from corpora import load

    streamed = load(name, config, dummy=True, streaming=True)
    prepared = dummy_build(name, config)
    assert sorted(streamed) == sorted(prepared)
    for split in prepared:
        assert list(streamed[split]) == prepared[split].to_list(), split


def test_export_reloads_with_the_same_rows_and_features(name, config, dummy_build, dummy_export, tmp_path):
    folder = dummy_export(name)
    reloaded = datasets.load_dataset(str(folder), config, cache_dir=str(tmp_path))
    assert validate.compare(dummy_build(name, config), reloaded) is None
    splits = registry.get(name).split_sizes[config]
    assert sorted(p.name for p in (folder / config).iterdir()) == sorted(
        f"{split}-00000-of-00001.parquet" for split in splits
    )
