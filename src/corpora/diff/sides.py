"""The two sides of a diff: export folders (one on the Hub downloaded first), their files, and the
corpus and loader version they record."""

from __future__ import annotations

import re
from pathlib import Path

from corpora import exports
from corpora import hub_client
from corpora.cards import header
from corpora.errors import CorporaError
from corpora.errors import describe_failure

_SHARD = re.compile(r"(?P<split>.+)-(?P<index>\d{5})-of-(?P<count>\d{5})\.parquet")
HF_PREFIX = "hf://datasets/"


def published_name(side) -> str | None:
    """The corpus a published side names (hf://datasets/ORG/NAME@REV: NAME), else None."""
    side = str(side)
    return side.removeprefix(HF_PREFIX).partition("@")[0].split("/")[-1] if side.startswith(HF_PREFIX) else None


def fetch(side) -> Path:
    """An export folder: the path given, or hf://datasets/ORG/NAME@REV downloaded into huggingface_hub's cache."""
    text = str(side)
    if not text.startswith(HF_PREFIX):
        return Path(side)
    repo_id, _, revision = text.removeprefix(HF_PREFIX).partition("@")
    if repo_id.count("/") != 1 or not all(repo_id.split("/")):
        raise CorporaError(f"{text}: expected hf://datasets/ORG/NAME or hf://datasets/ORG/NAME@REVISION")
    from huggingface_hub import snapshot_download

    hub_client.use_time_limit()
    try:
        return Path(snapshot_download(repo_id, repo_type="dataset", revision=revision or None))
    except Exception as error:  # noqa: BLE001 - not found, no connection, offline: one line
        raise CorporaError(f"{text}: cannot download it: {describe_failure(error)}") from error


def layout(folder: Path) -> dict[str, dict[str, list[Path]]]:
    """config -> split -> shard files, in shard order, as `corpora build` writes them."""
    layout = {}
    for config in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
        shards = {}
        for path in sorted(config.glob("*.parquet")):
            match = _SHARD.fullmatch(path.name)
            if match:
                shards.setdefault(match["split"], []).append(path)
        if shards:
            layout[config.name] = shards
    return layout


def recorded_corpus(folder: Path) -> str | None:
    """The corpus an export says it is of: its mark, else its card (the mark is not uploaded)."""
    mark = exports.read_mark(folder)
    if mark is not None:
        return mark.corpus
    try:
        recorded = header.read_metadata(folder / "README.md").get("corpora") or {}
    except (OSError, ValueError, AttributeError):  # no card, or not the YAML of one
        return None
    return recorded.get("corpus") if isinstance(recorded, dict) and isinstance(recorded.get("corpus"), str) else None


def recorded_version(folder: Path) -> str | None:
    """The loader version an export's card records (`corpora: loader_version`), else None."""
    try:
        recorded = header.read_metadata(folder / "README.md").get("corpora") or {}
    except (OSError, ValueError, AttributeError):  # no card, or not the YAML of one
        return None
    version = recorded.get("loader_version") if isinstance(recorded, dict) else None
    return str(version) if version is not None else None
