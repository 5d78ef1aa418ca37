"""Per-split statistics of a build, computed with Arrow compute on the prepared tables (no
per-row Python, so they stay cheap on the big corpus): examples, the distribution of every
class-label and boolean field, and the length quantiles (in characters) of every text field,
nested fields included (values in lists are counted one by one)."""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field

import datasets
import pyarrow as pa
import pyarrow.compute as pc

from corpora.feature_types import list_item

QUANTILES = (0.0, 0.25, 0.5, 0.75, 1.0)


@dataclass
class SplitStatistics:
    examples: int
    # dotted field name -> [(value name, count)], in label order; None counts missing values
    distributions: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    # dotted field name -> (min, 25%, median, 75%, max) length in characters
    lengths: dict[str, tuple[int, ...]] = field(default_factory=dict)



def compute(dataset: datasets.Dataset) -> SplitStatistics:
    statistics = SplitStatistics(examples=dataset.num_rows)
    table = dataset.data.table
    for name, feature in dataset.features.items():
        _walk(feature, table.column(name).combine_chunks(), name, statistics)
    return statistics


def _walk(feature, array: pa.Array, path: str, statistics: SplitStatistics) -> None:
    item = list_item(feature)
    if item is not None:
        _walk(item, pc.list_flatten(array), path, statistics)
    elif isinstance(feature, dict):
        for key, sub_feature in feature.items():
            _walk(sub_feature, pc.struct_field(array, [key]), f"{path}.{key}", statistics)
    elif isinstance(feature, datasets.ClassLabel):
        counts = _counts(array)
        statistics.distributions[path] = [(name, counts.get(i, 0)) for i, name in enumerate(feature.names)]
        statistics.distributions[path] += [("None", counts[None])] if counts.get(None) else []
    elif isinstance(feature, datasets.Value) and feature.dtype == "bool":
        counts = _counts(array)
        statistics.distributions[path] = [("True", counts.get(True, 0)), ("False", counts.get(False, 0))]
        statistics.distributions[path] += [("None", counts[None])] if counts.get(None) else []
    elif isinstance(feature, datasets.Value) and feature.dtype in ("string", "large_string"):
        lengths = pc.drop_null(pc.utf8_length(array))
        if len(lengths):
            quantiles = pc.quantile(lengths, q=list(QUANTILES), interpolation="nearest")
            statistics.lengths[path] = tuple(int(q) for q in quantiles.to_pylist())


def _counts(array: pa.Array) -> dict:
    counted = pc.value_counts(array)
    counts = dict(zip(counted.field("values").to_pylist(), counted.field("counts").to_pylist(), strict=True))
    if array.null_count and None not in counts:
        counts[None] = array.null_count
    return counts


@dataclass
class ConfigReport:
    """What a build of one config read and wrote, for the export's card."""

    read: dict[str, int]  # split -> source records read
    statistics: dict[str, SplitStatistics]  # split -> statistics of the examples written
    example: dict  # the first example of the first split, as stored
