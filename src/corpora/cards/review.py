"""What a reviewer of a dataset card on the Hub asks of it: the fields it must have, a YAML header
that huggingface_hub's `DatasetCardData` reads as written, and the Hub's conventions for `configs:`,
`dataset_info:` and split names. Each problem names its field."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import yaml
from huggingface_hub import DatasetCard
from huggingface_hub import DatasetCardData

from corpora.cards.header import split_card

REQUIRED = ("license", "pretty_name", "task_categories")  # in the YAML header
SECTIONS = {"description": "### Dataset Summary", "citation": "### Citation Information"}  # in the body
SPLIT_NAME = re.compile(r"\w+(\.\w+)*")  # the Hub's rule for a split name
_BIBTEX_ENTRY = re.compile(r"@\w+\s*\{")


def problems(card: Path, folder: Path | None = None) -> list[str]:
    """What is wrong with the card at `card`; with `folder` (an export), its data_files must match files there."""
    text = card.read_text(encoding="utf-8")
    try:
        read = DatasetCard(text).data.to_dict()  # a card without a header is no error to it
    except (ValueError, TypeError, yaml.YAMLError) as error:
        return [f"YAML header: huggingface_hub's DatasetCard rejects it: {' '.join(str(error).split())}"]
    found = split_card(text)  # as DatasetCard read it
    if found is None:
        return ["YAML header: missing"]
    header, body = found[0] or {}, found[1]
    found = [f"{field}: missing from the YAML header" for field in REQUIRED if _empty(header.get(field))]
    found += [f"{field}: no {'BibTeX entry' if field == 'citation' else 'text'} under {heading!r}"
              for field, heading in SECTIONS.items() if not _section(body, heading, field)]
    found += _card_data_problems(header, read)
    found += config_problems(header, folder)
    return found


def _empty(value) -> bool:
    return value is None or (isinstance(value, (str, list, dict)) and not value)


def _section(body: str, heading: str, field: str) -> bool:
    """Whether the body has text under `heading` (the citation: a BibTeX entry)."""
    lines = body.splitlines()
    if heading not in lines:
        return False
    start = lines.index(heading) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("#")), len(lines))
    content = "\n".join(lines[start:end])
    return bool(_BIBTEX_ENTRY.search(content)) if field == "citation" else bool(content.strip())


def _declared_fields() -> dict[str, str]:
    """DatasetCardData's own fields and the type each is declared with, as text ("str | list[str] | None")."""
    parameters = inspect.signature(DatasetCardData.__init__).parameters.values()
    return {p.name: str(p.annotation) for p in parameters
            if p.kind is p.KEYWORD_ONLY and p.name != "ignore_metadata_errors"}


def _card_data_problems(header: dict, read: dict) -> list[str]:
    """Fields DatasetCardData drops (it keeps no empty value), and values of another type than it declares."""
    found = [f"{key}: empty, and huggingface_hub's DatasetCardData drops it" for key in header
             if key not in REQUIRED and (read.get("train-eval-index" if key == "train_eval_index" else key) is None)]
    for key, declared in _declared_fields().items():
        value = header.get(key)
        if _empty(value):
            continue
        if "dict" in declared.lower():
            wrong, expected = not isinstance(value, dict), "a mapping"
        elif "list" in declared.lower():
            items = value if isinstance(value, list) else [value]
            wrong, expected = not all(isinstance(item, str) and item for item in items), "a string or a list of strings"
        else:
            wrong, expected = not (isinstance(value, str) and value), "a string"
        if wrong:
            found.append(f"{key}: {value!r} is not {expected}, as huggingface_hub's DatasetCardData declares it")
    return found


def config_problems(header: dict, folder: Path | None) -> list[str]:
    """The Hub's conventions: each `configs:` entry has a config_name and data_files (with `folder`:
    matching its files), each has one `dataset_info:` entry with the same splits, split names are
    valid. Empty if the shapes are right (validate's checks of sizes and rows rely on them)."""
    configs, found = header.get("configs"), []
    if configs is None:
        return []  # validate says "no configs:" in its own words
    if not isinstance(configs, list) or not all(isinstance(entry, dict) for entry in configs):
        return ["configs: must be a list of mappings (config_name, data_files)"]
    splits, names = {}, []
    for number, entry in enumerate(configs, start=1):
        name = entry.get("config_name")
        if not isinstance(name, str) or not name:
            found.append(f"configs: entry {number} has no config_name")
            continue
        if name in names:
            found.append(f"configs: {name} is listed twice")
        names.append(name)
        splits[name], wrong = _data_files(name, entry.get("data_files"), folder)
        found += wrong
    defaults = [entry.get("config_name") for entry in configs if entry.get("default")]
    if len(defaults) > 1:
        found.append(f"configs: more than one default: {', '.join(map(str, defaults))}")
    found += _dataset_info_problems(header.get("dataset_info"), splits)
    return found


def _data_files(name: str, data_files, folder: Path | None) -> tuple[list[str], list[str]]:
    """The split names of a config's data_files, and what is wrong with them."""
    if _empty(data_files):
        return [], [f"configs: {name} has no data_files"]
    entries = data_files if isinstance(data_files, list) else [data_files]
    splits, paths, found = [], [], []
    for entry in entries:
        if isinstance(entry, str):
            paths.append(entry)
        elif isinstance(entry, dict) and sorted(entry) == ["path", "split"]:
            splits.append(entry["split"])
            paths += entry["path"] if isinstance(entry["path"], list) else [entry["path"]]
        else:
            found.append(f"configs: {name}: data_files entry {entry!r} is not a path nor {{split, path}}")
    for split in splits:
        if not (isinstance(split, str) and SPLIT_NAME.fullmatch(split)):
            found.append(f"configs: {name}: split name {split!r} breaks the Hub's rule {SPLIT_NAME.pattern}")
    for path in paths:
        if not (isinstance(path, str) and path):
            found.append(f"configs: {name}: data_files path {path!r} is not a path")
        elif folder is not None and not any(folder.glob(path)):
            found.append(f"configs: {name}: data_files path {path!r} matches no file of the export")
    return splits, found


def _dataset_info_problems(dataset_info, splits: dict[str, list[str]]) -> list[str]:
    """`dataset_info:` (one mapping, or a list of one per config) against the configs' splits."""
    if dataset_info is None:
        return []
    entries = [dataset_info] if isinstance(dataset_info, dict) else dataset_info
    if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
        return ["dataset_info: must be a mapping per config"]
    found = []
    for entry in entries:
        name = entry.get("config_name", "default")  # the Hub's convention for an entry without one
        if name not in splits:
            found.append(f"dataset_info: {name} is not a config of configs:")
            continue
        listed = [split.get("name") if isinstance(split, dict) else split for split in entry.get("splits") or []]
        wrong = [split for split in listed if not (isinstance(split, str) and SPLIT_NAME.fullmatch(split))]
        found += [f"dataset_info: {name}: split name {split!r} breaks the Hub's rule {SPLIT_NAME.pattern}"
                  for split in wrong]
        if listed and splits[name] and sorted(map(str, listed)) != sorted(map(str, splits[name])):
            found.append(f"dataset_info: {name}: splits {', '.join(map(str, listed))}, but configs: has "
                         f"{', '.join(map(str, splits[name]))}")
    return found
