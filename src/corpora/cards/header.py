"""YAML as a card has it: the card source's and a README.md's header, read one way."""

from __future__ import annotations

import re
from pathlib import Path

import yaml


def read_yaml(text: str):
    """yaml.safe_load with libyaml's parser where PyYAML has it: a build feels the pure-Python one."""
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def read_metadata(path: Path) -> dict:
    """The YAML header of a README.md, as the Hub parses it."""
    match = re.match(r"^---\n(.*?)\n---\n", path.read_text(encoding="utf-8"), re.DOTALL)
    return read_yaml(match.group(1)) if match else {}
