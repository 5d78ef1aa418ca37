"""An export's card and croissant.json describe the configs it holds and nothing else: the
hand-written parts about other configs (`{only: [configs], text: ...}` in dataset_cards/NAME.yaml),
their tasks and record sets are left out, and the license is that of the held configs. Real
`corpora build NAME --config C --dummy` runs of every config of every corpus, read back by
huggingface_hub and mlcroissant; the corpora's own tests check their exact licenses and tasks."""

import json
import re

import datasets
import pytest
import yaml
from huggingface_hub import DatasetCard

from corpora import cards
from corpora import prepare
from corpora import registry
from corpora import releases
from corpora import validate
from corpora.cards import croissant

mlc = pytest.importorskip("mlcroissant")

# Every config of every corpus (of a corpus with one config, the whole export).
SINGLE_CONFIGS = [(name, config) for name in registry.names() for config in registry.get(name).configs]


def parts(value):
    """Every {only: [configs], ...} part of a hand-written value, nested ones too."""
    if isinstance(value, dict) and "only" in value:
        return [value]
    if isinstance(value, dict):
        return [part for item in value.values() for part in parts(item)]
    if isinstance(value, list):
        return [part for item in value for part in parts(item)]
    return []


HEADER_LISTS = ("task_categories", "task_ids", "tags")  # lists of the card's YAML header


def prose(source: dict) -> dict:
    """The card source but the lists of the YAML header: what the card's text shows."""
    return {key: value for key, value in source.items() if key not in HEADER_LISTS}


def flat(text: str) -> str:
    return " ".join(text.split())


def named_forms(config: str, card: str, described: dict, fields: set) -> list[str]:
    """Where the card or croissant.json names `config`: as a config_name:, in a heading, backticked
    (unless a held config has a field of that name), as a record set or a file of croissant.json, or,
    a name that is no ordinary word (`upstream_xml`), anywhere as a word."""
    croissant_text = json.dumps(described, ensure_ascii=False)
    word = re.compile(rf"(?<![\w.]){re.escape(config)}(?![\w])")
    found = [f"README.md has config_name: {config}"] if re.search(rf"config_name: {re.escape(config)}$", card, re.M) else []
    found += [f"README.md heading {line!r}" for line in card.splitlines() if line.startswith("#") and word.search(line)]
    if config not in fields:
        found += [f"{where} names `{config}`" for where, text in (("README.md", card), ("croissant.json", croissant_text))
                  if f"`{config}`" in text]
    found += [f"croissant.json has the record set {r['@id']}" for r in described["recordSet"] if r["@id"] == config]
    found += [f"croissant.json has the file {d['@id']}" for d in described["distribution"]
              if d["@id"] == f"parquet-{config}" or d["@id"].startswith(f"{config}/")]
    if not config.isalpha():
        found += [f"{where} says {config}" for where, text in (("README.md", card), ("croissant.json", croissant_text))
                  if word.search(text)]
    return found


def absent_figures(corpus, held, card: str) -> list[str]:
    """The figures of the card source counted on absent configs only, shown in the card's tables."""
    source = cards.export_source(corpus, corpus.configs)
    held_whats = {figure.what for figure in source["declared_figures"] if set(figure.configs) & set(held)}
    return [f"README.md shows the figure {figure.what!r}" for figure in source["declared_figures"]
            if not set(figure.configs) & set(held) and figure.what not in held_whats
            and f"| {figure.what} |" in card]


def loader_parts(corpus) -> list[tuple[dict, tuple[str, ...]]]:
    """The parts of the loader's texts about some configs only, and where an export shows them: its
    description (the card's summary, croissant.json's description) and its release notes (the card's)."""
    notes = releases.declared(corpus) or {}
    found = [(part, ("README.md", "croissant.json")) for part in getattr(corpus.builder_class, "DESCRIPTION_PARTS", [])]
    found += [(part, ("README.md",)) for note in notes.values() for part in (note if isinstance(note, list) else [note])]
    return [(part, where) for part, where in found if isinstance(part, dict)]


def absent_mentions(corpus, held, card: str, described: dict) -> list[str]:
    """What the card or croissant.json says of configs the export does not hold: their names, the
    parts written about them alone, their record sets and figures; and the held configs' parts the card leaves out."""
    absent = [config for config in corpus.configs if config not in held]
    texts = {"README.md": flat(card), "croissant.json": flat(json.dumps(described, ensure_ascii=False))}
    fields = {name for config in held for name, _ in cards.field_rows(corpus.features(config))}
    found = [said for config in absent for said in named_forms(config, card, described, fields)]
    found += absent_figures(corpus, held, card)
    for part, shown_in in loader_parts(corpus):
        text = flat(part["text"])
        for where in shown_in:
            if set(part["only"]) & set(held):
                found += [f"{where} leaves out the loader's {text[:60].strip()!r}"] if text not in texts[where] else []
            elif text in texts[where]:
                found.append(f"{where} has the loader's {text[:60].strip()!r}")
    source = cards.card_source(corpus)
    header = yaml.safe_load(re.match(r"^---\n(.*?)\n---\n", card, re.DOTALL).group(1))
    for key in HEADER_LISTS:  # the items of the header's lists (tags: croissant.json's keywords too)
        for part in parts(source[key]):
            listed = [f"README.md {key}"] if part["text"] in (header.get(key) or []) else []
            listed += ["croissant.json keywords"] if key == "tags" and part["text"] in described["keywords"] else []
            if set(part["only"]) & set(held):
                found += [f"README.md {key} leaves out {part['text']!r}"] if not listed else []
            else:
                found += [f"{where} lists {part['text']!r}" for where in listed]
    for part in parts(prose(source)):
        text = flat(part.get("text") or part["what"])
        if set(part["only"]) & set(held):
            found += [f"README.md leaves out {text[:60].strip()!r}"] if text not in texts["README.md"] else []
        else:
            found += [f"{where} says {text[:60].strip()!r}" for where, said in texts.items() if text in said]
    return found


@pytest.mark.parametrize("name,config", SINGLE_CONFIGS)
def test_an_export_of_one_config_describes_it_alone(partial_export, name, config):
    corpus = registry.get(name)
    folder = partial_export(name, [config])
    card = DatasetCard.load(folder / "README.md")  # huggingface_hub's own parser and validator
    metadata = card.data.to_dict()
    described = json.loads((folder / "croissant.json").read_text())
    source = cards.card_source(corpus)
    assert metadata["license"] == corpus.license_of(config)
    assert described["license"] == croissant.LICENSE_URLS.get(corpus.license_of(config), corpus.license_of(config))
    assert metadata["task_categories"] == cards.items_for_configs(source["task_categories"], [config])
    assert metadata.get("task_ids", []) == cards.items_for_configs(source["task_ids"], [config])
    assert [c["config_name"] for c in metadata["configs"]] == [config]
    assert [r["@id"] for r in described["recordSet"]] == ["splits", config]
    assert absent_mentions(corpus, [config], card.content, described) == []
    scope = cards.scope(corpus, [config])
    if corpus.configs == [config]:
        assert scope is None and "This export holds only" not in card.content + described["description"]
    else:
        assert scope.startswith(f"This export holds only the config `{config}` ")
        assert scope in flat(card.content) and scope in described["description"]
    assert validate.export_problems(corpus, folder) == []
    dataset = mlc.Dataset(jsonld=str(folder / "croissant.json"))  # valid for mlcroissant, and read back
    assert sum(1 for _ in dataset.records(record_set=config)) == sum(corpus.expected_dummy_counts()[config].values())


def test_the_check_sees_what_a_renderer_that_forgets_only_would_print(partial_export, monkeypatch):
    # The first corpus and config with a text about other configs alone.
    name, config, part = next((name, config, part) for name, config in SINGLE_CONFIGS
                              for part in parts(prose(cards.card_source(registry.get(name))))
                              if config not in part["only"] and "text" in part)
    corpus = registry.get(name)
    folder = partial_export(name, [config])
    described = json.loads((folder / "croissant.json").read_text())
    card = (folder / "README.md").read_text()
    text = flat(part["text"])
    leaked = card.replace("### Languages", f"{text}\n\n### Languages")
    assert absent_mentions(corpus, [config], leaked, described) == [f"README.md says {text[:60].strip()!r}"]
    # A renderer that forgets the `only:` marks prints every part in the card of one config.
    examples = {config: prepare.dummy_examples(registry.get(name))[config]}
    infos = {config: cards.committed_infos(corpus)[config]}
    assert absent_mentions(corpus, [config], cards.render(corpus, examples, infos), described) == []
    every_part = cards.for_configs
    monkeypatch.setattr("corpora.cards.source.for_configs", lambda value, configs: every_part(value, corpus.configs))
    found = absent_mentions(corpus, [config], cards.render(corpus, examples, infos), described)
    assert f"README.md says {text[:60].strip()!r}" in found


CLASS_LABEL_TEXTS = ("### Class Labels Outside `datasets`", "Class labels come back as their index",
                     "class labels shown by their names")


@pytest.mark.parametrize("name,config", SINGLE_CONFIGS)
def test_only_an_export_with_class_labels_says_how_to_read_them(partial_export, name, config):
    card = (partial_export(name, [config]) / "README.md").read_text()
    held = cards.has_class_labels(registry.get(name).features(config))
    assert [text in card for text in CLASS_LABEL_TEXTS] == [held] * 3


def test_the_class_label_check_knows_nested_labels_and_lists():
    label = datasets.ClassLabel(names=["a", "b"])
    assert [cards.has_class_labels(feature) for feature in (
        datasets.Features({"x": datasets.Value("string")}),
        datasets.Features({"x": {"y": [label]}}),
        datasets.Features({"x": datasets.Sequence({"y": datasets.Value("int32"), "z": label})}),
        datasets.Features({"x": datasets.Sequence(datasets.Value("bool"))}),
    )] == [False, True, True, False]


def test_a_release_note_in_parts_shows_the_parts_about_the_export():
    # The first corpus whose release notes have a part about some configs.
    corpus, version, note = next((corpus, version, note) for corpus in map(registry.get, registry.names())
                                 for version, note in (releases.declared(corpus) or {}).items()
                                 if isinstance(note, list) and any(isinstance(part, dict) for part in note))
    for config in corpus.configs:
        kept = [part if isinstance(part, str) else part["text"] for part in note
                if isinstance(part, str) or config in part["only"]]
        assert releases.notes(corpus, [config])[version] == " ".join(kept)
    every = " ".join(part if isinstance(part, str) else part["text"] for part in note)
    assert releases.notes(corpus)[version] == every
    assert releases.notes(corpus, corpus.configs[:1])[version] != every  # some part is about other configs only
    wrong = [note[0], {"only": ["no-such-config"], "text": "A config that is none."}]
    assert releases._wrong_note(version, wrong, corpus.configs) == (
        f"[{version!r}]: a part about some configs is {{'only': [configs of {corpus.configs}], 'text': ...}}")
    two_lines = [note[0], {"only": corpus.configs[:1], "text": "two\nlines"}]
    assert releases._wrong_note(version, two_lines, corpus.configs) == (
        f"[{version!r}] must be one line of text, not {two_lines!r}")
