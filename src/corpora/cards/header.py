"""YAML as a card has it, read one way: the card source, and a README.md's header found as the Hub finds it."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from huggingface_hub.repocard import REGEX_YAML_BLOCK  # the Hub's own pattern of a card's YAML header


def read_yaml(text: str):
    """yaml.safe_load with libyaml's parser where PyYAML has it: a build feels the pure-Python one."""
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def split_card(text: str) -> tuple[object, str] | None:
    """A card's YAML header, read (None if empty), and the body after it; None if it has no header."""
    match = REGEX_YAML_BLOCK.search(text)
    if match is None:
        return None
    return read_yaml(match.group(2)), text[match.end() :]


def read_metadata(path: Path):
    """The YAML header of a README.md, as the Hub parses it ({} if it has none)."""
    found = split_card(path.read_text(encoding="utf-8"))
    return found[0] if found else {}


class _Flow(dict):
    """A small mapping of a card's features, written on one line."""


class _FlowList(list):
    """A small list of a card's features, written on one line."""


class _CompactDumper(yaml.SafeDumper):
    """The Hub's YAML, but the features of `dataset_info` with each small mapping or list on one line
    (flow style): hundreds of fields in a few hundred lines, not a line per key."""


FLOW_WIDTH = 200  # a mapping or list of scalars (or of such mappings) this long in JSON or shorter is one line


def _depth(value) -> int:
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
    return 0 if items is None else 1 + max((_depth(item) for item in items), default=0)


def _flowing(value):
    """A feature's YAML with its small parts marked to be written on one line."""
    small = bool(value) and _depth(value) <= 3 and len(json.dumps(value, default=str)) <= FLOW_WIDTH
    if isinstance(value, dict):
        inner = {key: _flowing(item) for key, item in value.items()}
        return _Flow(inner) if small else inner
    if isinstance(value, list):
        inner = [_flowing(item) for item in value]
        return _FlowList(inner) if small else inner
    return value


_CompactDumper.add_representer(_Flow, lambda dumper, data: dumper.represent_mapping(
    "tag:yaml.org,2002:map", data, flow_style=True))
_CompactDumper.add_representer(_FlowList, lambda dumper, data: dumper.represent_sequence(
    "tag:yaml.org,2002:seq", data, flow_style=True))


def compact_header(text: str) -> str:
    """A card with the features in its YAML header written compactly (the same data: checked), the rest as it was."""
    found = split_card(text)
    infos = (found or [{}])[0] and found[0].get("dataset_info")
    if not infos:
        return text
    header = dict(found[0])
    header["dataset_info"] = [{key: _flowing(value) if key == "features" else value for key, value in info.items()}
                              for info in (infos if isinstance(infos, list) else [infos])]
    if not isinstance(infos, list):
        header["dataset_info"] = header["dataset_info"][0]
    dumped = yaml.dump(header, Dumper=_CompactDumper, sort_keys=False, allow_unicode=True, width=FLOW_WIDTH + 40)
    if read_yaml(dumped) != found[0]:  # never a header that says something else
        raise ValueError("the compact YAML header does not read back as the card's header")
    return f"---\n{dumped.rstrip()}\n---\n{found[1]}"
