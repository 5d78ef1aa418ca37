"""dataset_cards/NAME.yaml, the hand-written part of a card: read once, checked, and settled for the
configs an export holds."""

from __future__ import annotations

import copy
import datetime
import functools
from importlib import resources
from pathlib import Path

from corpora import registry
from corpora.cards import field_patterns
from corpora.cards import figures
from corpora.cards.header import read_yaml
from corpora.cards.sections import field_rows
from corpora.errors import CorporaError

# Keys of dataset_cards/<name>.yaml; each one is required.
METADATA_KEYS = [
    "pretty_name", "language", "language_creators", "annotations_creators",
    "multilinguality", "source_datasets", "task_categories", "task_ids", "tags",
]
PROSE_KEYS = [
    "released", "supported_tasks", "languages", "config_notes", "fields", "curation_rationale",
    "source_data", "annotations", "personal_information", "social_impact", "biases", "limitations",
    "curators", "errata",
]
# Keys a card source may leave out.
OPTIONAL_KEYS = ["migration", "figures"]
# Keys whose value is a list of items (each may be about some configs only); the other prose keys are texts.
LIST_KEYS = ["task_categories", "task_ids", "tags", "errata", "migration"]
ONLY_KEYS = ["only", "text"]  # a part about some configs only: {only: [configs], text: ...}


class CardError(CorporaError):
    pass


@functools.cache
def vocabularies() -> dict[str, list[str]]:
    return read_yaml((resources.files("corpora") / "vocabularies.yaml").read_text())


def card_source(corpus: registry.Corpus) -> dict:
    """dataset_cards/NAME.yaml, read once per version of the file."""
    path = corpus.card_source
    if not path.is_file():
        raise CardError(f"{corpus.name}: no card source {path.relative_to(corpus.root)}")
    stat = path.stat()
    return copy.deepcopy(_card_source(corpus.name, path, stat.st_size, stat.st_mtime_ns))


@functools.lru_cache(maxsize=32)
def _card_source(name: str, path: Path, size: int, mtime_ns: int) -> dict:
    source = read_yaml(path.read_text(encoding="utf-8"))
    missing = [key for key in METADATA_KEYS + PROSE_KEYS if key not in source]
    unknown = [key for key in source if key not in METADATA_KEYS + PROSE_KEYS + OPTIONAL_KEYS]
    if missing or unknown:
        raise CardError(f"{path.name}: keys missing {missing}, unknown {unknown}")
    return source


def for_configs(value, configs):
    """Hand-written text as the export of `configs` shows it: a part {only: [configs], text: ...} is
    kept only when the export holds one of those configs (else None), a list of parts joins the kept ones."""
    if isinstance(value, dict) and sorted(value) == ONLY_KEYS:
        return value["text"] if set(value["only"]) & set(configs) else None
    if isinstance(value, list):
        return " ".join(part for part in (for_configs(item, configs) for item in value) if part)
    return value


def items_for_configs(items, configs) -> list:
    """The items of a list key the export of `configs` shows (an item may be {only: [configs], text: ...})."""
    return [kept for kept in (for_configs(item, configs) for item in items) if kept]


def released_for(source: dict, configs) -> dict:
    """The `released` entry of the export of `configs`: the latest known date, the texts joined."""
    entries = source["released"] if isinstance(source["released"], list) else [source["released"]]
    held = [entry for entry in entries if "only" not in entry or set(entry["only"]) & set(configs)]
    dates = [entry["date"] for entry in held if entry["date"] is not None]
    return {"date": max(dates) if dates else None, "what": "; ".join(entry["what"] for entry in held)}


def source_for(source: dict, configs) -> dict:
    """The card source as the export of `configs` describes it: every per-config part settled."""
    settled = dict(source)
    for key in PROSE_KEYS:
        if key not in ("fields", "config_notes", "released", "errata"):
            settled[key] = for_configs(source[key], configs)
    for key in LIST_KEYS:
        settled[key] = items_for_configs(source.get(key) or [], configs)
    settled["released"] = released_for(source, configs)
    return settled


def export_source(corpus: registry.Corpus, configs) -> dict:
    """The card source of an export of `configs` (or of the loader's card: every config), read, checked
    and settled once for its card and croissant.json: every per-config part settled, each config's
    field descriptions (`config_fields`), the export's `license`, `licenses` and `scope`, the
    loader's texts (`loader_facts`) and the figures it shows (`declared_figures`); `config_patterns`:
    each config's descriptions of fields by a pattern of their names (field_patterns)."""
    source = card_source(corpus)
    # What the checks and the settled card need of the loader, asked once.
    features = {config: corpus.features(config) for config in corpus.configs}
    every_license, facts = licenses(corpus), loader_facts(corpus)
    declared, wrong_figures = figures.declared(source.get("figures"), features)
    found = problems(corpus, source, features, every_license, facts, wrong_figures)
    if found:
        raise CardError(f"{corpus.name}: " + "; ".join(found))
    settled = source_for(source, configs)
    # croissant.json: each field described by its own name has its description, a pattern's are its record set's
    settled["config_fields"], settled["config_patterns"] = {}, {}
    for config in configs:
        keys = field_patterns.resolve(source["fields"], [name for name, _ in field_rows(features[config])])
        texts = {key: for_configs(source["fields"][key], [config]) for key in dict.fromkeys(keys.values())}
        by_name = {key: text for key, text in texts.items() if not field_patterns.is_pattern(key)}
        settled["config_fields"][config] = by_name
        settled["config_patterns"][config] = {key: text for key, text in texts.items() if key not in by_name}
    held = {config: license for config, license in every_license.items() if config in configs}
    settled["license"] = _one_or_list(held)
    settled["licenses"] = held
    settled["scope"] = scope(corpus, configs)
    settled["loader_facts"] = facts
    settled["summary"] = " ".join(for_configs(facts["summary_parts"], configs).split())
    settled["declared_figures"] = [figure for figure in declared if set(figure.configs) & set(configs)]
    return settled


def scope(corpus: registry.Corpus, configs) -> str | None:
    """What opens the summary of an export that holds only some configs, else None."""
    if len(configs) == len(corpus.configs):
        return None
    which = "config" if len(configs) == 1 else "configs"
    return (f"This export holds only the {which} `{'`, `'.join(configs)}` of the dataset; this card describes "
            f"{'it' if len(configs) == 1 else 'them'} alone.")


def licenses(corpus: registry.Corpus, configs=None) -> dict[str, str]:
    """Each config's license, as its builder's info gives it, in the corpus's order."""
    return {config: corpus.license_of(config) for config in corpus.configs if configs is None or config in configs}


def license_value(corpus: registry.Corpus, configs=None):
    """The card header's `license` of an export of `configs`: one identifier, or the list of several."""
    return _one_or_list(licenses(corpus, configs))


def _one_or_list(licenses_of: dict[str, str]):
    distinct = list(dict.fromkeys(licenses_of.values()))
    return distinct[0] if len(distinct) == 1 else distinct


def loader_facts(corpus: registry.Corpus) -> dict:
    """The summary and config descriptions, taken from the loader, not repeated (the licenses: `licenses`)."""
    return {
        "summary": " ".join(corpus.description.split()),
        # the builder's DESCRIPTION_PARTS: its description, a part per config (the card of an export shows
        # the parts about its configs); a description without them is about every config
        "summary_parts": getattr(corpus.builder_class, "DESCRIPTION_PARTS", [corpus.description]),
        "configs": {c.name: " ".join((c.description or "").split()) for c in corpus.builder_class.BUILDER_CONFIGS},
    }


def problems(corpus: registry.Corpus, source: dict, features: dict, every_license: dict[str, str], facts: dict,
             wrong_figures: list[str]) -> list[str]:
    """Everything that makes a card wrong before it is even rendered, from the card `source` and what the
    loader gives: each config's `features`, `every_license`, the loader's texts (`facts`) and what
    figures.declared found wrong in the figures."""
    found = only_problems(corpus, source)
    if found:
        return found
    vocab = vocabularies()
    checks = {
        "license": ("licenses", list(dict.fromkeys(every_license.values()))),
        "language": ("languages", source["language"]),
        "language_creators": ("language_creators", source["language_creators"]),
        "annotations_creators": ("annotations_creators", source["annotations_creators"]),
        "multilinguality": ("multilinguality", [source["multilinguality"]]),
        "task_categories": ("task_categories", items_for_configs(source["task_categories"], corpus.configs)),
        "task_ids": ("task_ids", items_for_configs(source["task_ids"], corpus.configs)),
        "source_datasets": ("source_datasets", [s.split("|")[0] for s in source["source_datasets"]]),
    }
    for key, (vocabulary, values) in checks.items():
        for value in values:
            if value not in vocab[vocabulary]:
                found.append(f"{key}: {value!r} is not in the Hub's {vocabulary} vocabulary")
    descriptions, fields = source["fields"], {}
    for config in corpus.configs:
        names = [name for name, _ in field_rows(features[config])]
        fields.update(dict.fromkeys(names))
        keys = dict.fromkeys(field_patterns.resolve(descriptions, names).values())
        found += [f"fields: {key!r} says nothing about config {config!r}"
                  for key in keys if not for_configs(descriptions[key], [config])]
    found += [f"field {name!r} has no description in fields:"
              for name in sorted(fields) if not field_patterns.keys_of(descriptions, name)]
    found += [f"fields: {key!r} is not a field of any config"
              for key in sorted(descriptions) if not field_patterns.is_pattern(key) and key not in fields]
    found += field_patterns.problems(descriptions, fields)
    found += [f"config {c!r} has no description in the loader" for c, text in facts["configs"].items() if not text]
    notes = source["config_notes"] or {}
    found += [f"config_notes: {c!r} is not a config" for c in notes if c not in corpus.configs]
    released = source["released"]
    for entry in released if isinstance(released, list) else [released]:
        if not isinstance(entry, dict) or sorted(set(entry) - {"only"}) != ["date", "what"]:
            found.append("released: expected {date: YYYY-MM-DD or null, what: text} (or a list of them with only:)")
        elif entry["date"] is not None and not isinstance(entry["date"], datetime.date):
            found.append(f"released: date {entry['date']!r} is not a YYYY-MM-DD date")
    parts = facts["summary_parts"] if isinstance(facts["summary_parts"], list) else []
    if not parts or " ".join(for_configs(parts, corpus.configs).split()) != facts["summary"]:
        found.append("DESCRIPTION_PARTS: a list of texts and {only: [configs], text: ...}, for every config the "
                     "loader's description")
    found += [f"DESCRIPTION_PARTS: only: {part['only']!r} must list configs of {corpus.name}" for part in _parts(parts)
              if not isinstance(part["only"], list) or not set(part["only"]) <= set(corpus.configs)]
    errata = enumerate(items_for_configs(source["errata"] + source.get("migration", []), corpus.configs))
    found += [f"errata: item {i} is not plain text: {e!r}" for i, e in errata if not isinstance(e, str)]
    return found + wrong_figures


def _parts(value):
    """Every {only: ...} part of a hand-written value, nested in lists too."""
    if isinstance(value, dict) and "only" in value:
        return [value]
    if isinstance(value, list):
        return [part for item in value for part in _parts(item)]
    return []


def only_problems(corpus: registry.Corpus, source: dict) -> list[str]:
    """Per-config parts that name no config of the corpus, or a config that a text says nothing about."""
    found = []
    keys = dict.fromkeys(PROSE_KEYS + OPTIONAL_KEYS + LIST_KEYS)
    values = {key: source.get(key) for key in keys if key not in ("fields", "config_notes")}
    values.update({f"fields: {name!r}": text for name, text in (source["fields"] or {}).items()})
    for key, value in values.items():
        for part in _parts(value):
            if sorted(part) != ONLY_KEYS and not (key == "released" and sorted(part) == ["date", "only", "what"]):
                found.append(f"{key}: a per-config part has the keys only: and text:, not {sorted(part)}")
            elif not isinstance(part["only"], list) or not set(part["only"]) <= set(corpus.configs):
                found.append(f"{key}: only: {part['only']!r} must list configs of {corpus.name} ({corpus.configs})")
    if found:
        return found
    for key in PROSE_KEYS:
        if key in LIST_KEYS or key in ("fields", "config_notes", "released"):
            continue
        found += [f"{key}: says nothing about config {c!r}" for c in corpus.configs
                  if not for_configs(source[key], [c])]
    return found
