"""Reading `datasets` feature types the same way on datasets 3.6 and 5.x."""

from __future__ import annotations


def list_item(feature):
    """The item feature of a list feature (a Python list, `Sequence`, `List` or `LargeList`),
    or None if the feature is not a list."""
    if isinstance(feature, list):
        return feature[0]
    if type(feature).__name__ in ("Sequence", "List", "LargeList"):
        return feature.feature
    return None
