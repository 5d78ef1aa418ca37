"""An export's card and croissant.json describe the configs it holds and nothing else: the
hand-written parts about other configs (`{only: [configs], text: ...}` in dataset_cards/NAME.yaml),
their tasks and record sets are left out, and the license is that of the held configs. Real
`corpora build NAME --config C --dummy` runs of every config of every corpus, read back by
huggingface_hub and mlcroissant; the corpora's own tests check their exact licenses and tasks."""

import json
import re

import pytest
import yaml
from huggingface_hub import DatasetCard

from corpora import cards
from corpora import prepare
from corpora import registry
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


def absent_mentions(corpus, held, card: str, described: dict) -> list[str]:
    """What the card or croissant.json says of configs the export does not hold: their names, the
    parts written about them alone, their record sets; and the held configs' parts the card leaves out."""
    absent = [config for config in corpus.configs if config not in held]
    texts = {"README.md": flat(card), "croissant.json": flat(json.dumps(described, ensure_ascii=False))}
    fields = {name for config in held for name, _ in cards.field_rows(corpus.features(config))}
    named = [config for config in absent if config not in fields]  # a config may share its name with a field
    found = [f"{where} names `{config}`" for config in named for where, text in texts.items() if f"`{config}`" in text]
    found += [f"croissant.json has the record set {r['@id']}" for r in described["recordSet"] if r["@id"] in absent]
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
