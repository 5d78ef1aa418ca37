"""A build's statistics per split (label distributions, exact text length quantiles), in Arrow
compute batch by batch: no per-row Python on the big corpus."""

from __future__ import annotations

import math
from collections import Counter
from collections import defaultdict
from dataclasses import dataclass
from dataclasses import field

import datasets
import pyarrow as pa
import pyarrow.compute as pc

from corpora.feature_spelling import list_item

QUANTILES = (0.0, 0.25, 0.5, 0.75, 1.0)


@dataclass
class SplitStatistics:
    examples: int
    # dotted field name -> [(value name, count)], in label order; None counts missing values
    distributions: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    # dotted field name -> (min, 25%, median, 75%, max) length in characters
    lengths: dict[str, tuple[int, ...]] = field(default_factory=dict)


def compute(features: datasets.Features, tables: list[pa.Table]) -> SplitStatistics:
    """The statistics of one split, from its Arrow tables, batch by batch."""
    columns = [name for name, feature in features.items() if _has_statistics(feature)]
    counts, lengths, labels = defaultdict(Counter), defaultdict(Counter), {}
    examples = 0
    for table in tables:
        examples += table.num_rows
        if not columns:
            continue
        for batch in table.select(columns).to_batches(max_chunksize=1 << 16):
            for column in columns:
                _walk(features[column], batch.column(column), column, counts, lengths, labels)
    statistics = SplitStatistics(examples=examples)
    for path, names in labels.items():
        counted = counts[path]
        statistics.distributions[path] = [(str(value), counted[key]) for key, value in names]
        if counted[None]:
            statistics.distributions[path].append(("None", counted[None]))
    for path, histogram in lengths.items():
        if histogram:
            statistics.lengths[path] = _quantiles(histogram)
    return statistics


def _has_statistics(feature) -> bool:
    item = list_item(feature)
    if item is not None:
        return _has_statistics(item)
    if isinstance(feature, dict):
        return any(_has_statistics(sub) for sub in feature.values())
    if isinstance(feature, datasets.ClassLabel):
        return True
    return isinstance(feature, datasets.Value) and feature.dtype in ("bool", "string", "large_string")


def _walk(feature, array: pa.Array, path: str, counts, lengths, labels) -> None:
    item = list_item(feature)
    if item is not None:
        _walk(item, pc.list_flatten(array), path, counts, lengths, labels)
    elif isinstance(feature, dict):
        for key, sub_feature in feature.items():
            if _has_statistics(sub_feature):
                _walk(sub_feature, pc.struct_field(array, [key]), f"{path}.{key}", counts, lengths, labels)
    elif isinstance(feature, datasets.ClassLabel):
        labels.setdefault(path, list(enumerate(feature.names)))
        _count(array, counts.setdefault(path, Counter()))
    elif isinstance(feature, datasets.Value) and feature.dtype == "bool":
        labels.setdefault(path, [(True, "True"), (False, "False")])
        _count(array, counts.setdefault(path, Counter()))
    elif isinstance(feature, datasets.Value) and feature.dtype in ("string", "large_string"):
        _count(pc.drop_null(pc.utf8_length(array)), lengths.setdefault(path, Counter()))


def _count(array: pa.Array, counter: Counter) -> None:
    add_value_counts(pc.value_counts(array), counter)


def add_value_counts(counted: pa.StructArray, counter: Counter) -> None:
    """Add what `pc.value_counts` counted to `counter`."""
    for value, count in zip(counted.field("values").to_pylist(), counted.field("counts").to_pylist(), strict=True):
        counter[value] += count


def _quantiles(histogram: Counter) -> tuple[int, ...]:
    """Nearest-rank quantiles of the values a histogram counts."""
    total = sum(histogram.values())
    ranks = [max(1, math.ceil(q * total)) for q in QUANTILES]
    result, seen = [], 0
    values = iter(sorted(histogram.items()))
    value, count = next(values)
    seen = count
    for rank in ranks:
        while seen < rank:
            value, count = next(values)
            seen += count
        result.append(int(value))
    return tuple(result)


@dataclass
class ConfigReport:
    """What a build of one config read and wrote, for the export's card."""

    read: dict[str, int]  # split -> source records read
    statistics: dict[str, SplitStatistics]  # split -> statistics of the examples written
    example: dict  # the first example of the first split, as stored
    figures: dict = field(default_factory=dict)  # the card's figure name -> split -> value (corpora.figures)
