"""YAML as a card has it, read one way: the card source, and a README.md's header found as the Hub finds it."""

from __future__ import annotations

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
