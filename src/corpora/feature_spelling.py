"""A `datasets` feature type read and spelled the same way on datasets 3.6 and 5.x, in cards and diffs."""

from __future__ import annotations

LISTS = ("Sequence", "List", "LargeList")


def list_item(feature):
    """The item feature of a list feature (a Python list, `Sequence`, `List` or `LargeList`), else None."""
    if isinstance(feature, list):
        return feature[0]
    if type(feature).__name__ in LISTS:
        return feature.feature
    return None


def spell(feature, fields: bool = True) -> str:
    """A feature type in words, from a feature object or its JSON (a Parquet file's `huggingface`
    metadata); a struct's fields only with `fields` (a card lists them in rows of their own)."""
    if isinstance(feature, list):
        return "list of " + spell(feature[0], fields)
    if isinstance(feature, dict) and "_type" not in feature:
        if "_arrow" in feature:  # a column of a Parquet file without datasets' metadata
            return feature["_arrow"]
        if not fields:
            return "struct"
        return "struct (" + ", ".join(f"{k}: {spell(v)}" for k, v in feature.items()) + ")"
    kind = feature["_type"] if isinstance(feature, dict) else type(feature).__name__
    get = feature.get if isinstance(feature, dict) else lambda attribute: getattr(feature, attribute, None)
    if kind == "Value":
        return get("dtype")
    if kind == "ClassLabel":
        return "class label (" + ", ".join(get("names") or []) + ")"
    if kind in LISTS:
        length = get("length")
        spelled = ("large list of " if kind == "LargeList" else "list of ") + spell(get("feature"), fields)
        return spelled + (f" (length {length})" if length not in (-1, None) else "")
    return kind.lower() if kind in ("Image", "Audio") else kind
