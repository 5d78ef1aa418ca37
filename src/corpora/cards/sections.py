"""What the sections of a card show, as text: field types, examples cut to a readable size, prose
wrapped, source files grouped."""

from __future__ import annotations

import json
import re
from pathlib import Path

import datasets

from corpora import registry
from corpora.feature_spelling import list_item
from corpora.feature_spelling import spell

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


def has_class_labels(feature) -> bool:
    """Whether a feature holds a class label, nested ones too."""
    while list_item(feature) is not None:
        feature = list_item(feature)
    if isinstance(feature, dict):
        return any(has_class_labels(item) for item in feature.values())
    return isinstance(feature, datasets.ClassLabel)


SIZE_CATEGORIES = [
    (1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
    (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"), (1_000_000_000, "100M<n<1B"),
]


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
        if len(items) >= 3 and _same_structs([item for _, item in items]):
            # Like a list of structs: the first of several structs of the same fields stands for the rest.
            more = {"…": f"{len(items) - 1} more structs of the same fields ({len(items)} in all)"}
            return {items[0][0]: cut(items[0][1], depth + 1)} | more
        return {key: cut(item, depth + 1) for key, item in items}
    if isinstance(value, list):
        # Structs take many lines each: the first one stands for the rest.
        keep = 1 if value and isinstance(value[0], dict) else SHOWN_ITEMS
        shown = [cut(item, depth) for item in value[: keep if len(value) > keep + (keep > 1) * 2 else None]]
        more = [f"… {len(value) - len(shown):,} more ({len(value):,} items)"] if len(shown) < len(value) else []
        return shown + more
    return value


def _same_structs(values) -> bool:
    return all(isinstance(v, dict) and v and list(v) == list(values[0]) for v in values)


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


def json_text(value, indent: int = 0, width: int = LINE_WIDTH, margin: bool = True, step: int = 2) -> str:
    """JSON that a person reads: a value on one line where it fits in `width` (with its indentation
    unless not `margin`), else an item per line, indented by `step` more spaces than its parent."""
    compact = json.dumps(value, ensure_ascii=False, default=str)
    if indent * margin + len(compact) <= width or not value or not isinstance(value, (list, dict)):
        return compact
    pad = " " * (indent + step)
    if isinstance(value, dict):
        items = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {json_text(item, indent + step, width, margin, step)}"
                 for k, item in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + json_text(item, indent + step, width, margin, step) for item in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def example_text(example: dict) -> str:
    """An example as JSON, its values cut, a field per line."""
    lines = [f"  {json.dumps(key, ensure_ascii=False)}: {json_text(value, 2)}" for key, value in cut(example).items()]
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


def source_files(pinned: dict[str, str], records: dict) -> list[dict]:
    """The source files ({path: pinned URL}) by pattern, with their count and size from checksums.tsv
    (`records`, which lists them all)."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for path, url in pinned.items():
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
