"""A stored value as a diff shows it: class labels as their names, cut around the first difference."""

from __future__ import annotations

from corpora.feature_spelling import LISTS

WIDTH = 80  # characters of a value shown in an example


def decode(value, feature):
    """A stored value with class labels as their names (what the label means, not its index)."""
    if value is None:
        return None
    if isinstance(feature, list):
        return [decode(v, feature[0]) for v in value] if isinstance(value, list) else value
    if not isinstance(feature, dict):
        return value
    kind = feature.get("_type")
    if kind == "ClassLabel":
        names = feature.get("names") or []
        return _Label(names[value]) if isinstance(value, int) and 0 <= value < len(names) else value
    if kind in LISTS:
        return [decode(v, feature["feature"]) for v in value] if isinstance(value, list) else value
    if kind is None and isinstance(value, dict):
        return {k: decode(v, feature.get(k)) for k, v in value.items()}
    return value


class _Label(str):
    """A class label's name: shown without quotes, unlike a string value."""


def _show(value, limit: int = 10_000) -> str:
    """A value as a short, unambiguous line (strings quoted, bytes as their size)."""
    if isinstance(value, _Label):
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        return f"<{len(value):,} bytes>"
    if isinstance(value, (list, tuple)):
        parts, length = [], 0
        for item in value:
            parts.append(_show(item, limit))
            length += len(parts[-1]) + 2
            if length > limit:
                break
        more = ", ..." if len(parts) < len(value) else ""
        return "[" + ", ".join(parts) + more + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_show(v, limit)}" for k, v in value.items()) + "}"
    if isinstance(value, str):
        return repr(value[:limit] + ("..." if len(value) > limit else ""))
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return repr(value)


def show_key(key: dict, features: dict) -> str:
    if list(key) == ["_pos"]:
        return f"row {key['_pos']:,}"
    return ", ".join(f"{k}={_cut(_show(decode(v, features.get(k))), 0)}" for k, v in key.items())


def show_pair(old, new) -> tuple[str, str]:
    """Both values cut to WIDTH characters around their first difference."""
    old, new = _show(old), _show(new)
    if max(len(old), len(new)) <= WIDTH:
        return old, new
    start = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), min(len(old), len(new)))
    start = max(0, start - WIDTH // 3)
    return _cut(old, start), _cut(new, start)


def _cut(text: str, start: int) -> str:
    if len(text) <= WIDTH and start == 0:
        return text
    if start >= len(text):
        start = max(0, len(text) - WIDTH // 2)
    head = "..." if start else ""
    piece = text[start : start + WIDTH - len(head)]
    tail = "..." if start + len(piece) < len(text) else ""
    return head + piece + tail
