"""Cards: generated from dataset_cards/<name>.yaml + the builder, checked like CI checks them.

The generic tests check the card of every corpus of the collection; the others run on the example
corpus (tests/example_collection), whose figures can be read off its files."""

import json

import pytest
import yaml
from datasets.info import DatasetInfosDict
from huggingface_hub import DatasetCard

from corpora import cards
from corpora import prepare
from corpora import registry
from corpora.cli import main
from corpora.errors import CorporaError
from helpers import EXAMPLE
from helpers import edit_source


@pytest.mark.both_legs  # the YAML header comes from datasets' own classes, which differ between versions
@pytest.mark.parametrize("name", registry.names())
def test_committed_card_is_what_the_sources_render(name):
    assert cards.check(registry.get(name), prepare.dummy_examples(registry.get(name))) is None, f"run `corpora card {name}`"


@pytest.mark.both_legs
@pytest.mark.usefixtures("example_collection")
def test_the_example_corpus_card_is_what_the_sources_render():
    # The toolkit tests read the example's committed card: `make cards` renders it too.
    assert cards.check(registry.get(EXAMPLE), prepare.dummy_examples(registry.get(EXAMPLE))) is None, (
        f"run `CORPORA_ROOT=tests/example_collection corpora card {EXAMPLE}` (or `make cards`)"
    )


@pytest.mark.parametrize("name", registry.names())
def test_card_metadata_follows_the_hub_conventions(name):
    corpus = registry.get(name)
    card = DatasetCard.load(corpus.card_path)  # huggingface_hub's own parser and validator
    metadata = card.data.to_dict()
    source = yaml.safe_load(corpus.card_source.read_text())
    # taken from the loader, written once: one license, or the list of its configs' licenses
    licenses = list(dict.fromkeys(corpus.license_of(config) for config in corpus.configs))
    assert metadata["license"] == (licenses[0] if len(licenses) == 1 else licenses)
    assert "license" not in source and "summary" not in source
    assert metadata["pretty_name"] == source["pretty_name"]
    assert f"\n# {source['pretty_name']}\n" in card.text  # the title
    assert metadata["size_categories"] == [cards.size_category(corpus)]
    # configs point at the Parquet export, in name order as datasets writes them, the default marked
    assert [c["config_name"] for c in metadata["configs"]] == sorted(corpus.configs)
    assert [c["config_name"] for c in metadata["configs"] if c.get("default")] == [corpus.default_config]
    # dataset_info carries exactly the builder's features and the official split sizes, which
    # datasets 3.x checks a loading script's builds against (none where an official size is unknown)
    infos = DatasetInfosDict.from_dataset_card_data(card.data)
    for config in corpus.configs:
        assert infos[config].features == corpus.features(config)
        official = corpus.split_sizes[config]
        recorded = {split: s.num_examples for split, s in (infos[config].splits or {}).items()}
        assert recorded == ({} if None in official.values() else official)
    assert "[More Information Needed]" not in card.text


@pytest.mark.usefixtures("example_collection")
def test_size_category_comes_from_the_official_sizes(monkeypatch):
    corpus = registry.get(EXAMPLE)
    # The largest config: ratings, 30 + 7 + 10 = 47 official rows (the raters' size is unknown).
    assert cards.size_category(corpus) == "n<1K"
    # The official sizes decide, not the dummy data's (10 / 5 / 6 ratings): a release of 10,000
    # ratings is "10K<n<100K", one of 9,999 "1K<n<10K"; an unknown size counts for nothing.
    monkeypatch.setattr(corpus.config("ratings"), "split_sizes", {"train": 9_000, "validation": 500, "test": 500})
    assert cards.size_category(corpus) == "10K<n<100K"
    monkeypatch.setattr(corpus.config("ratings"), "split_sizes", {"train": 9_000, "validation": 499, "test": 500})
    assert cards.size_category(corpus) == "1K<n<10K"
    monkeypatch.setattr(corpus.config("ratings"), "split_sizes", {"train": None, "validation": 7, "test": 10})
    assert cards.size_category(corpus) == "n<1K"


@pytest.mark.parametrize(
    "change,message",
    [
        (lambda s: s["fields"].pop("years_rating"), "field 'years_rating' has no description in fields:"),
        (lambda s: s["fields"].update(score_delta="x"), "fields: 'score_delta' is not a field of any config"),
        (lambda s: s.update(license="mit"), "keys missing [], unknown ['license']"),
        (lambda s: s["released"].update(date="June 2020"), "released: date 'June 2020' is not a YYYY-MM-DD date"),
        (lambda s: s["config_notes"].update(sentence="x"), "config_notes: 'sentence' is not a config"),
        (lambda s: s.update(task_categories=["intent-classification"]),
         "task_categories: 'intent-classification' is not in the Hub's task_categories vocabulary"),
        (lambda s: s.update(language=["english"]), "language: 'english' is not in the Hub's languages vocabulary"),
        (lambda s: s.update(biases="[More Information Needed]"), "the card still says '[More Information Needed]'"),
        (lambda s: s.pop("curators"), "keys missing ['curators'], unknown []"),
        (lambda s: s.update(biases=[{"only": ["sentence"], "text": "x"}]),
         "biases: only: ['sentence'] must list configs of example_ratings"),
        (lambda s: s.update(tags=[{"only": ["rating"], "text": "x"}]),
         "tags: only: ['rating'] must list configs of example_ratings"),
        (lambda s: s.update(biases=[{"only": ["ratings"], "txt": "x"}]),
         "biases: a per-config part has the keys only: and text:, not ['only', 'txt']"),
        (lambda s: s.update(biases=["Shared.", {"only": ["ratings"], "text": "x"}]), None),
        (lambda s: s.update(biases=[{"only": ["ratings"], "text": "x"}]), "biases: says nothing about config 'sentences'"),
        (lambda s: s["fields"].update(text={"only": ["ratings"], "text": "x"}),
         "fields: 'text' says nothing about config 'sentences'"),
    ],
)
def test_card_errors(repo_copy, change, message):
    edit_source(repo_copy, change)
    if message is None:  # a right per-config part, about a config the card holds: rendered
        assert "### Discussion of Biases\n\nShared. x\n" in cards.render(registry.get(EXAMPLE), {})
        return
    with pytest.raises(CorporaError) as caught:
        cards.render(registry.get(EXAMPLE), {})
    assert message in str(caught.value)


def test_card_check_reports_a_hand_edit(repo_copy, capsys):
    card = repo_copy / "loaders" / EXAMPLE / "README.md"
    card.write_text(card.read_text().replace("## Errata", "## Known issues"))
    assert main(["card", EXAMPLE, "--check"]) == 1
    out, err = capsys.readouterr()
    assert "-## Known issues\n+## Errata\n" in out
    assert err.endswith("README.md of example_ratings is out of date: run `corpora card example_ratings`\n")
    assert main(["card", EXAMPLE]) == 0
    assert cards.check(registry.get(EXAMPLE), prepare.dummy_examples(registry.get(EXAMPLE))) is None


@pytest.mark.both_legs
@pytest.mark.usefixtures("example_collection")
def test_export_card_has_the_build_split_sizes(dummy_export):
    metadata = cards.read_metadata(dummy_export(EXAMPLE) / "README.md")
    splits = {
        info["config_name"]: {s["name"]: s["num_examples"] for s in info["splits"]} for info in metadata["dataset_info"]
    }
    # The dummy data's sizes (dummy_data/example_ratings/expected_counts.json), not the official
    # 12 / 3 / 4 and 30 / 7 / 10; the raters, of unknown official size, have theirs too.
    assert splits == {
        "sentences": {"train": 4, "validation": 2, "test": 2},
        "ratings": {"train": 10, "validation": 5, "test": 6},
        "raters": {"train": 3},
    }


@pytest.mark.usefixtures("example_collection")
def test_the_export_card_says_how_to_load_it_where_it_is_read(dummy_export):
    text = (dummy_export(EXAMPLE) / "README.md").read_text()
    how = text.split("## How to Load", 1)[1].split("### Source files", 1)[0]
    assert f'load_dataset("path/to/{EXAMPLE}", "sentences")' in how  # the folder (built into an absolute --out)
    assert "installed from a clone of its repository with\n   `pip install .`" in how
    assert f'corpora.load("{EXAMPLE}", config="sentences")' in how
    assert "trust_remote_code" not in how and "loaders/" not in how  # no script on the Hub


@pytest.mark.parametrize("out,shown", [("build", "build/x"), ("./exports/v2", "exports/v2/x"), ("/srv/data", "path/to/x"),
                                       ("../elsewhere", "path/to/x")])
def test_the_card_names_a_relative_export_folder_as_given_and_never_an_absolute_one(out, shown):
    from pathlib import Path

    from corpora import pipeline

    assert pipeline.shown_path(Path(out), "x") == shown


@pytest.mark.parametrize("name", registry.names())
def test_card_example_is_the_first_dummy_training_example(name, dummy_build):
    corpus = registry.get(name)
    text = corpus.card_path.read_text()
    block = text.split("```json\n", 1)[1].split("\n```", 1)[0]
    first = dummy_build(name, corpus.default_config)["train"].data.slice(0, 1).to_pylist()[0]
    named = cards.with_label_names(first, corpus.features(corpus.default_config))  # as a person reads them
    assert json.loads(block) == json.loads(json.dumps(cards.cut(named), default=str))


def test_class_labels_are_shown_by_name_nested_ones_included():
    import datasets

    features = datasets.Features({
        "label": datasets.ClassLabel(names=["no", "yes"]),
        "labels": datasets.Sequence(datasets.ClassLabel(names=["a", "b"])),
        "turns": datasets.Sequence({"act": datasets.ClassLabel(names=["ask", "tell"]), "text": datasets.Value("string")}),
        "nested": {"inner": [datasets.ClassLabel(names=["x", "y"])]},
    })
    stored = {"label": 1, "labels": [0, 1, 1], "turns": {"act": [1, 0], "text": ["hi", "yo"]}, "nested": {"inner": [1]}}
    assert cards.with_label_names(stored, features) == {
        "label": "yes", "labels": ["a", "b", "b"], "turns": {"act": ["tell", "ask"], "text": ["hi", "yo"]},
        "nested": {"inner": ["y"]},
    }
    assert cards.with_label_names({"label": None}, features) == {"label": None}


@pytest.mark.usefixtures("example_collection")
def test_the_card_takes_each_fact_from_the_loader():
    corpus = registry.get(EXAMPLE)
    text = corpus.card_path.read_text()
    summary = " ".join(corpus.description.split())
    assert summary.startswith("Short English and German sentences, each rated on a five-point scale from unclear to clear")
    assert " ".join(text.split("### Dataset Summary\n", 1)[1].split("###", 1)[0].split()) == summary
    assert [config.name for config in corpus.builder_class.BUILDER_CONFIGS] == ["sentences", "ratings", "raters"]
    for config in corpus.builder_class.BUILDER_CONFIGS:
        assert f"| `{config.name}` | " in text and config.description in text
    assert "| `raters` |  | One example per rater. |" in text
