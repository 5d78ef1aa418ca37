"""What a build counts per config and split for its card, from the rows it exports, in Arrow batch by
batch (no per-row Python on the big corpus): the statistics every card shows (label distributions, exact
text length quantiles), and the figures a card declares (`figures:` of dataset_cards/NAME.yaml): the
card's prose names them, it never states a count."""

from __future__ import annotations

import math
from collections import Counter
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field
from itertools import combinations

import datasets
import pyarrow as pa
import pyarrow.compute as pc

from corpora.cards import overlap
from corpora.feature_spelling import list_item

# kind -> (how many fields it takes: 1 or "many", what it counts, for the loader's card)
KINDS = {
    "distinct": (1, "distinct values of {fields} (missing values not counted)"),
    "values": (1, "rows per value of {fields}"),
    "range": (1, "smallest and largest {measure}{fields}"),
    "identifiers": (1, "the values of {fields} (integers; a range only where every value in it occurs)"),
    "matching": (1, "values of {fields} that match the regular expression `{pattern}`"),
    "repeated": ("many", "groups of equal {fields} that occur more than once in a split; surplus rows: the rows "
                         "beyond the first of each group"),
    "shared": ("many", "distinct groups of equal {fields} found in both splits of a pair"),
}
OPTIONS = {"what", "configs", "pattern"}
# The same answer as this regular expression, about eight times faster on a big corpus's texts.
NON_ASCII_PATTERN, NON_ASCII = r"[^\x00-\x7f]", lambda array: pc.invert(pc.string_is_ascii(array))
BATCH_ROWS = 1 << 16
QUANTILES = (0.0, 0.25, 0.5, 0.75, 1.0)  # of the text lengths a card's statistics show


@dataclass(frozen=True)
class Figure:
    name: str
    what: str  # what it counts, as the card's prose names it
    kind: str
    fields: tuple[str, ...]
    configs: tuple[str, ...]
    pattern: str | None = None
    measure: str = ""  # what `range` measures of a text or a list

    def definition(self) -> str:
        fields = ", ".join(f"`{name}`" for name in self.fields)
        pattern = (self.pattern or "").replace("|", "\\|")  # in a table cell of the card
        return KINDS[self.kind][1].format(fields=fields if len(self.fields) == 1 else f"({fields})", pattern=pattern,
                                          measure=self.measure)


def declared(specs: dict | None, features: dict[str, datasets.Features]) -> tuple[list[Figure], list[str]]:
    """The figures of a card source's `figures:` and its problems, each naming the figure's key."""
    found, problems = [], []
    if specs is None:
        return found, problems
    if not isinstance(specs, dict):
        return found, ["figures: expected a mapping of names to figures"]
    for name, spec in specs.items():
        figure, problem = _figure(name, spec, features)
        if problem:
            problems.append(f"figures: {name!r}: {problem}")
        else:
            found.append(figure)
    return found, problems


def _figure(name, spec, features: dict[str, datasets.Features]) -> tuple[Figure | None, str | None]:
    if not isinstance(spec, dict):
        return None, "expected a mapping with `what` and one kind"
    kinds = [key for key in spec if key in KINDS]
    unknown = [key for key in spec if key not in KINDS and key not in OPTIONS]
    if unknown or len(kinds) != 1:
        return None, f"unknown key(s) {unknown}, kind(s) {kinds}: expected one kind of {sorted(KINDS)}"
    kind = kinds[0]
    what = spec.get("what")
    if not isinstance(what, str) or not what.strip():
        return None, "`what` (what the figure counts, in words) is missing"
    fields = spec[kind]
    fields = (fields,) if isinstance(fields, str) else tuple(fields) if isinstance(fields, list) else ()
    if not fields or not all(isinstance(f, str) for f in fields) or (KINDS[kind][0] == 1 and len(fields) != 1):
        expected = "one field" if KINDS[kind][0] == 1 else "a list of fields"
        return None, f"{kind}: expected {expected}, got {spec[kind]!r}"
    pattern = spec.get("pattern")
    if (kind == "matching") != (pattern is not None):
        return None, "`pattern` goes with `matching`, and only there"
    if pattern is not None:
        try:
            pc.match_substring_regex(pa.array([""]), pattern)
        except (pa.ArrowInvalid, TypeError) as error:
            return None, f"pattern {pattern!r} is not a regular expression Arrow reads: {error}"
    having = [config for config, schema in features.items() if all(_feature(schema, f) is not None for f in fields)]
    configs = spec.get("configs")
    if configs is None:
        if not having:
            return None, f"no config has the field(s) {', '.join(fields)}"
        configs = having
    elif not isinstance(configs, list) or any(config not in features for config in configs):
        return None, f"configs: {configs!r} are not all configs of {sorted(features)}"
    for config in configs:
        for name_ in fields:
            problem = _field_problem(kind, _feature(features[config], name_))
            if problem:
                return None, f"config {config!r}: field {name_!r} {problem}"
    leaf = _feature(features[configs[0]], fields[0])
    measure = "" if kind != "range" else "number of items of " if list_item(leaf) is not None else (
        "length in characters of " if leaf.dtype in ("string", "large_string") else "")
    return Figure(str(name), " ".join(what.split()), kind, fields, tuple(configs), pattern, measure), None


def _feature(schema, dotted: str):
    """The feature of a dotted field (through structs and lists), None if there is none."""
    feature = schema
    for part in dotted.split("."):
        while list_item(feature) is not None:
            feature = list_item(feature)
        if not isinstance(feature, dict) or part not in feature:
            return None
        feature = feature[part]
    return feature


def _field_problem(kind: str, feature) -> str | None:
    if feature is None:
        return "does not exist"
    if kind == "range" and not isinstance(feature, datasets.Value) and list_item(feature) is None:
        return "is not a number, a text or a list"
    while kind in ("distinct", "values", "matching", "identifiers") and list_item(feature) is not None:
        feature = list_item(feature)  # values in lists are counted one by one
    if kind != "range" and not isinstance(feature, (datasets.Value, datasets.ClassLabel)):
        return "is not a single value (a struct, list or image)"
    if kind == "matching" and not (isinstance(feature, datasets.Value) and feature.dtype in ("string", "large_string")):
        return "is not a text"
    integer = isinstance(feature, datasets.Value) and feature.dtype.startswith(("int", "uint"))
    if kind == "identifiers" and not integer:
        return "is not an integer"
    return None


def column(table, schema, dotted: str, kind: str) -> pa.Array:
    """A dotted field's values as one array: lists flattened (a list itself for `range`, as its length)."""
    parts = dotted.split(".")
    array, feature = table.column(parts[0]), schema[parts[0]]
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    for part in parts[1:]:
        while list_item(feature) is not None:
            array, feature = pc.list_flatten(array), list_item(feature)
        array, feature = pc.struct_field(array, [part]), feature[part]
    if list_item(feature) is not None:
        if kind == "range":
            return pc.list_value_length(array)
        while list_item(feature) is not None:
            array, feature = pc.list_flatten(array), list_item(feature)
    text = pa.types.is_string(array.type) or pa.types.is_large_string(array.type)
    return pc.utf8_length(array) if kind == "range" and text else array


@dataclass
class Tally:
    """The figures of one config: `add` each split's table (in any thread, any order), then `results`."""

    figures: list[Figure]
    schema: datasets.Features
    splits: dict[str, dict[str, object]] = field(default_factory=dict)  # split -> figure name -> partial value
    groups: dict[str, dict[str, pa.Table]] = field(default_factory=dict)  # split -> `shared` figure -> groups
    tables: dict[str, pa.Table] = field(default_factory=dict)  # split -> its rows, where `add` had them whole

    def add(self, split: str, tables: pa.Table | Iterable[pa.Table]) -> None:
        """Count a split: one table, or its tables one after another (read once, none kept)."""
        whole = isinstance(tables, pa.Table)
        pieces = {figure.name: [] for figure in self.figures}
        for table in [tables] if whole else tables:
            for figure in self.figures:
                columns = table.select(list(dict.fromkeys(f.split(".")[0] for f in figure.fields)))
                pieces[figure.name] += [self._count(figure, batch) for batch in columns.to_batches(BATCH_ROWS)]
        partial, groups = {}, {}
        for figure in self.figures:
            if figure.kind == "shared":
                groups[figure.name] = _distinct_groups(pieces[figure.name], figure.fields)
            else:
                partial[figure.name] = _combine(figure.kind, pieces[figure.name], figure.fields)
        self.splits[split], self.groups[split] = partial, groups
        if whole:
            self.tables[split] = tables

    def _count(self, figure: Figure, batch: pa.RecordBatch):
        arrays = [column(batch, self.schema, name, figure.kind) for name in figure.fields]
        if figure.kind in ("repeated", "shared"):
            if len({len(array) for array in arrays}) > 1:
                raise ValueError(f"figure {figure.name!r}: the fields {figure.fields} are not in the same list")
            names = [f"f{i}" for i in range(len(arrays))]
            grouped = pa.table(dict(zip(names, arrays, strict=True))).group_by(names)
            return grouped.aggregate([([], "count_all")])
        array = arrays[0]
        if figure.kind in ("distinct", "identifiers"):
            return pc.unique(pc.drop_null(array))
        if figure.kind == "values":
            return pc.value_counts(array)
        if figure.kind == "range":
            return pc.min_max(array)
        matched = NON_ASCII(array) if figure.pattern == NON_ASCII_PATTERN else pc.match_substring_regex(array,
                                                                                                  figure.pattern)
        return pc.sum(matched).as_py() or 0

    def results(self, splits: list[str] | None = None, rows: dict | None = None) -> dict[str, dict[str, object]]:
        """Figure name -> split (for `shared`: "a & b") -> value, splits in the order given, for the card;
        the overlap of splits compares `rows` (split -> a table or its Parquet files), else the tables added."""
        splits = splits or list(self.splits)
        found = {figure.name: {} for figure in self.figures}
        for split in splits:
            for name, value in self.splits[split].items():
                found[name][split] = value
        for figure in self.figures:
            if figure.kind == "shared":
                for first, second in combinations(splits, 2):
                    a, b = self.groups[first][figure.name], self.groups[second][figure.name]
                    both = 0 if a is None or b is None else a.join(b, list(a.column_names), join_type="inner").num_rows
                    found[figure.name][f"{first} & {second}"] = both
        if len(splits) > 1:
            rows = rows or self.tables
            found[overlap.KEY] = overlap.found({split: rows[split] for split in splits})
        return found


def _distinct_groups(pieces: list[pa.Table], fields) -> pa.Table | None:
    if not pieces:  # an empty split
        return None
    table = pa.concat_tables(pieces).drop_columns(["count_all"])
    return table.group_by(table.column_names).aggregate([])


def _combine(kind: str, pieces: list, fields):
    if kind == "distinct":
        return len(pc.unique(pa.concat_arrays(pieces))) if pieces else 0
    if kind == "identifiers":
        return sorted(set(pa.concat_arrays(pieces).to_pylist())) if pieces else []
    if kind == "matching":
        return sum(pieces)
    if kind == "values":
        counts = Counter()
        for counted in pieces:
            add_value_counts(counted, counts)
        return sorted(counts.items(), key=lambda item: (item[0] is None, item[0]))
    if kind == "range":
        lows = [piece["min"].as_py() for piece in pieces if piece["min"].is_valid]
        highs = [piece["max"].as_py() for piece in pieces if piece["max"].is_valid]
        return (min(lows), max(highs)) if lows else None
    names = pieces[0].column_names[:-1] if pieces else []
    table = pa.concat_tables(pieces).group_by(names).aggregate([("count_all", "sum")]) if pieces else None
    counts = table.column("count_all_sum") if table else pa.array([], pa.int64())
    repeated = pc.filter(counts, pc.greater(counts, 1))
    return len(repeated), (pc.sum(repeated).as_py() or 0) - len(repeated)


def text(kind: str, value) -> str:
    """A figure's value in words, for the card's table."""
    if kind == "repeated":
        groups, surplus = value
        return f"groups: {groups:,}; surplus rows: {surplus:,}"
    if kind == "range":  # a min-max: "a to b" would say every value between occurs
        return "no values" if value is None else f"smallest {_number(value[0])}, largest {_number(value[1])}"
    if kind == "identifiers":
        return identifier_text(value)
    if kind == "values":
        return ", ".join(f"{_number(v)}: {count:,}" for v, count in value) or "no rows"
    return f"{value:,}"


def identifier_text(values) -> str:
    """A set of integers in words: a run of three or more consecutive values as "a to b" (every value
    between occurs), the others one by one: {1, 2, 3, 5} -> "1 to 3 and 5", {2, 5} -> "2 and 5"."""
    runs = []
    for value in sorted(set(values)):
        if runs and value == runs[-1][1] + 1:
            runs[-1][1] = value
        else:
            runs.append([value, value])
    said = []
    for low, high in runs:
        said += [f"{low} to {high}"] if high - low >= 2 else [str(v) for v in range(low, high + 1)]
    if not said:
        return "no values"
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]


def _number(value) -> str:
    """A value as the data has it (an id too: no thousands separator), a whole float without its `.0`."""
    return f"{value:g}" if isinstance(value, float) and value.is_integer() else str(value)


# The statistics every card shows ----------------------------------------------------------------


@dataclass
class SplitStatistics:
    examples: int
    # dotted field name -> [(value name, count)], in label order; None counts missing values
    distributions: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    # dotted field name -> (min, 25%, median, 75%, max) length in characters
    lengths: dict[str, tuple[int, ...]] = field(default_factory=dict)


def split_statistics(features: datasets.Features, tables: list[pa.Table]) -> SplitStatistics:
    """The statistics of one split, from its Arrow tables, batch by batch: each field's values as `column`
    gives them to a figure (lists flattened, struct fields taken out)."""
    features = as_stored(features)
    fields = _statistics_fields(features)
    columns = list(dict.fromkeys(name.split(".")[0] for name in fields))
    counts, lengths, labels = defaultdict(Counter), defaultdict(Counter), {}
    examples = 0
    for table in tables:
        examples += table.num_rows
        if not columns:
            continue
        for batch in table.select(columns).to_batches(max_chunksize=BATCH_ROWS):
            for name, feature in fields.items():
                array = column(batch, features, name, "values")
                if isinstance(feature, datasets.ClassLabel) or feature.dtype == "bool":
                    named = isinstance(feature, datasets.ClassLabel)
                    values = list(enumerate(feature.names)) if named else [(True, "True"), (False, "False")]
                    labels.setdefault(name, values)
                    add_value_counts(pc.value_counts(array), counts.setdefault(name, Counter()))
                else:  # a text: its length in characters
                    lengths_of = pc.drop_null(pc.utf8_length(array))
                    add_value_counts(pc.value_counts(lengths_of), lengths.setdefault(name, Counter()))
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


def as_stored(feature):
    """A feature in the shape of its Arrow data: datasets 3.x stores a `Sequence` of a dict (a loading script's)
    as a struct of lists, which is read here as the dict of lists it is."""
    if type(feature).__name__ == "Sequence" and isinstance(feature.feature, dict):
        return {key: [as_stored(item)] for key, item in feature.feature.items()}
    if isinstance(feature, dict):
        return {key: as_stored(item) for key, item in feature.items()}
    item = list_item(feature)
    return feature if item is None else [as_stored(item)]


def _statistics_fields(feature, path: str = "") -> dict:
    """Dotted name -> feature of each field the statistics count: class labels, booleans and texts, in
    structs and lists too, in the order of the features."""
    while list_item(feature) is not None:
        feature = list_item(feature)
    if isinstance(feature, dict):
        found = {}
        for key, sub_feature in feature.items():
            found.update(_statistics_fields(sub_feature, f"{path}.{key}" if path else key))
        return found
    counted = isinstance(feature, datasets.ClassLabel) or (
        isinstance(feature, datasets.Value) and feature.dtype in ("bool", "string", "large_string"))
    return {path: feature} if counted else {}


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
    example: dict | None  # the first row of the first split with rows, as stored (None: the config has none)
    figures: dict = field(default_factory=dict)  # the card's figure name -> split -> value (Tally.results)
