"""The card of a converted export (`corpora convert`): its README.md and croissant.json, built from the
builder's `info` (description, citation, homepage, licence, version, features), with the script
repository's own README.md merged in (its YAML tags in the header, its prose in a section of its own) and
where the export came from (the script's sha256 and source, the datasets version, each download's sha256)."""

from __future__ import annotations

import ast
import copy
import hashlib
import json
import re
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

import datasets
from datasets.info import DatasetInfosDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard
from huggingface_hub import DatasetCardData

from corpora.cards import croissant
from corpora.cards import figures
from corpora.cards import readme
from corpora.cards.header import split_card
from corpora.cards.sections import example_text
from corpora.cards.sections import field_rows
from corpora.cards.sections import with_label_names
from corpora.cards.sections import wrap
from corpora.cards.source import CardError
from corpora.cards.source import vocabularies

TEMPLATE = "converted_card.md.j2"
# What this card computes itself: the original README's values of these are replaced, not merged.
OWN_KEYS = {"dataset_info", "configs", "license", "licenses", "size_categories", "pretty_name", "corpora",
            "task_categories"}
RENAMED_KEYS = {"languages": "language"}  # the Hub's old spellings, in cards of 2020-2022
NO_LICENSE = ("No licence is stated: not by the script, its dataset_infos.json nor its README.md. `unknown` says "
              "so; ask the maintainers before reusing the data.")
SIZE_BOUNDS = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
               (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"), (1_000_000_000, "100M<n<1B")]


@dataclass(frozen=True)
class Provenance:
    """Where a converted export came from, as its card states it."""

    name: str  # the script's NAME (NAME.py)
    source: str  # hf://datasets/OWNER/NAME@COMMIT, or `NAME/` for a local folder (never a local path)
    files: dict[str, str]  # path beside the script -> sha256 of every file the conversion read (NAME.py first)
    datasets_version: str
    downloads: dict[str, str | None] = field(default_factory=dict)  # URL -> sha256 (None: a folder)
    dummy: bool = False  # built from the script's dummy data

    @property
    def script(self) -> str:
        return f"{self.name}.py"

    @property
    def repo_id(self) -> str | None:
        """OWNER/NAME of a script read from the Hub, else None."""
        match = re.fullmatch(r"hf://datasets/([^/@]+/[^/@]+)(@.+)?", self.source)
        return match.group(1) if match else None

    @property
    def script_files(self) -> list[str]:
        """What `push --replace-script` removes: the script, its helper modules and dataset_infos.json."""
        return [path for path in self.files if path.endswith(".py") or path == "dataset_infos.json"]


@dataclass(frozen=True)
class Original:
    """What the script's repository states besides the script: its README.md and dataset_infos.json."""

    readme: str | None = None
    recorded: dict = field(default_factory=dict)  # dataset_infos.json as read: config -> info

    def header_and_body(self) -> tuple[dict, str]:
        if not self.readme:
            return {}, ""
        found = split_card(self.readme)
        if found is None:
            return {}, self.readme
        return (found[0] if isinstance(found[0], dict) else {}), found[1]


def helper_modules(folder: Path, name: str) -> list[str]:
    """The helper modules beside NAME.py that it imports (`from .utils import x`, `from . import utils`), and
    those they import: as datasets' script loader found them, by reading the imports, not by running them."""
    found, pending = [], [f"{name}.py"]
    while pending:
        tree = ast.parse((Path(folder) / pending.pop()).read_bytes())
        for node in ast.walk(tree):
            if not (isinstance(node, ast.ImportFrom) and node.level >= 1):
                continue
            modules = [node.module.split(".")[0]] if node.module else [alias.name for alias in node.names]
            for module in modules:
                path = f"{module}.py"
                if path not in found and path != f"{name}.py" and (Path(folder) / path).is_file():
                    found.append(path)
                    pending.append(path)
    return sorted(found)


def files_read(folder: Path, name: str) -> dict[str, str]:
    """{path: sha256} of what a conversion reads in the script's folder: NAME.py first, the helper modules it
    imports, dataset_infos.json and README.md (a Provenance's `files`)."""
    folder = Path(folder)
    found = [f"{name}.py", *helper_modules(folder, name),
             *(n for n in ("dataset_infos.json", "README.md") if (folder / n).is_file())]
    return {path: hashlib.sha256((folder / path).read_bytes()).hexdigest() for path in found}


def original_of(folder: Path) -> Original:
    """The README.md and dataset_infos.json beside a script, as the card merges them."""
    readme_path, infos_path = Path(folder) / "README.md", Path(folder) / "dataset_infos.json"
    recorded = {}
    if infos_path.is_file():
        try:
            recorded = json.loads(infos_path.read_text(encoding="utf-8"))
        except ValueError:
            recorded = {}  # the checks of recorded sizes say what is wrong with it
    return Original(readme_path.read_text(encoding="utf-8") if readme_path.is_file() else None,
                    recorded if isinstance(recorded, dict) else {})


def source_of(source: str, name: str, revision: str | None = None) -> str:
    """The card's `source`: hf://datasets/OWNER/NAME@COMMIT for a script of the Hub, else `NAME/` (no local path)."""
    if source.startswith("hf://"):
        return f"{source.partition('@')[0]}@{revision}" if revision else source
    return f"{name}/"


def marker(name: str) -> str:
    """The line that opens the card of a converted export: push knows its own card by it."""
    return f"<!-- Generated by `corpora convert` from the loading script {name}.py."


def licence(infos: dict[str, datasets.DatasetInfo], original: Original) -> tuple[str | list[str], str | None]:
    """The header's `license` (the README's tag, else the script's or dataset_infos.json's text if it is a
    Hub identifier, else `other` for a text, else `unknown`) and the licence text the script states."""
    header, _ = original.header_and_body()
    tagged = header.get("license") or header.get("licenses")
    texts = [info.license for info in infos.values() if info.license and info.license.strip()]
    texts += [info.get("license") for info in original.recorded.values()
              if isinstance(info, dict) and isinstance(info.get("license"), str) and info["license"].strip()]
    text = " ".join(texts[0].split()) if texts else None
    tags = [tagged] if isinstance(tagged, str) else list(tagged or [])
    if tags and not (tags == ["unknown"] and text):  # the script's text tells more than an unknown tag
        return (tags[0] if len(tags) == 1 else tags), text
    if text is None:
        return "unknown", None
    return (text.lower() if text.lower() in vocabularies()["licenses"] else "other"), text


def task_categories(original: Original, asked: list[str], infos: dict[str, datasets.DatasetInfo]) -> list[str]:
    """The README's task categories, the script's task templates' and those given with --task-category."""
    header, _ = original.header_and_body()
    stated = header.get("task_categories") or []
    stated = [stated] if isinstance(stated, str) else list(stated)
    for info in infos.values():  # a task template's task, where the datasets version keeps them
        stated += [template.task for template in getattr(info, "task_templates", None) or []
                   if isinstance(getattr(template, "task", None), str)]
    wrong = [name for name in asked if name not in vocabularies()["task_categories"]]
    if wrong:
        raise CardError(f"--task-category {wrong[0]}: not one of the Hub's task categories "
                        "(src/corpora/vocabularies.yaml lists them)")
    return list(dict.fromkeys(stated + list(asked)))


def portable_features(card_data: DatasetCardData) -> None:
    """`dataset_info` features that datasets 3.6, 4.x and 5.x read alike: a list of fixed length is spelled
    `sequence:` with its `length` (datasets 3.6 reads `list:` as a list of any length)."""

    def spelled(node):
        if isinstance(node, dict):
            node = {key: spelled(value) for key, value in node.items()}
            if "list" in node and "length" in node:
                node = {("sequence" if key == "list" else key): value for key, value in node.items()}
            return node
        if isinstance(node, list):
            return [spelled(item) for item in node]
        return node

    entries = card_data.dataset_info if isinstance(card_data.dataset_info, list) else [card_data.dataset_info]
    for entry in entries:
        entry["features"] = spelled(entry["features"])


def original_prose(body: str) -> str:
    """The original README's body as this card shows it: each heading one level down (it sits under a
    heading of this card), lines and sections that said only "[More Information Needed]" left out."""
    placeholder = re.escape(readme.PLACEHOLDER) + r"(\(https?://[^)\s]*\))?"  # the old cards' link to a guide
    lines = [line for line in body.strip("\n").splitlines()
             if not re.fullmatch(rf"\s*(- \*\*[^*]+:\*\*\s*)?{placeholder}\s*", line)]
    kept, pending = [], []  # pending: a heading and its blank lines, kept once text follows
    for line in lines:
        heading = re.match(r"(#{1,6}) ", line)
        if heading:
            level = len(heading.group(1))
            pending = [p for p in pending if not _heading_at_or_below(p, level)] + [line]
        elif line.strip():
            kept += [*pending, line]
            pending = []
        elif pending:
            pending.append(line)
        else:
            kept.append(line)
    text = "\n".join(_demoted(line) for line in kept).strip("\n")
    text = re.sub(r"\n{3,}", "\n\n", text)
    return re.sub(placeholder, "(not stated)", text)


def _demoted(line: str) -> str:
    """A heading two levels down (under this card's `## The Original Card`), at most level 6."""
    match = re.match(r"(#{1,6}) ", line)
    return "#" * min(6, len(match.group(1)) + 2) + line[match.end() - 1:] if match else line


def _heading_at_or_below(line: str, level: int) -> bool:
    match = re.match(r"(#{1,6}) ", line)
    return match is not None and len(match.group(1)) >= level


def section_text(body: str, title: str) -> str | None:
    """The text under a heading `title` (any level) of the original README, up to the next heading."""
    match = re.search(rf"^#+ {re.escape(title)}\s*$(.*?)(?=^#+ |\Z)", body, re.MULTILINE | re.DOTALL)
    text = match.group(1).strip() if match else ""
    return text if text and readme.PLACEHOLDER not in text else None


def bibtex(text: str | None) -> str | None:
    """The BibTeX entry of a citation text (a README's section: its ``` block), if it holds one."""
    if not text:
        return None
    fenced = re.search(r"```[a-z]*\n(.*?)```", text, re.DOTALL)
    text = (fenced.group(1) if fenced else text).strip()
    return text if re.search(r"@\w+\s*\{", text) else None


def size_category(infos: dict[str, datasets.DatasetInfo]) -> str:
    rows = max(sum(split.num_examples for split in (info.splits or {}).values()) for info in infos.values())
    return next(label for bound, label in SIZE_BOUNDS if rows < bound)


def render(
    name: str,
    infos: dict[str, datasets.DatasetInfo],
    report: dict[str, figures.ConfigReport],
    provenance: Provenance,
    original: Original,
    descriptions: dict[str, str],
    default_config: str | None = None,
    asked_tasks: list[str] = (),
    repo_id: str | None = None,
    export_path: str | None = None,
) -> str:
    """The README.md of a converted export of `infos` (config -> the builder's info after it ran, with its
    splits), `report` (config -> what the export counted), whose Parquet files are in CONFIG/SPLIT-*."""
    from corpora import __version__

    configs = list(infos)
    first_config = default_config if default_config in configs else configs[0]
    first = infos[first_config]
    header, body = original.header_and_body()
    license_value, license_text = licence(infos, original)
    tasks = task_categories(original, list(asked_tasks), infos)
    summary = " ".join((first.description or "").split()) or section_text(body, "Dataset Summary") or None
    citation = (first.citation or "").strip() or bibtex(section_text(body, "Citation Information"))
    kept = {RENAMED_KEYS.get(key, key): value for key, value in header.items()
            if key not in OWN_KEYS and value not in (None, "", [], {})}
    card_data = DatasetCardData(
        pretty_name=header.get("pretty_name") or name.replace("_", " ").title(),
        license=license_value,
        task_categories=tasks or None,
        size_categories=[size_category(infos)],
        **kept,
    )
    version = str(first.version) if first.version is not None else "0.0.0"
    card_data.corpora = {"converted": {
        "script": provenance.script,
        "source": provenance.source,
        "files": dict(provenance.files),
        "version": version,
        "datasets_version": provenance.datasets_version,
        "corpora_version": __version__,
        "sources": "dummy" if provenance.dummy else "downloads",
    }}
    DatasetInfosDict({config: _card_info(info) for config, info in infos.items()}
                     ).to_dataset_card_data(card_data)
    portable_features(card_data)
    MetadataConfigs({
        config: {"data_files": [{"split": split, "path": f"{config}/{split}-*"} for split in info.splits],
                 **({"default": True} if config == first_config else {})}
        for config, info in infos.items()
    }).to_dataset_card_data(card_data)
    fields = {config: field_rows(info.features, collapse=True) for config, info in infos.items()}
    examples = {config: example_text(with_label_names(r.example, infos[config].features))
                for config, r in report.items() if r.example is not None}  # None: a config with no rows
    values = dict(
        name=name, configs=configs, source=shown_source(provenance.source), first_config=first_config, infos=infos,
        report=report, fields=fields,
        examples=examples, provenance=provenance, summary=summary, citation=citation, version=version,
        license_value=license_value, license_text=license_text, no_license=NO_LICENSE, tasks=tasks,
        homepage=(first.homepage or "").strip() or None, pretty_name=card_data.pretty_name,
        original=original_prose(body) if body.strip() else None, wrap=wrap, figure_text=figures.text,
        export_path=repo_id or export_path or f"path/to/{name}", corpora_version=__version__,
        descriptions={config: " ".join((descriptions.get(config) or "").split()) for config in configs},
    )
    template = readme.templates().get_template(TEMPLATE)
    text = str(DatasetCard(template.render(card_data=card_data.to_yaml(), **values))).rstrip("\n") + "\n"
    return text


def shown_source(source: str) -> str:
    """The source as the card's text names it: a Hub repository at its commit, or a local folder."""
    return f"`{source}`" if source.startswith("hf://") else f"the local folder `{source}`"


def _card_info(info: datasets.DatasetInfo) -> datasets.DatasetInfo:
    """The info as the card's `dataset_info` states it: features, splits, sizes; no description or citation
    (the card's text has them), no download checksums (its provenance has them)."""
    shown = datasets.DatasetInfo(features=info.features, config_name=info.config_name)
    shown.splits = copy.deepcopy(info.splits)
    shown.download_size, shown.dataset_size = info.download_size, info.dataset_size
    return shown


def write(folder: Path, name: str, infos: dict[str, datasets.DatasetInfo], report: dict[str, figures.ConfigReport],
          provenance: Provenance, original: Original, descriptions: dict[str, str],
          default_config: str | None = None, asked_tasks=(),
          repo_id: str | None = None, export_path: str | None = None) -> None:
    """Write the README.md and croissant.json of the converted export in `folder` (its Parquet files written)."""
    folder = Path(folder)
    sized = {}
    for config, info in infos.items():
        sized[config] = copy.deepcopy(info)
        sized[config].download_size = sum(p.stat().st_size for p in (folder / config).glob("*.parquet"))
    text = render(name, sized, report, provenance, original, descriptions, default_config, asked_tasks, repo_id,
                  export_path)
    (folder / "README.md").write_text(text, encoding="utf-8")
    described = describe(folder, name, infos, provenance, original, descriptions, repo_id)
    (folder / "croissant.json").write_text(json.dumps(described, indent=2, ensure_ascii=False) + "\n",
                                           encoding="utf-8")


def describe(folder: Path, name: str, infos: dict[str, datasets.DatasetInfo], provenance: Provenance,
             original: Original, descriptions: dict[str, str], repo_id: str | None = None) -> dict:
    """The Croissant JSON-LD of a converted export: its files, and a record set per config."""
    first = next(iter(infos.values()))
    header, body = original.header_and_body()
    license_value, _ = licence(infos, original)
    distribution, record_sets, all_splits = [], [], []
    for config, info in infos.items():
        distribution += croissant.config_files(folder, config)
        splits = [split for split in info.splits if split in croissant.split_names(folder, config)]
        all_splits += [split for split in splits if split not in all_splits]
        record_sets.append({
            "@type": "cr:RecordSet",
            "@id": config,
            "name": config,
            "description": " ".join((descriptions.get(config) or f"The {config} config.").split()),
            "field": [croissant.split_field(config, f"parquet-{config}", splits)]
            + croissant.fields(info.features, {}, f"parquet-{config}", config),
        })
    homepage = (first.homepage or "").strip() or None
    notice = "Converted from the script's dummy data, not from its downloads. " if provenance.dummy else ""
    language = header.get("language") or header.get("languages")
    described = {
        "@context": croissant.CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": croissant.CONFORMS_TO,
        "name": name,
        "alternateName": header.get("pretty_name") or name.replace("_", " ").title(),
        "description": " ".join(f"{notice}{first.description or section_text(body, 'Dataset Summary') or ''} "
                                f"Converted by corpora from the loading script {provenance.script} of "
                                f"{provenance.source} (sha256 {provenance.files.get(provenance.script)}).".split()),
        "url": f"https://huggingface.co/datasets/{repo_id}" if repo_id else homepage,
        **({"sameAs": homepage} if homepage else {}),
        "license": croissant.license_urls(license_value),
        "citeAs": (first.citation or "").strip() or bibtex(section_text(body, "Citation Information")) or "",
        **({"inLanguage": language} if language else {}),
        "version": str(first.version) if first.version is not None else "0.0.0",
        "isLiveDataset": False,
        "distribution": distribution,
        "recordSet": [croissant.split_record_set(all_splits)] + record_sets,
    }
    return described
