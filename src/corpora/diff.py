"""What a change does to the rows of two exports, split by split (docs/diff.md): rows matched by
the config's key in a DuckDB join that spills beyond MEMORY_LIMIT, so no split is held in memory."""

from __future__ import annotations

import json
import re
import tempfile
from dataclasses import asdict
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

import duckdb
import pyarrow
import pyarrow.parquet

from corpora import cards
from corpora import exports
from corpora import hub_client
from corpora import registry
from corpora import releases
from corpora.errors import CorporaError
from corpora.errors import describe_failure
from corpora.feature_spelling import LISTS
from corpora.feature_spelling import spell

MEMORY_LIMIT = "512MB"  # DuckDB's own budget; the bench measures the process's peak RSS
EXAMPLES = 3  # examples per changed field, and added or removed keys shown per split
WIDTH = 80  # characters of a value shown in an example
_SHARD = re.compile(r"(?P<split>.+)-(?P<index>\d{5})-of-(?P<count>\d{5})\.parquet")


@dataclass
class FieldChange:
    name: str
    rows: int
    # (key, old value, new value), each shown as a short string
    examples: list[tuple[str, str, str]] = field(default_factory=list)


@dataclass
class SplitDiff:
    name: str
    old_rows: int
    new_rows: int
    added: int = 0
    removed: int = 0
    changed: int = 0
    unchanged: int = 0
    fields: list[FieldChange] = field(default_factory=list)
    added_keys: list[str] = field(default_factory=list)
    removed_keys: list[str] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        return not (self.added or self.removed or self.changed)


@dataclass
class ConfigDiff:
    name: str
    key: list[str] | None  # None: rows matched by position
    note: str | None = None  # why rows are matched by position although the loader has a key
    features_added: dict[str, str] = field(default_factory=dict)  # name -> type
    features_removed: dict[str, str] = field(default_factory=dict)
    features_retyped: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> (old, new)
    splits_added: dict[str, int] = field(default_factory=dict)  # name -> rows
    splits_removed: dict[str, int] = field(default_factory=dict)
    splits: list[SplitDiff] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        schema = self.features_added or self.features_removed or self.features_retyped
        return not (schema or self.splits_added or self.splits_removed) and all(s.identical for s in self.splits)


@dataclass
class Report:
    old: str
    new: str
    corpus: str | None
    configs_added: dict[str, dict[str, int]] = field(default_factory=dict)  # config -> split -> rows
    configs_removed: dict[str, dict[str, int]] = field(default_factory=dict)
    configs: list[ConfigDiff] = field(default_factory=list)
    versions: tuple[str, str] | None = None  # the loader versions (old, new) the exports record, if they differ
    release_notes: dict[str, str | None] = field(default_factory=dict)  # the versions between, oldest first

    @property
    def identical(self) -> bool:
        return not (self.configs_added or self.configs_removed) and all(c.identical for c in self.configs)

    def to_json(self) -> dict:
        return dict(asdict(self), identical=self.identical)


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
        layouts[side] = _layout(folder)
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
    _check_given_keys(keys or {}, layouts)
    keys = dict(_keys(name), **(keys or {}))
    layouts = {side: _in_loader_order(name, layout) for side, layout in layouts.items()}
    report = Report(str(old_label or old), str(new_label or new), name)
    report.versions, report.release_notes = _release_notes(name, old, new)
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


def _layout(folder: Path) -> dict[str, dict[str, list[Path]]]:
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


def _in_loader_order(name: str | None, layout: dict) -> dict:
    """In the loader's order, then those it does not know alphabetically."""
    corpus = registry.get(name) if name in registry.names() else None
    order = corpus.split_sizes if corpus else {}
    configs = [corpus.default_config] + [c for c in corpus.configs if c != corpus.default_config] if corpus else []

    def rank(names, known):
        return sorted(names, key=lambda n: (known.index(n) if n in known else len(known), n))

    return {
        config: {split: layout[config][split] for split in rank(layout[config], list(order.get(config, {})))}
        for config in rank(layout, configs)
    }


def recorded_corpus(folder: Path) -> str | None:
    """The corpus an export says it is of: its mark, else its card (the mark is not uploaded)."""
    mark = exports.read_mark(folder)
    if mark is not None:
        return mark.corpus
    try:
        recorded = cards.read_metadata(folder / "README.md").get("corpora") or {}
    except (OSError, ValueError, AttributeError):  # no card, or not the YAML of one
        return None
    return recorded.get("corpus") if isinstance(recorded, dict) and isinstance(recorded.get("corpus"), str) else None


def recorded_version(folder: Path) -> str | None:
    """The loader version an export's card records (`corpora: loader_version`), else None."""
    try:
        recorded = cards.read_metadata(folder / "README.md").get("corpora") or {}
    except (OSError, ValueError, AttributeError):  # no card, or not the YAML of one
        return None
    version = recorded.get("loader_version") if isinstance(recorded, dict) else None
    return str(version) if version is not None else None


def _release_notes(name: str | None, old: Path, new: Path) -> tuple[tuple[str, str] | None, dict]:
    """The two exports' loader versions if they differ, and the loader's notes of the versions between."""
    versions = (recorded_version(old), recorded_version(new))
    if None in versions or versions[0] == versions[1]:
        return None, {}
    history = releases.notes(registry.get(name)) if name in registry.names() else {}
    try:
        return versions, releases.between(history, *versions)
    except ValueError:  # a version that is not MAJOR.MINOR.PATCH: shown, without notes
        return versions, {}


def _keys(name: str | None) -> dict[str, list[str]]:
    if name is None or name not in registry.names():
        return {}
    corpus = registry.get(name)
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
    result.added_keys = [_show_key(k, key_features) for k in row[3] or []]
    result.removed_keys = [_show_key(k, key_features) for k in row[4] or []]
    for index, name in enumerate(differs):
        rows, examples = row[5 + 2 * index], row[6 + 2 * index]
        if rows:
            shown = []
            for example in examples or []:
                old = _decode(example["o"], old_features[name])
                new = _decode(example["n"], new_features[name])
                shown.append((_show_key(example["k"], key_features), *_show_pair(old, new)))
            result.fields.append(FieldChange(name, rows, shown))
    return result


def _check_unique(connection, config, split, side, key, source, features) -> None:
    columns = ", ".join(_quote(k) for k in key)
    duplicate = connection.execute(
        f"SELECT {columns}, count(*) FROM {source} GROUP BY ALL HAVING count(*) > 1 ORDER BY ALL LIMIT 1"
    ).fetchone()
    if duplicate:
        shown = _show_key(dict(zip(key, duplicate[:-1], strict=True)), features)
        raise CorporaError(
            f"{side} {config}/{split}: key ({', '.join(key)}) is not unique: {shown} is in {duplicate[-1]:,} rows"
        )


def _decode(value, feature):
    """A stored value with class labels as their names (what the label means, not its index)."""
    if value is None:
        return None
    if isinstance(feature, list):
        return [_decode(v, feature[0]) for v in value] if isinstance(value, list) else value
    if not isinstance(feature, dict):
        return value
    kind = feature.get("_type")
    if kind == "ClassLabel":
        names = feature.get("names") or []
        return _Label(names[value]) if isinstance(value, int) and 0 <= value < len(names) else value
    if kind in LISTS:
        return [_decode(v, feature["feature"]) for v in value] if isinstance(value, list) else value
    if kind is None and isinstance(value, dict):
        return {k: _decode(v, feature.get(k)) for k, v in value.items()}
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


def _show_key(key: dict, features: dict) -> str:
    if list(key) == ["_pos"]:
        return f"row {key['_pos']:,}"
    return ", ".join(f"{k}={_cut(_show(_decode(v, features.get(k))), 0)}" for k, v in key.items())


def _show_pair(old, new) -> tuple[str, str]:
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


# Rendering -------------------------------------------------------------------------------------


def render(report: Report, style: str = "text") -> str:
    if style == "json":
        return json.dumps(report.to_json(), indent=2, ensure_ascii=False)
    if style == "markdown":
        return _markdown(report)
    return _text(report)


def _split_line(split: SplitDiff) -> str:
    if split.identical:
        return f"identical ({split.old_rows:,} rows)"
    counts = f"{split.added:,} added, {split.removed:,} removed, {split.changed:,} changed"
    return f"{split.old_rows:,} -> {split.new_rows:,} rows: {counts}, {split.unchanged:,} unchanged"


def _matched_by(config: ConfigDiff) -> str:
    how = "by position" if config.key is None else "by " + ", ".join(config.key)
    return how + (f" ({config.note})" if config.note else "")


def _splits(splits: dict[str, int]) -> str:
    return ", ".join(f"{split} ({rows:,} rows)" for split, rows in splits.items())


def _notes(report: Report) -> list[str]:
    """What changed for users between the two versions, above the row changes."""
    if report.versions is None:
        return []
    missing = _no_note(report.corpus, "")
    return [f"loader version {report.versions[0]} -> {report.versions[1]}, release notes:"] + [
        f"  {version}: {note or missing}" for version, note in report.release_notes.items()]


def _no_note(corpus: str | None, quote: str) -> str:
    return f"no release note in {quote}loaders/{corpus}/{corpus}.py{quote}" if corpus else "no release note known"


def _text(report: Report) -> str:
    lines = [f"old: {report.old}", f"new: {report.new}", *_notes(report)]
    for config, splits in report.configs_added.items():
        lines.append(f"config {config}: added: {_splits(splits)}")
    for config, splits in report.configs_removed.items():
        lines.append(f"config {config}: removed: {_splits(splits)}")
    for config in report.configs:
        lines.append(f"config {config.name} (rows matched {_matched_by(config)}):")
        for name, kind in config.features_added.items():
            lines.append(f"  feature added: {name} ({kind})")
        for name, kind in config.features_removed.items():
            lines.append(f"  feature removed: {name} ({kind})")
        for name, (old, new) in config.features_retyped.items():
            lines.append(f"  feature retyped: {name}: {old} -> {new}")
        for split, rows in config.splits_added.items():
            lines.append(f"  split added: {split} ({rows:,} rows)")
        for split, rows in config.splits_removed.items():
            lines.append(f"  split removed: {split} ({rows:,} rows)")
        for split in config.splits:
            lines.append(f"  {split.name}: {_split_line(split)}")
            for change in split.fields:
                lines.append(f"    {change.name}: {change.rows:,} row{'s' * (change.rows != 1)} changed")
                lines.extend(f"      {key}: {old} -> {new}" for key, old, new in change.examples)
            for what, keys, count in (("added", split.added_keys, split.added),
                                      ("removed", split.removed_keys, split.removed)):
                if keys:
                    lines.append(f"    {what}: {'; '.join(keys)}{'; ...' * (count > len(keys))}")
    lines.append("identical" if report.identical else "the exports differ")
    return "\n".join(lines)


def _code(text: str) -> str:
    """`text` as a Markdown code span that survives backticks and table pipes."""
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    text = text.replace("|", "\\|")
    return f"{fence} {text} {fence}" if fence != "`" else f"`{text}`"


def _markdown(report: Report) -> str:
    title = report.corpus or Path(report.new).name
    verdict = "identical" if report.identical else "the exports differ"
    lines = [f"### corpora diff: {title}", "", f"{_code(report.old)} → {_code(report.new)}: **{verdict}**", ""]
    if report.versions is not None:
        missing = _no_note(report.corpus, "`")
        lines.append(f"Loader version `{report.versions[0]}` → `{report.versions[1]}`, release notes:")
        lines += ["", *(f"- `{version}`: {note or missing}" for version, note in report.release_notes.items()), ""]
    if report.identical:  # one line in a pull request's summary of every corpus
        rows = ", ".join(f"`{c.name}` ({sum(s.old_rows for s in c.splits):,} rows)" for c in report.configs)
        return "\n".join(lines + [f"Every row of every split is the same: {rows}."]) + "\n"
    for config, splits in report.configs_added.items():
        lines.append(f"- config `{config}` added: {_splits(splits)}")
    for config, splits in report.configs_removed.items():
        lines.append(f"- config `{config}` removed: {_splits(splits)}")
    if report.configs_added or report.configs_removed:
        lines.append("")
    for config in report.configs:
        lines += [f"#### `{config.name}` (rows matched {_matched_by(config)})", ""]
        schema = (
            [f"- feature added: `{name}` ({kind})" for name, kind in config.features_added.items()]
            + [f"- feature removed: `{name}` ({kind})" for name, kind in config.features_removed.items()]
            + [f"- feature retyped: `{n}`: {_code(a)} → {_code(b)}" for n, (a, b) in config.features_retyped.items()]
            + [f"- split added: `{split}` ({rows:,} rows)" for split, rows in config.splits_added.items()]
            + [f"- split removed: `{split}` ({rows:,} rows)" for split, rows in config.splits_removed.items()]
        )
        lines += schema + ([""] if schema else [])
        if config.splits:
            lines += ["| split | old rows | new rows | added | removed | changed | unchanged |", "|---|" + "--:|" * 6]
            for s in config.splits:
                counts = (s.old_rows, s.new_rows, s.added, s.removed, s.changed, s.unchanged)
                lines.append(f"| {s.name} | " + " | ".join(f"{n:,}" for n in counts) + " |")
            lines.append("")
        for s in config.splits:
            if s.identical:
                continue
            if s.fields:
                lines += [f"`{s.name}`, changed fields:", ""]
                lines += ["| field | rows | examples (key: old → new) |", "|---|--:|---|"]
                for change in s.fields:
                    examples = "<br>".join(f"{_code(k)}: {_code(o)} → {_code(n)}" for k, o, n in change.examples)
                    lines.append(f"| `{change.name}` | {change.rows:,} | {examples} |")
                lines.append("")
            for what, keys, count in (("added", s.added_keys, s.added), ("removed", s.removed_keys, s.removed)):
                if keys:
                    more = ", ..." if count > len(keys) else ""
                    lines.append(f"`{s.name}`, {what}: " + ", ".join(_code(k) for k in keys) + more)
                    lines.append("")
    return "\n".join(lines).rstrip() + "\n"
