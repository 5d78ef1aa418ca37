"""Dataset cards: `dataset_cards/<name>.yaml` (the hand-written text) plus the builder's info
(features, configs, official sizes) render `loaders/<name>/README.md` through one Jinja2
template. The same rendering, with a build's real split infos, is the README of an export.
"""

from __future__ import annotations

import difflib
import functools
import json
import re
import tempfile
from importlib import resources
from pathlib import Path

import datasets
import pyarrow.parquet
import yaml
from datasets.info import DatasetInfosDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard
from huggingface_hub import DatasetCardData

from corpora import registry
from corpora import sources
from corpora.errors import CorporaError
from corpora.feature_types import list_item

TEMPLATE = resources.files("corpora") / "templates" / "dataset_card.md.j2"

# Keys of dataset_cards/<name>.yaml; each one is required.
METADATA_KEYS = [
    "pretty_name", "license", "language", "language_creators", "annotations_creators",
    "multilinguality", "source_datasets", "task_categories", "task_ids", "tags",
]
PROSE_KEYS = [
    "title", "summary", "supported_tasks", "languages", "configs", "fields", "curation_rationale",
    "source_data", "annotations", "personal_information", "social_impact", "biases", "limitations",
    "curators", "errata",
]
PLACEHOLDER = "[More Information Needed]"

SIZE_CATEGORIES = [
    (1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
    (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"), (1_000_000_000, "100M<n<1B"),
]


class CardError(CorporaError):
    pass


@functools.cache
def vocabularies() -> dict[str, list[str]]:
    return yaml.safe_load((resources.files("corpora") / "vocabularies.yaml").read_text())


def card_source(corpus: registry.Corpus) -> dict:
    path = corpus.card_source
    if not path.is_file():
        raise CardError(f"{corpus.name}: no card source {path.relative_to(registry.repo_root())}")
    source = yaml.safe_load(path.read_text(encoding="utf-8"))
    missing = [key for key in METADATA_KEYS + PROSE_KEYS if key not in source]
    unknown = [key for key in source if key not in METADATA_KEYS + PROSE_KEYS]
    if missing or unknown:
        raise CardError(f"{path.name}: keys missing {missing}, unknown {unknown}")
    return source


def problems(corpus: registry.Corpus, source: dict) -> list[str]:
    """Everything that makes a card wrong before it is even rendered."""
    found = []
    vocab = vocabularies()
    checks = {
        "license": ("licenses", [source["license"]]),
        "language": ("languages", source["language"]),
        "language_creators": ("language_creators", source["language_creators"]),
        "annotations_creators": ("annotations_creators", source["annotations_creators"]),
        "multilinguality": ("multilinguality", [source["multilinguality"]]),
        "task_categories": ("task_categories", source["task_categories"]),
        "task_ids": ("task_ids", source["task_ids"]),
        "source_datasets": ("source_datasets", [s.split("|")[0] for s in source["source_datasets"]]),
    }
    for key, (vocabulary, values) in checks.items():
        for value in values:
            if value not in vocab[vocabulary]:
                found.append(f"{key}: {value!r} is not in the Hub's {vocabulary} vocabulary")
    if source["license"] != corpus.module._LICENSE:
        found.append(f"license: card says {source['license']!r}, loader says {corpus.module._LICENSE!r}")
    fields = set()
    for config in corpus.configs:
        fields |= {name for name, _ in field_rows(corpus.features(config))}
    described = set(source["fields"])
    found += [f"field {name!r} has no description in fields:" for name in sorted(fields - described)]
    found += [f"fields: {name!r} is not a field of any config" for name in sorted(described - fields)]
    found += [f"configs: no text for config {c!r}" for c in corpus.configs if c not in source["configs"]]
    errata = enumerate(source["errata"])
    found += [f"errata: item {i} is not plain text: {e!r}" for i, e in errata if not isinstance(e, str)]
    return found


def describe_type(feature) -> str:
    """A short, version-independent name for a feature type."""
    if isinstance(feature, datasets.ClassLabel):
        return "class label (" + ", ".join(feature.names) + ")"
    if isinstance(feature, datasets.Value):
        return feature.dtype
    if isinstance(feature, dict):
        return "struct"
    inner = list_item(feature)
    if inner is not None:
        return "list of " + describe_type(inner)
    return type(feature).__name__



def field_rows(feature_dict, prefix: str = "") -> list[tuple[str, str]]:
    """(dotted name, type) for every field, nested struct fields included."""
    rows = []
    for name, feature in feature_dict.items():
        rows.append((prefix + name, describe_type(feature)))
        inner = feature
        while list_item(inner) is not None:
            inner = list_item(inner)
        if isinstance(inner, dict):
            rows += field_rows(inner, prefix + name + ".")
    return rows


def size_category(corpus: registry.Corpus) -> str:
    # An official size may be unknown (None): the category is then that of the known sizes.
    largest = max(sum(size or 0 for size in splits.values()) for splits in corpus.split_sizes.values())
    return next(label for bound, label in SIZE_CATEGORIES if largest < bound)


def example_text(example: dict) -> str:
    """An example as JSON, one line per field: long parallel lists stay readable, and lists of
    structs get a line per item. Binary values (images) are shown by their size."""

    def plain(value):
        if isinstance(value, bytes):
            return f"<{len(value):,} bytes>"
        if isinstance(value, dict):
            return {key: plain(item) for key, item in value.items()}
        if isinstance(value, list):
            return [plain(item) for item in value]
        return value

    def dump(value):
        value = plain(value)
        if isinstance(value, list) and value and isinstance(value[0], dict):
            items = ("    " + json.dumps(item, ensure_ascii=False, default=str) for item in value)
            return "[\n" + ",\n".join(items) + "\n  ]"
        return json.dumps(value, ensure_ascii=False, default=str)

    lines = [f"  {json.dumps(key)}: {dump(value)}" for key, value in example.items()]
    return "{\n" + ",\n".join(lines) + "\n}"


def dummy_examples(corpus: registry.Corpus) -> dict[str, dict]:
    """The first example of each config, from its dummy build (training split if there is one)."""
    from corpora import build

    examples = {}
    default_first = [corpus.default_config] + [c for c in corpus.configs if c != corpus.default_config]
    with tempfile.TemporaryDirectory(prefix="corpora-card-") as cache_dir:
        for config in default_first:
            dataset = build.load(corpus.name, config, dummy=True, cache_dir=cache_dir)
            split = "train" if "train" in dataset else list(dataset)[0]
            examples[config] = dataset[split].data.slice(0, 1).to_pylist()[0]  # as stored
    return examples


def render(
    corpus: registry.Corpus,
    infos: dict[str, datasets.DatasetInfo] | None = None,
    repo_id: str | None = None,
    report: dict | None = None,
    built_from: str | None = None,
    byte_sizes: dict | None = None,
) -> str:
    """The card. Without `infos` (the loader's card) `dataset_info` holds the features, the
    official split sizes and the byte sizes last measured (`committed_infos`); its examples come
    from the dummy data. An export passes its build's infos, with the real split
    sizes, the Hub repository it is pushed to, if any (the card then shows how to load it from
    there), and the build's `report` ({config: stats.ConfigReport}: the source records read,
    the statistics of each split, the first example) and what it was `built_from`."""
    source = card_source(corpus)
    found = problems(corpus, source)
    if found:
        raise CardError(f"{corpus.name}: " + "; ".join(found))
    card_data = DatasetCardData(
        pretty_name=source["pretty_name"],
        license=source["license"],
        language=source["language"],
        language_creators=source["language_creators"],
        annotations_creators=source["annotations_creators"],
        multilinguality=source["multilinguality"],
        size_categories=[size_category(corpus)],
        source_datasets=source["source_datasets"],
        task_categories=source["task_categories"],
        task_ids=source["task_ids"],
        tags=source["tags"],
    )
    exported = list(infos or corpus.configs)  # an export may hold only some configs
    committed = infos is None
    if committed:
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
    module = corpus.module
    card = DatasetCard.from_template(
        card_data,
        template_path=str(TEMPLATE),
        corpus=corpus,
        source=source,
        fields={config: field_rows(corpus.features(config)) for config in corpus.configs},
        examples={c: example_text(r.example) for c, r in report.items()} if report else {
            config: example_text(example) for config, example in dummy_examples(corpus).items()
        },
        report=report,
        built_from=built_from,
        homepage=module._HOMEPAGE,
        citation=module._CITATION.strip(),
        urls=sources.urls(corpus),
        export_path=repo_id or f"build/{corpus.name}",
    )
    text = str(card).rstrip("\n") + "\n"
    if PLACEHOLDER in text:
        raise CardError(f"{corpus.name}: the card still says {PLACEHOLDER!r}")
    return text


def committed_infos(corpus: registry.Corpus, byte_sizes: dict | None = None) -> dict[str, datasets.DatasetInfo]:
    """The loader card's `dataset_info` per config: the features, the official split sizes (which
    datasets 3.x checks every build of the loading script against) and the byte sizes last
    measured on the real files (`byte_sizes`, else those of the committed card), as datasets
    writes them (`datasets-cli test --save_info`). A config with an unknown official size has no
    `splits`: a partial list would fail every build."""
    byte_sizes = recorded_byte_sizes(corpus) if byte_sizes is None else byte_sizes
    infos = {}
    for config in corpus.configs:
        info = datasets.DatasetInfo(features=corpus.features(config), config_name=config)
        official = corpus.split_sizes[config]
        if None not in official.values():
            measured = byte_sizes.get(config, {})
            info.splits = datasets.SplitDict()
            for split, rows in official.items():
                # 0 until measured: datasets' own default, and datasets 5.x ignores a split without it
                num_bytes = measured.get("splits", {}).get(split, 0)
                info.splits.add(datasets.SplitInfo(name=split, num_bytes=num_bytes, num_examples=rows))
            info.download_size = measured.get("download_size")
            info.dataset_size = measured.get("dataset_size")
        infos[config] = info
    return infos


def recorded_byte_sizes(corpus: registry.Corpus, card: Path | None = None) -> dict:
    """{config: {"splits": {split: num_bytes}, "download_size": n, "dataset_size": n}} from the
    committed card (or another `card`: an export's), for each config whose recorded split sizes
    are the official ones: sizes measured on other files (the dummy data, a modified copy) are
    not the corpus's."""
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
        if {s.get("name"): s.get("num_examples") for s in splits} != corpus.split_sizes[config]:
            continue
        measured = {s["name"]: s["num_bytes"] for s in splits if s.get("num_bytes")}  # 0: not measured
        if measured:
            found[config] = {
                "splits": measured,
                **{key: entry[key] for key in ("download_size", "dataset_size") if entry.get(key) is not None},
            }
    return found


def record_byte_sizes(corpus: registry.Corpus, export: Path) -> list[str]:
    """Write the byte sizes an export measured (`corpora build` from the release files) into the
    committed card, for the configs built with the official sizes. Returns those configs."""
    measured = recorded_byte_sizes(corpus, Path(export) / "README.md")
    if measured:
        sizes = {**recorded_byte_sizes(corpus), **measured}
        corpus.card_path.write_text(render(corpus, byte_sizes=sizes), encoding="utf-8")
    return list(measured)


def write(corpus: registry.Corpus) -> Path:
    corpus.card_path.write_text(render(corpus), encoding="utf-8")
    return corpus.card_path


def write_export_card(corpus: registry.Corpus, infos, path: Path, repo_id=None, report=None, built_from=None) -> None:
    path.write_text(render(corpus, infos, repo_id, report, built_from), encoding="utf-8")


def check(corpus: registry.Corpus) -> str | None:
    """None if the committed card is what the sources render, else a unified diff."""
    expected = render(corpus)
    actual = corpus.card_path.read_text(encoding="utf-8") if corpus.card_path.is_file() else ""
    if actual == expected:
        return None
    name = str(corpus.card_path.relative_to(registry.repo_root()))
    diff = difflib.unified_diff(actual.splitlines(True), expected.splitlines(True), name, name + " (rendered)")
    return "".join(diff) or f"{name} differs"


def read_metadata(path: Path) -> dict:
    """The YAML header of a README.md, as the Hub parses it."""
    match = re.match(r"^---\n(.*?)\n---\n", path.read_text(encoding="utf-8"), re.DOTALL)
    return yaml.safe_load(match.group(1)) if match else {}


def export_problems(corpus: registry.Corpus, folder: Path) -> list[str]:
    """What is wrong with the card of an export folder, as the Hub and `load_dataset` read it:
    its metadata against the vocabularies, its `configs:` against the Parquet files there, and
    its `dataset_info` split sizes against the rows in those files."""
    card = folder / "README.md"
    if not card.is_file():
        return ["README.md is missing"]
    text = card.read_text(encoding="utf-8")
    metadata = read_metadata(card)
    found = [f"the card still says {PLACEHOLDER!r}"] if PLACEHOLDER in text else []
    if not metadata:
        return found + ["README.md has no YAML header"]
    vocab = vocabularies()
    if metadata.get("license") not in vocab["licenses"]:
        found.append(f"license {metadata.get('license')!r} is not in the Hub's licenses vocabulary")
    if metadata.get("license") != corpus.module._LICENSE:
        found.append(f"license {metadata.get('license')!r}, the loader says {corpus.module._LICENSE!r}")
    dataset_info = metadata.get("dataset_info") or []
    if isinstance(dataset_info, dict):  # one config: a mapping, not a list
        dataset_info = [dataset_info]
    infos = {info.get("config_name"): info for info in dataset_info}
    for config in metadata.get("configs") or []:
        name = config.get("config_name")
        declared = {s["name"]: s["num_examples"] for s in (infos.get(name) or {}).get("splits") or []}
        for data_files in config.get("data_files") or []:
            split, pattern = data_files["split"], data_files["path"]
            files = sorted(folder.glob(pattern))
            if not files:
                found.append(f"{name}/{split}: no file matches {pattern!r}")
                continue
            rows = sum(pyarrow.parquet.ParquetFile(f).metadata.num_rows for f in files)
            if declared.get(split) != rows:
                found.append(f"{name}/{split}: dataset_info says {declared.get(split)} rows, the files hold {rows}")
    if not metadata.get("configs"):
        found.append("no configs: in the YAML header")
    return found
