"""What a diff found, and the report said in text, Markdown or JSON (docs/diff.md)."""

from __future__ import annotations

import json
import re
from dataclasses import asdict
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path


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
