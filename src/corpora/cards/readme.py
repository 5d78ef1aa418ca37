"""Dataset cards: dataset_cards/NAME.yaml and the builder's info in one template, for a loader and an export."""

from __future__ import annotations

import copy
import datetime
import difflib
import functools
import json
import re
from importlib import resources
from pathlib import Path

import datasets
import jinja2
import yaml
from datasets.info import DatasetInfosDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard
from huggingface_hub import DatasetCardData

from corpora import exports
from corpora import prepare
from corpora import registry
from corpora import releases
from corpora import sources
from corpora.cards import figures
from corpora.errors import CorporaError
from corpora.errors import shorten
from corpora.feature_spelling import list_item
from corpora.feature_spelling import spell
from corpora.path_errors import write_text

TEMPLATE = resources.files("corpora") / "templates" / "dataset_card.md.j2"

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
PLACEHOLDER = "[More Information Needed]"

SIZE_CATEGORIES = [
    (1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
    (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"), (1_000_000_000, "100M<n<1B"),
]


class CardError(CorporaError):
    pass


def _read_yaml(text: str):
    """yaml.safe_load with libyaml's parser where PyYAML has it: a build feels the pure-Python one."""
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


@functools.cache
def vocabularies() -> dict[str, list[str]]:
    return _read_yaml((resources.files("corpora") / "vocabularies.yaml").read_text())


def card_source(corpus: registry.Corpus) -> dict:
    """dataset_cards/NAME.yaml, read once per version of the file."""
    path = corpus.card_source
    if not path.is_file():
        raise CardError(f"{corpus.name}: no card source {path.relative_to(corpus.root)}")
    stat = path.stat()
    return copy.deepcopy(_card_source(corpus.name, path, stat.st_size, stat.st_mtime_ns))


@functools.lru_cache(maxsize=32)
def _card_source(name: str, path: Path, size: int, mtime_ns: int) -> dict:
    source = _read_yaml(path.read_text(encoding="utf-8"))
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
    """The card source of an export of `configs` (croissant.json's texts): every per-config part
    settled, each config's field descriptions (`config_fields`) and the export's `license`."""
    source = card_source(corpus)
    settled = source_for(source, configs)
    settled["config_fields"] = {config: {name: for_configs(text, [config]) for name, text in source["fields"].items()}
                                for config in configs}
    settled["license"] = license_value(corpus, configs)
    settled["scope"] = scope(corpus, configs)
    return settled


def scope(corpus: registry.Corpus, configs) -> str | None:
    """What opens the summary of an export that holds only some configs, else None."""
    if len(configs) == len(corpus.configs):
        return None
    which = "config" if len(configs) == 1 else "configs"
    return (f"This export holds only the {which} `{'`, `'.join(configs)}` of the dataset that this summary "
            f"describes; the rest of it is about {'that config' if len(configs) == 1 else 'those configs'} alone.")


def licenses(corpus: registry.Corpus, configs=None) -> dict[str, str]:
    """Each config's license (its own where the loader gives one, else `_LICENSE`), in the corpus's order."""
    return {config: corpus.license_of(config) for config in corpus.configs if configs is None or config in configs}


def license_value(corpus: registry.Corpus, configs=None):
    """The card header's `license` of an export of `configs`: one identifier, or the list of several."""
    distinct = list(dict.fromkeys(licenses(corpus, configs).values()))
    return distinct[0] if len(distinct) == 1 else distinct


def loader_facts(corpus: registry.Corpus) -> dict:
    """The summary and config descriptions, taken from the loader, not repeated (the licenses: `licenses`)."""
    return {
        "summary": " ".join(corpus.description.split()),
        "configs": {c.name: " ".join((c.description or "").split()) for c in corpus.builder_class.BUILDER_CONFIGS},
    }


def problems(corpus: registry.Corpus, source: dict) -> list[str]:
    """Everything that makes a card wrong before it is even rendered."""
    found = only_problems(corpus, source)
    if found:
        return found
    vocab = vocabularies()
    checks = {
        "license": ("licenses", list(dict.fromkeys(licenses(corpus).values()))),
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
    fields = set()
    described = set(source["fields"])
    for config in corpus.configs:
        names = [name for name, _ in field_rows(corpus.features(config))]
        fields |= set(names)
        found += [f"fields: {name!r} says nothing about config {config!r}"
                  for name in names if name in described and not for_configs(source["fields"][name], [config])]
    found += [f"field {name!r} has no description in fields:" for name in sorted(fields - described)]
    found += [f"fields: {name!r} is not a field of any config" for name in sorted(described - fields)]
    facts = loader_facts(corpus)
    found += [f"config {c!r} has no description in the loader" for c, text in facts["configs"].items() if not text]
    notes = source["config_notes"] or {}
    found += [f"config_notes: {c!r} is not a config" for c in notes if c not in corpus.configs]
    released = source["released"]
    for entry in released if isinstance(released, list) else [released]:
        if not isinstance(entry, dict) or sorted(set(entry) - {"only"}) != ["date", "what"]:
            found.append("released: expected {date: YYYY-MM-DD or null, what: text} (or a list of them with only:)")
        elif entry["date"] is not None and not isinstance(entry["date"], datetime.date):
            found.append(f"released: date {entry['date']!r} is not a YYYY-MM-DD date")
    errata = enumerate(items_for_configs(source["errata"] + source.get("migration", []), corpus.configs))
    found += [f"errata: item {i} is not plain text: {e!r}" for i, e in errata if not isinstance(e, str)]
    return found + figures.declared(source.get("figures"), {c: corpus.features(c) for c in corpus.configs})[1]


def declared_figures(corpus: registry.Corpus, config: str | None = None) -> list[figures.Figure]:
    """The figures the card source declares (those that apply to `config`); a wrong one is a CardError."""
    found, wrong = figures.declared(card_source(corpus).get("figures"),
                                    {c: corpus.features(c) for c in corpus.configs})
    if wrong:
        raise CardError(f"{corpus.name}: " + "; ".join(wrong))
    return [figure for figure in found if config is None or config in figure.configs]


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


FOLDED_FIELDS = 5  # a struct nested in a struct with more fields is one row of the card's table


def field_rows(feature_dict, prefix: str = "", collapse: bool = False) -> list[tuple[str, str]]:
    """(dotted name, type) of every field, nested ones too; `collapse`: a struct repeated is one row."""
    rows, seen = [], []
    for name, feature in feature_dict.items():
        inner = feature
        while list_item(inner) is not None:
            inner = list_item(inner)
        same = next((other for other, shape in seen if shape == inner), None) if collapse else None
        if same is not None:
            rows.append((prefix + name, spell(feature, fields=False) + f", the same fields as `{prefix + same}`"))
            continue
        if collapse and prefix and isinstance(inner, dict) and len(inner) > FOLDED_FIELDS:
            # A wide struct inside a struct is one row naming its fields (croissant.json has them all).
            names = ", ".join(f"`{key}`" for key in list(inner)[:SHOWN_ITEMS])
            rows.append((prefix + name, spell(feature, fields=False) + f" of {len(inner)} fields ({names}, …)"))
            seen.append((name, inner))
            continue
        rows.append((prefix + name, spell(feature, fields=False)))
        if isinstance(inner, dict):
            seen.append((name, inner))
            rows += field_rows(inner, prefix + name + ".", collapse)
    return rows


def field_tables(corpus: registry.Corpus, configs=None, descriptions=None) -> dict[str, list[tuple]]:
    """(name, type, earlier config with the same field and description, or None, description) per
    config: the card's field tables; a description may say something of some configs only."""
    tables, seen = {}, {}
    descriptions = card_source(corpus)["fields"] if descriptions is None else descriptions
    for config in configs or corpus.configs:
        tables[config] = []
        for name, type_ in field_rows(corpus.features(config), collapse=True):
            shown = (name, type_, for_configs(descriptions.get(name), [config]))
            tables[config].append((name, type_, seen.get(shown), shown[2]))
            seen.setdefault(shown, config)
    return tables


def size_category(corpus: registry.Corpus, infos: dict[str, datasets.DatasetInfo] | None = None) -> str:
    """The Hub's size category of the largest config, official (unknown: 0) or as built (`infos`)."""
    if infos is None:
        sizes = [sum(size or 0 for size in splits.values()) for splits in corpus.split_sizes.values()]
    else:
        sizes = [sum(split.num_examples for split in (info.splits or {}).values()) for info in infos.values()]
    return next(label for bound, label in SIZE_CATEGORIES if max(sizes) < bound)


# Example values are shown cut, so that one long text or list does not make the card unreadable.
SHOWN_CHARACTERS = 120  # longer strings: the first SHOWN_CHARACTERS, an ellipsis and the length
SHOWN_ITEMS = 3  # longer lists (over SHOWN_ITEMS + 2 items): the first SHOWN_ITEMS and the count
LINE_WIDTH = 160  # a JSON value wider than this is spread over one line per item


def cut(value, depth: int = 0):
    """An example value cut to what a card shows, and said so; binary values by their size."""
    if isinstance(value, bytes):
        return f"<{len(value):,} bytes>"
    if isinstance(value, str) and len(value) > SHOWN_CHARACTERS + 20:
        return f"{value[:SHOWN_CHARACTERS]}… ({len(value):,} characters)"
    if isinstance(value, dict):
        items = list(value.items())
        if depth >= 2 and len(items) > SHOWN_ITEMS + 2:
            more = {"…": f"{len(items) - SHOWN_ITEMS} more fields ({len(items)} in all)"}
            return {key: cut(item, depth + 1) for key, item in items[:SHOWN_ITEMS]} | more
        return {key: cut(item, depth + 1) for key, item in items}
    if isinstance(value, list):
        # Structs take many lines each: the first one stands for the rest.
        keep = 1 if value and isinstance(value[0], dict) else SHOWN_ITEMS
        shown = [cut(item, depth) for item in value[: keep if len(value) > keep + (keep > 1) * 2 else None]]
        more = [f"… {len(value) - len(shown):,} more ({len(value):,} items)"] if len(shown) < len(value) else []
        return shown + more
    return value


def with_label_names(value, feature):
    """A stored value with its class labels, nested ones too, as their names."""
    if isinstance(feature, datasets.ClassLabel):
        return feature.int2str(value) if isinstance(value, int) and 0 <= value < feature.num_classes else value
    if isinstance(feature, dict) and isinstance(value, dict):
        return {key: with_label_names(item, feature.get(key)) for key, item in value.items()}
    item = list_item(feature)
    if isinstance(item, dict) and isinstance(value, dict):
        return {key: [with_label_names(v, item.get(key)) for v in items] if isinstance(items, list) else items
                for key, items in value.items()}
    if item is not None and isinstance(value, list):
        return [with_label_names(v, item) for v in value]
    return value


def example_text(example: dict) -> str:
    """An example as JSON, its values cut, a field per line."""

    def dump(value, indent: int) -> str:
        compact = json.dumps(value, ensure_ascii=False, default=str)
        if indent + len(compact) <= LINE_WIDTH or not value or not isinstance(value, (list, dict)):
            return compact
        pad = " " * (indent + 2)
        if isinstance(value, dict):
            items = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {dump(item, indent + 2)}" for k, item in value.items()]
            return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
        items = [pad + dump(item, indent + 2) for item in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"

    lines = [f"  {json.dumps(key, ensure_ascii=False)}: {dump(value, 2)}" for key, value in cut(example).items()]
    return "{\n" + ",\n".join(lines) + "\n}"


# Risky at the start of a wrapped line: Markdown would read a list item, heading, quote or table.
_BLOCK_START = re.compile(r"([-+*|]|>.*|#{1,6}|\d{1,9}[.)]|```.*|~~~.*|=+|-+)$")


def wrap(text, indent: str = "", width: int = 100) -> str:
    """Prose wrapped at `width`, no line starting a new Markdown block, continuation lines indented."""
    lines = []
    for paragraph in str(text).strip().split("\n"):
        line = ""
        for word in paragraph.split(" "):
            if line and len(line) + 1 + len(word) > width and not _BLOCK_START.match(word):
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        lines.append(line)
    return ("\n" + indent).join(lines)


def source_files(corpus: registry.Corpus, configs=None) -> list[dict]:
    """The source files by pattern, with their count and size from checksums.tsv (which lists them all)."""
    records = sources.read_records(corpus)
    groups: dict[str, list[tuple[str, str]]] = {}
    for path, url in sources.urls(corpus, configs).items():
        folder, _, name = path.rpartition("/")
        compressed = Path(name).suffix in (".zip", ".gz", ".bz2", ".xz")
        suffixes = Path(name).suffixes[-2:] if compressed else [Path(name).suffix]
        pattern = "/".join(["*" if part.isdigit() else part for part in folder.split("/")] + ["*" + "".join(suffixes)])
        groups.setdefault(pattern.lstrip("/"), []).append((path, url))
    rows = []
    for pattern, files in groups.items():
        sizes = [records.get(url) for _, url in files]
        single = len(files) == 1
        path, url = files[0]
        rows.append({
            "pattern": path if single else pattern,
            "files": len(files),
            "bytes": None if None in sizes else sum(record.size for record in sizes),
            "url": url if single else url[: len(url) - len(path)] + pattern,
        })
    return rows


def render(
    corpus: registry.Corpus,
    examples: dict[str, dict] | None = None,
    infos: dict[str, datasets.DatasetInfo] | None = None,
    repo_id: str | None = None,
    report: dict | None = None,
    built_from: str | None = None,
    byte_sizes: dict | None = None,
    notice: str | None = None,
    export_path: str | None = None,
) -> str:
    """The loader's card (no `infos`: official sizes, the dummy `examples`), or an export's (its
    build's `infos` and `report`, `repo_id`, `notice` when not the release): its own configs only."""
    source = card_source(corpus)
    found = problems(corpus, source)
    if found:
        raise CardError(f"{corpus.name}: " + "; ".join(found))
    facts = loader_facts(corpus)
    exported = list(infos or corpus.configs)  # an export may hold only some configs
    fields = field_tables(corpus, exported, source["fields"])
    source = source_for(source, exported)
    card_data = DatasetCardData(
        pretty_name=source["pretty_name"],
        license=license_value(corpus, exported),
        language=source["language"],
        language_creators=source["language_creators"],
        annotations_creators=source["annotations_creators"],
        multilinguality=source["multilinguality"],
        size_categories=[size_category(corpus, infos if report else None)],
        source_datasets=source["source_datasets"],
        task_categories=source["task_categories"],
        task_ids=source["task_ids"],
        tags=source["tags"],
    )
    origin = sources.provenance(corpus, exported)
    if report:  # an export: what built it, machine-readable (the loader's card says it in its text)
        card_data.corpora = {
            "corpus": corpus.name,
            "loader_version": origin["loader_version"],
            "corpora_version": origin["corpora_version"],
            "upstream": [{"repository": r, "commit": c} for r, c in origin["upstream"].items()],
        }
    if infos is None:
        infos = committed_infos(corpus, byte_sizes)
    DatasetInfosDict(infos).to_dataset_card_data(card_data)
    MetadataConfigs(
        {
            config: {
                "data_files": [{"split": split, "path": f"{config}/{split}-*"} for split in corpus.split_sizes[config]],
                **({"default": True} if config == corpus.default_config else {}),
            }
            for config in exported
        }
    ).to_dataset_card_data(card_data)
    if report:
        examples = {config: r.example for config, r in report.items()}
    if examples is None:
        raise CardError(f"{corpus.name}: a card needs the first example of each config")
    records = sources.read_records(corpus)
    first_config = corpus.default_config if corpus.default_config in exported else exported[0]
    values = dict(
        corpus=corpus,
        source=source,
        facts=facts,
        fields=fields,
        configs=exported,
        licenses=licenses(corpus, exported),
        scope=scope(corpus, exported),
        first_config=first_config,
        first_split=next(iter(corpus.split_sizes[first_config])),
        hub_repo=repo_id or f"your-org/{corpus.name}",
        notice=notice,
        figures=[figure for figure in declared_figures(corpus) if set(figure.configs) & set(exported)],
        figure_text=figures.text,
        examples={config: example_text(with_label_names(example, corpus.features(config)))
                  for config, example in examples.items()},
        report=report,
        built_from=built_from,
        provenance=origin,
        homepage=corpus.homepage,
        citation=corpus.citation,
        source_files=source_files(corpus, exported),
        unmeasured=sum(1 for url in sources.urls(corpus, exported).values() if records.get(url) is None),
        wrap=wrap,
        export_path=repo_id or export_path or f"build/{corpus.name}",
        release_notes=releases.notes(corpus),
        version_citation=version_citation(corpus, source["pretty_name"], exported, repo_id, notice),
    )
    # DatasetCard.from_template's steps, the template compiled once: a compile took as long as the rest of a render.
    card = DatasetCard(card_template().render(card_data=card_data.to_yaml(), **{**card_data.to_dict(), **values}))
    text = str(card).rstrip("\n") + "\n"
    if PLACEHOLDER in text:
        raise CardError(f"{corpus.name}: the card still says {PLACEHOLDER!r}")
    return text


@functools.cache
def card_template() -> jinja2.Template:
    return jinja2.Template(TEMPLATE.read_text(encoding="utf-8"))


def version_citation(corpus: registry.Corpus, title: str, exported, repo_id, notice) -> str:
    """The card's "cite this version": with the Hub repository of a push, and the tag a push of the
    release (every config, release files) gets. The Hub's own address, not HF_ENDPOINT's (a mirror)."""
    url = f"https://huggingface.co/datasets/{repo_id}" if repo_id else None
    tagged = url and notice is None and set(exported) == set(corpus.configs)
    return releases.bibtex(corpus, title, url, releases.tag(corpus) if tagged else None)


def committed_infos(corpus: registry.Corpus, byte_sizes: dict | None = None) -> dict[str, datasets.DatasetInfo]:
    """The loader card's `dataset_info`: features, official sizes (datasets 3.x checks a script's
    build against them; none while one is unknown) and byte sizes last measured on the release."""
    byte_sizes = card_byte_sizes(corpus) if byte_sizes is None else byte_sizes
    infos = {}
    for config in corpus.configs:
        info = datasets.DatasetInfo(features=corpus.features(config), config_name=config)
        measured = byte_sizes.get(config, {})
        official = corpus.split_sizes[config]
        if None in official.values():
            official = measured.get("rows") or {}
        if official:
            info.splits = datasets.SplitDict()
            for split, rows in official.items():
                # 0 until measured: datasets' own default, and datasets 5.x ignores a split without it
                num_bytes = measured.get("splits", {}).get(split, 0)
                info.splits.add(datasets.SplitInfo(name=split, num_bytes=num_bytes, num_examples=rows))
            info.download_size = measured.get("download_size")
            info.dataset_size = measured.get("dataset_size")
        infos[config] = info
    return infos


def card_byte_sizes(corpus: registry.Corpus, card: Path | None = None) -> dict:
    """The byte sizes of a card (default: the committed one) per config whose split sizes are the official ones."""
    card = card or corpus.card_path
    if not card.is_file():
        return {}
    dataset_info = read_metadata(card).get("dataset_info") or []
    found = {}
    for entry in [dataset_info] if isinstance(dataset_info, dict) else dataset_info:
        config = entry.get("config_name", "default")
        splits = entry.get("splits") or []
        if config not in corpus.split_sizes or not splits:
            continue
        rows = {s.get("name"): s.get("num_examples") for s in splits}
        official = corpus.split_sizes[config]
        unknown = None in official.values()  # then the recorded rows are the measurement, kept as such
        if rows != official and not (unknown and list(rows) == list(official)):
            continue
        measured = {s["name"]: s["num_bytes"] for s in splits if s.get("num_bytes")}  # 0: not measured
        if measured:
            found[config] = {
                "splits": measured,
                **({"rows": rows} if unknown else {}),
                **{key: entry[key] for key in ("download_size", "dataset_size") if entry.get(key) is not None},
            }
    return found


def built_from(corpus: registry.Corpus, source, infos: dict[str, datasets.DatasetInfo]) -> str:
    """What a build read, in words for its card (never a local path), and its sizes that differ from the official."""
    if source.kind == "dummy":
        return f"the dummy data of `dummy_data/{corpus.name}/` (not the real corpus)"
    release = "the pinned release files" if source.release else "files that may differ from the release"
    where = "a local copy" if source.local else "the pinned URLs"
    checked = "size and sha256 checked" if source.release else "built with --allow-modified-sources"
    described = f"{release}, read from {where} ({checked}; see Source files)"
    differing = prepare.differing_sizes(corpus, infos)
    if differing:
        described += "; split sizes that differ from the official ones: " + ", ".join(differing)
    return described


def not_the_release(corpus: registry.Corpus, source) -> str | None:
    """What opens the card and croissant.json of a build that is not of the release, else None."""
    if source.kind == "dummy":
        return (f"This export was built from the dummy data of `dummy_data/{corpus.name}/` (a few records in the "
                "real format, partly invented), not from the corpus.")
    if not source.differing:
        return None
    return (f"This export was built from {len(source.differing)} source file(s) that differ from the recorded "
            f"release: {shorten(list(source.differing), 3, '; ')}. Its rows, sizes and statistics are those of these "
            "files.")


def write_sizes_from_export(corpus: registry.Corpus, export: Path, examples: dict[str, dict]) -> list[str]:
    """Write an export's byte sizes into the committed card, for its configs built from the release; returns them."""
    measured = card_byte_sizes(corpus, Path(export) / "README.md")
    mark = exports.read_mark(Path(export))
    if mark is None or mark.sources != "release":
        measured = {config: sizes for config, sizes in measured.items() if "rows" not in sizes}
    if measured:
        sizes = {**card_byte_sizes(corpus), **measured}
        write_text(corpus.card_path, render(corpus, examples, byte_sizes=sizes))
    return list(measured)


def write(corpus: registry.Corpus, examples: dict[str, dict]) -> bool:
    """Write the committed card; False if it was already up to date (nothing written)."""
    _check_release_notes(corpus)
    text = render(corpus, examples)
    if corpus.card_path.is_file() and corpus.card_path.read_text(encoding="utf-8") == text:
        return False
    write_text(corpus.card_path, text)
    return True


def write_export_card(corpus: registry.Corpus, infos, path: Path, repo_id=None, report=None, built_from=None,
                      notice=None, export_path=None) -> None:
    """An export's README.md; `download_size` is the Parquet bytes, `dataset_size` the Arrow bytes, as on the Hub."""
    sized = {}
    for config, info in infos.items():
        sized[config] = copy.deepcopy(info)
        sized[config].download_size = sum(p.stat().st_size for p in (path.parent / config).glob("*.parquet"))
    text = render(corpus, None, sized, repo_id, report, built_from, notice=notice, export_path=export_path)
    path.write_text(text, encoding="utf-8")


def check(corpus: registry.Corpus, examples: dict[str, dict]) -> str | None:
    """None if the committed card is what the sources render, else a unified diff."""
    _check_release_notes(corpus)
    expected = render(corpus, examples)
    actual = corpus.card_path.read_text(encoding="utf-8") if corpus.card_path.is_file() else ""
    if actual == expected:
        return None
    name = str(corpus.card_path.relative_to(corpus.root))
    diff = difflib.unified_diff(actual.splitlines(True), expected.splitlines(True), name, name + " (rendered)")
    return "".join(diff) or f"{name} differs"


def _check_release_notes(corpus: registry.Corpus) -> None:
    """The committed card shows the current version's note: a loader without one is refused."""
    wrong = releases.problem(corpus)
    if wrong:
        raise CardError(wrong)


def read_metadata(path: Path) -> dict:
    """The YAML header of a README.md, as the Hub parses it."""
    match = re.match(r"^---\n(.*?)\n---\n", path.read_text(encoding="utf-8"), re.DOTALL)
    return _read_yaml(match.group(1)) if match else {}
