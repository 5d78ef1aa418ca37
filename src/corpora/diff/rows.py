"""What a change does to the rows of two exports, split by split (docs/diff.md): rows matched by
the config's key in a DuckDB join that spills beyond MEMORY_LIMIT, so no split is held in memory."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import duckdb
import pyarrow
import pyarrow.parquet

from corpora import registry
from corpora import releases
from corpora.diff.report import ConfigDiff
from corpora.diff.report import FieldChange
from corpora.diff.report import Report
from corpora.diff.report import SplitDiff
from corpora.diff.report import render
from corpora.diff.shown import decode
from corpora.diff.shown import show_key
from corpora.diff.shown import show_pair
from corpora.diff.sides import fetch
from corpora.diff.sides import layout
from corpora.diff.sides import published_name
from corpora.diff.sides import recorded_corpus
from corpora.diff.sides import recorded_version
from corpora.errors import CorporaError
from corpora.feature_spelling import spell

MEMORY_LIMIT = "512MB"  # DuckDB's own budget; the bench measures the process's peak RSS
EXAMPLES = 3  # examples per changed field, and added or removed keys shown per split


def compare(old, new, name: str | None = None, configs: list[str] | None = None, old_label=None, new_label=None,
            keys: dict[str, list[str]] | None = None) -> Report:
    """Compare the exports `old` and `new`, keyed by the loader of `name` (default: the corpus they
    record), or `keys` (config -> columns, [] for position); only `configs` if given."""
    hinted = [published_name(side) for side in (new, old)]
    old_label, new_label = old_label or old, new_label or new
    old, new = fetch(old), fetch(new)
    layouts = {}
    for side, folder in (("old", old), ("new", new)):
        if not folder.is_dir():
            raise CorporaError(f"{side} export {folder} is not a folder")
        layouts[side] = layout(folder)
        if not layouts[side]:
            raise CorporaError(f"{side} export {folder} holds no <config>/<split>-*.parquet files")
    if configs is not None:
        unknown = [c for c in configs if all(c not in layout for layout in layouts.values())]
        if unknown:
            raise CorporaError(f"no config {', '.join(unknown)} in either export")
        layouts = {side: {c: s for c, s in layout.items() if c in configs} for side, layout in layouts.items()}
    recorded = {side: recorded_corpus(folder) for side, folder in (("old", old), ("new", new))}
    if None not in recorded.values() and recorded["old"] != recorded["new"]:
        raise CorporaError(f"{old_label} is an export of {recorded['old']} and {new_label} one of {recorded['new']}: "
                           "a diff compares two exports of one corpus")
    guesses = (recorded["new"], recorded["old"], hinted[0] or new.name, hinted[1] or old.name)
    name = name or next((n for n in guesses if n in registry.names()), None)
    corpus = registry.known(name) if name is not None else None  # looked up once, passed on
    _check_given_keys(keys or {}, layouts)
    keys = dict(_keys(corpus), **(keys or {}))
    layouts = {side: _in_loader_order(corpus, layout) for side, layout in layouts.items()}
    report = Report(str(old_label or old), str(new_label or new), name)
    report.versions, report.release_notes = _release_notes(corpus, old, new)
    old_layout, new_layout = layouts["old"], layouts["new"]
    for config in sorted(new_layout.keys() - old_layout.keys()):
        report.configs_added[config] = {split: _rows(files) for split, files in new_layout[config].items()}
    for config in sorted(old_layout.keys() - new_layout.keys()):
        report.configs_removed[config] = {split: _rows(files) for split, files in old_layout[config].items()}
    with tempfile.TemporaryDirectory(prefix="corpora-diff-") as spill:
        connection = duckdb.connect(config={"memory_limit": MEMORY_LIMIT, "temp_directory": spill})
        connection.execute("SET preserve_insertion_order = false")
        connection.execute("SET enable_progress_bar = false")  # it would write to stdout, in the report
        try:
            for config in [c for c in old_layout if c in new_layout]:
                report.configs.append(
                    _compare_config(connection, config, keys.get(config), old_layout[config], new_layout[config])
                )
        finally:
            connection.close()
    return report


def _check_given_keys(keys: dict[str, list[str]], layouts: dict) -> None:
    """A --key must name a config and its columns: a typo is an error, not a match by position."""
    for config, columns in keys.items():
        schemas = [_features(next(iter(layout[config].values())))[0] for layout in layouts.values() if config in layout]
        if not schemas:
            raise CorporaError(f"--key {config}=...: no config {config!r} in either export")
        names = sorted(set().union(*(schema.names for schema in schemas)))
        unknown = [column for column in columns if column not in names]
        if unknown:
            raise CorporaError(
                f"--key {config}={','.join(columns)}: no column {', '.join(map(repr, unknown))} in config {config!r}; "
                f"its columns: {', '.join(names)}"
            )


def summary(old: Path, new: Path, name: str, configs: list[str] | None, new_label) -> str:
    """The report `build --compare-to` prints before its swap; no old export is said, not an error."""
    if not old.is_dir():
        return f"--compare-to: no export at {old} to compare with"
    return render(compare(old, new, name, configs, new_label=new_label))


def _in_loader_order(corpus: registry.Corpus | None, layout: dict) -> dict:
    """In the loader's order, then those it does not know alphabetically."""
    order = corpus.split_sizes if corpus else {}
    configs = [corpus.default_config] + [c for c in corpus.configs if c != corpus.default_config] if corpus else []

    def rank(names, known):
        return sorted(names, key=lambda n: (known.index(n) if n in known else len(known), n))

    return {
        config: {split: layout[config][split] for split in rank(layout[config], list(order.get(config, {})))}
        for config in rank(layout, configs)
    }


def _release_notes(corpus: registry.Corpus | None, old: Path, new: Path) -> tuple[tuple[str, str] | None, dict]:
    """The two exports' loader versions if they differ, and the loader's notes of the versions between."""
    versions = (recorded_version(old), recorded_version(new))
    if None in versions or versions[0] == versions[1]:
        return None, {}
    history = releases.notes(corpus) if corpus else {}
    try:
        return versions, releases.between(history, *versions)
    except ValueError:  # a version that is not MAJOR.MINOR.PATCH: shown, without notes
        return versions, {}


def _keys(corpus: registry.Corpus | None) -> dict[str, list[str]]:
    if corpus is None:
        return {}
    return {config: corpus.key(config) for config in corpus.configs if corpus.key(config)}


def _rows(files: list[Path]) -> int:
    return sum(pyarrow.parquet.ParquetFile(path).metadata.num_rows for path in files)


def _features(files: list[Path]) -> tuple[pyarrow.Schema, dict]:
    """A split's Arrow schema and its features' JSON (from the Arrow types if it has none)."""
    schema = pyarrow.parquet.read_schema(files[0])
    metadata = (schema.metadata or {}).get(b"huggingface")
    if metadata:
        features = json.loads(metadata).get("info", {}).get("features")
        if features:
            return schema, features
    return schema, {column.name: {"_arrow": str(column.type)} for column in schema}


def _compare_config(connection, config: str, key, old_splits: dict, new_splits: dict) -> ConfigDiff:
    old_schema, old_features = _features(next(iter(old_splits.values())))
    new_schema, new_features = _features(next(iter(new_splits.values())))
    result = ConfigDiff(config, list(key) if key else None)
    for name in new_features.keys() - old_features.keys():
        result.features_added[name] = spell(new_features[name])
    for name in old_features.keys() - new_features.keys():
        result.features_removed[name] = spell(old_features[name])
    common = [name for name in new_features if name in old_features]
    for name in common:
        if spell(old_features[name]) != spell(new_features[name]):
            result.features_retyped[name] = (spell(old_features[name]), spell(new_features[name]))
    result.features_added = dict(sorted(result.features_added.items()))
    result.features_removed = dict(sorted(result.features_removed.items()))
    if key:
        missing = [k for k in key if k not in old_schema.names or k not in new_schema.names]
        if missing:
            result.key, result.note = None, f"key column(s) {', '.join(missing)} missing on one side"
    for split in [s for s in new_splits if s not in old_splits]:
        result.splits_added[split] = _rows(new_splits[split])
    for split in [s for s in old_splits if s not in new_splits]:
        result.splits_removed[split] = _rows(old_splits[split])
    sides = {"old": (old_schema, old_features), "new": (new_schema, new_features)}
    for split in [s for s in old_splits if s in new_splits]:
        result.splits.append(
            _compare_split(connection, config, split, result.key, common, sides, old_splits[split], new_splits[split])
        )
    return result


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _source(files: list[Path], position: bool) -> str:
    """SQL reading a split's shards; with `position`, each row's index in the split as `_pos`."""
    if not position:
        return "read_parquet([" + ", ".join(_literal(str(f)) for f in files) + "])"
    parts, offset = [], 0
    for path in files:
        parts.append(
            f"SELECT * EXCLUDE (file_row_number), file_row_number + {offset} AS _pos "
            f"FROM read_parquet({_literal(str(path))}, file_row_number = true)"
        )
        offset += _rows([path])
    return "(" + " UNION ALL ".join(parts) + ")"


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _is_label(feature) -> bool:
    return isinstance(feature, dict) and feature.get("_type") == "ClassLabel"


def _values(name: str, old_feature, new_feature, old_type, new_type) -> tuple[str, str]:
    """The SQL compared for a column; a retyped one as text, class labels as names, numbers as numbers."""
    old, new = f"o.{_quote(name)}", f"n.{_quote(name)}"
    if spell(old_feature) == spell(new_feature):
        return old, new
    labels = _is_label(old_feature) or _is_label(new_feature)
    numbers = all(pyarrow.types.is_integer(t) or pyarrow.types.is_floating(t) for t in (old_type, new_type))
    if numbers and not labels:
        return old, new
    expressions = []
    for column, feature in ((old, old_feature), (new, new_feature)):
        if _is_label(feature):
            names = "[" + ", ".join(_literal(n) for n in feature.get("names") or []) + "]"
            column = f"{names}[{column} + 1]"  # DuckDB lists are 1-based
        expressions.append(f"CAST({column} AS VARCHAR)")
    return expressions[0], expressions[1]


def _compare_split(connection, config, split, key, common, sides, old_files, new_files) -> SplitDiff:
    (old_schema, old_features), (new_schema, new_features) = sides["old"], sides["new"]
    result = SplitDiff(split, _rows(old_files), _rows(new_files))
    position = key is None
    key_columns = ["_pos"] if position else key
    old_source, new_source = _source(old_files, position), _source(new_files, position)
    if not position:
        for side, source in (("old", old_source), ("new", new_source)):
            _check_unique(connection, config, split, side, key, source, sides[side][1])
    compared = [name for name in common if name not in key_columns]
    expressions = {}
    for name in compared:
        expressions[name] = _values(
            name, old_features[name], new_features[name], old_schema.field(name).type, new_schema.field(name).type
        )
    join = " AND ".join(f"o.{_quote(k)} IS NOT DISTINCT FROM n.{_quote(k)}" for k in key_columns)
    matched = ", ".join(f"{_quote(k)} := coalesce(o.{_quote(k)}, n.{_quote(k)})" for k in key_columns)
    key_struct = f"struct_pack({matched})"
    differs = {name: f"({old} IS DISTINCT FROM {new})" for name, (old, new) in expressions.items()}
    any_differs = " OR ".join(differs.values()) or "false"
    both = "o._present AND n._present"
    selects = [
        "count(*) FILTER (WHERE n._present IS NULL)",
        "count(*) FILTER (WHERE o._present IS NULL)",
        f"count(*) FILTER (WHERE {both} AND ({any_differs}))",
        f"min_by({key_struct}, {key_struct}, {EXAMPLES}) FILTER (WHERE o._present IS NULL)",
        f"min_by({key_struct}, {key_struct}, {EXAMPLES}) FILTER (WHERE n._present IS NULL)",
    ]
    for name, test in differs.items():
        old, new = expressions[name]
        selects.append(f"count(*) FILTER (WHERE {both} AND {test})")
        selects.append(
            f"min_by(struct_pack(k := {key_struct}, o := {old}, n := {new}), {key_struct}, {EXAMPLES}) "
            f"FILTER (WHERE {both} AND {test})"
        )
    query = (
        f"SELECT {', '.join(selects)} FROM (SELECT *, true AS _present FROM {old_source}) o "
        f"FULL OUTER JOIN (SELECT *, true AS _present FROM {new_source}) n ON {join}"
    )
    row = connection.execute(query).fetchone()
    result.removed, result.added, result.changed = row[0], row[1], row[2]
    result.unchanged = result.old_rows - result.removed - result.changed
    key_features = {k: new_features.get(k) for k in key_columns}
    result.added_keys = [show_key(k, key_features) for k in row[3] or []]
    result.removed_keys = [show_key(k, key_features) for k in row[4] or []]
    for index, name in enumerate(differs):
        rows, examples = row[5 + 2 * index], row[6 + 2 * index]
        if rows:
            shown = []
            for example in examples or []:
                old = decode(example["o"], old_features[name])
                new = decode(example["n"], new_features[name])
                shown.append((show_key(example["k"], key_features), *show_pair(old, new)))
            result.fields.append(FieldChange(name, rows, shown))
    return result


def _check_unique(connection, config, split, side, key, source, features) -> None:
    columns = ", ".join(_quote(k) for k in key)
    duplicate = connection.execute(
        f"SELECT {columns}, count(*) FROM {source} GROUP BY ALL HAVING count(*) > 1 ORDER BY ALL LIMIT 1"
    ).fetchone()
    if duplicate:
        shown = show_key(dict(zip(key, duplicate[:-1], strict=True)), features)
        raise CorporaError(
            f"{side} {config}/{split}: key ({', '.join(key)}) is not unique: {shown} is in {duplicate[-1]:,} rows"
        )


