"""`corpora diff OLD NEW` and `corpora build --compare-to`, on real builds of the dummy data.

The "new" exports are real too: the diplomacy loader run on an edited copy of its dummy data
(a message edited, one removed, one added), written as Parquet by datasets; and exports edited
with pyarrow the way a loader change would (a retyped and a removed feature, a new split, a new
config, a duplicate key, a changed label)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow
import pyarrow.parquet
import pytest

from corpora import build
from corpora import diff
from corpora import export
from corpora import registry
from corpora.cli import main

NAME = "diplomacy_detection"


def cli(*argv):
    """`corpora ...` in a real subprocess: exit code, stdout, stderr."""
    script = Path(sys.executable).with_name("corpora")
    result = subprocess.run([str(script), *map(str, argv)], capture_output=True, text=True, env=os.environ.copy())
    return result.returncode, result.stdout, result.stderr


def edit_jsonl(path, line_number, edit):
    lines = path.read_text().splitlines()
    record = json.loads(lines[line_number])
    edit(record)
    lines[line_number] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")


def edit_sources(data_dir):
    """In game 5 (england-turkey) message 41 gets '!' and message 213 is removed; game 2
    (italy-russia) gets a message 246."""
    train = data_dir / "data" / "train.jsonl"

    def game_5(record):
        assert record["game_id"] == 5
        record["messages"][1] = "Sure, no fleets past Tunis!"
        for key, values in record.items():
            if isinstance(values, list) and key != "players":
                del values[3]

    def game_2(record):
        assert record["game_id"] == 2
        extra = {"messages": "See you in Vienna.", "sender_labels": True, "receiver_labels": "NOANNOTATION",
                 "speakers": "russia", "receivers": "italy", "absolute_message_index": 246,
                 "relative_message_index": 3, "seasons": "Fall", "years": "1901", "game_score": "4",
                 "game_score_delta": "1"}
        for key, value in extra.items():
            record[key].append(value)

    edit_jsonl(train, 0, game_5)
    edit_jsonl(train, 2, game_2)


@pytest.fixture(scope="module")
def exports(tmp_path_factory):
    """build-old/NAME: the dummy build; build-new/NAME: the same with train built from the edited
    sources by the loader."""
    root = tmp_path_factory.mktemp("diff")
    export.export_corpus(NAME, root / "build-old", dummy=True)
    data_dir = root / "data_dir"
    shutil.copytree(registry.get(NAME).dummy_dir, data_dir)
    edit_sources(data_dir)
    new = root / "build-new" / NAME
    shutil.copytree(root / "build-old" / NAME, new)
    for config in ("conversations", "messages"):
        dataset = build.load(NAME, config, data_dir=data_dir, cache_dir=root / f"cache-{config}",
                             allow_modified_sources=True)["train"]
        dataset.to_parquet(str(new / config / "train-00000-of-00001.parquet"))
    return root / "build-old" / NAME, new


def rewrite(path, edit):
    """Rewrite a Parquet file through `edit(table, features) -> table`, keeping the `datasets`
    features of its metadata in step with the edit."""
    table = pyarrow.parquet.read_table(path)
    metadata = json.loads(table.schema.metadata[b"huggingface"])
    table = edit(table, metadata["info"]["features"])
    table = table.replace_schema_metadata({b"huggingface": json.dumps(metadata).encode()})
    pyarrow.parquet.write_table(table, path)


def test_edited_removed_and_added_rows(exports):
    old, new = exports
    report = diff.compare(old, new)
    assert not report.identical
    assert report.corpus == NAME
    messages = next(c for c in report.configs if c.name == "messages")
    assert messages.key == ["game_id", "absolute_message_index"]
    train, validation, test = messages.splits
    assert (train.name, train.old_rows, train.new_rows) == ("train", 10, 10)
    assert (train.added, train.removed, train.changed, train.unchanged) == (1, 1, 1, 8)
    assert [(f.name, f.rows, f.examples) for f in train.fields] == [
        ("message", 1, [("game_id=5, absolute_message_index=41", "'Sure, no fleets past Tunis.'",
                         "'Sure, no fleets past Tunis!'")])
    ]
    assert train.added_keys == ["game_id=2, absolute_message_index=246"]
    assert train.removed_keys == ["game_id=5, absolute_message_index=213"]
    assert [(s.name, s.identical, s.unchanged) for s in (validation, test)] == [("validation", True, 3), ("test", True, 5)]

    conversations = report.configs[0]
    assert conversations.key == ["game_id", "players"]
    train = conversations.splits[0]
    assert (train.added, train.removed, train.changed, train.unchanged) == (0, 0, 2, 2)
    # every per-message list changed in both dialogs; class labels are shown by name
    assert [(f.name, f.rows) for f in train.fields] == [
        (name, 2) for name in ("messages", "sender_labels", "receiver_labels", "speakers", "receivers",
                               "absolute_message_index", "relative_message_index", "seasons", "years",
                               "game_score", "game_score_delta")
    ]
    speakers = next(f for f in train.fields if f.name == "speakers")
    assert speakers.examples == [
        ("game_id=2, players=[italy, russia]", "[italy, italy, russia]", "[italy, italy, russia, russia]"),
        ("game_id=5, players=[england, turkey]", "[england, turkey, england, england]", "[england, turkey, england]"),
    ]
    # a long value is cut around its first difference
    messages_field = train.fields[0]
    assert messages_field.examples[1] == (
        "game_id=5, players=[england, turkey]",
        "...Sure, no fleets past Tunis.', 'You took my last centre.', 'Good game!']",
        "...Sure, no fleets past Tunis!', 'You took my last centre.']",
    )


def test_text_output_and_exit_status(exports):
    old, new = exports
    code, out, err = cli("diff", old, new)
    assert (code, err) == (1, "")
    lines = out.splitlines()
    assert lines[:2] == [f"old: {old}", f"new: {new}"]
    start = lines.index("config messages (rows matched by game_id, absolute_message_index):")
    assert lines[start:start + 7] == [
        "config messages (rows matched by game_id, absolute_message_index):",
        "  train: 10 -> 10 rows: 1 added, 1 removed, 1 changed, 8 unchanged",
        "    message: 1 row changed",
        "      game_id=5, absolute_message_index=41: 'Sure, no fleets past Tunis.' -> 'Sure, no fleets past Tunis!'",
        "    added: game_id=2, absolute_message_index=246",
        "    removed: game_id=5, absolute_message_index=213",
        "  validation: identical (3 rows)",
    ]
    assert lines[-1] == "the exports differ"


def test_markdown_output(exports):
    old, new = exports
    code, out, _ = cli("diff", old, new, "--format", "markdown")
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == f"### corpora diff: {NAME}"
    assert lines[2] == f"`{old}` → `{new}`: **the exports differ**"
    start = lines.index("#### `messages` (rows matched by game_id, absolute_message_index)")
    assert lines[start:start + 16] == [
        "#### `messages` (rows matched by game_id, absolute_message_index)",
        "",
        "| split | old rows | new rows | added | removed | changed | unchanged |",
        "|---|--:|--:|--:|--:|--:|--:|",
        "| train | 10 | 10 | 1 | 1 | 1 | 8 |",
        "| validation | 3 | 3 | 0 | 0 | 0 | 3 |",
        "| test | 5 | 5 | 0 | 0 | 0 | 5 |",
        "",
        "`train`, changed fields:",
        "",
        "| field | rows | examples (key: old → new) |",
        "|---|--:|---|",
        "| `message` | 1 | `game_id=5, absolute_message_index=41`: `'Sure, no fleets past Tunis.'` → `'Sure, no fleets past Tunis!'` |",
        "",
        "`train`, added: `game_id=2, absolute_message_index=246`",
        "",
    ]


def test_json_output(exports):
    old, new = exports
    code, out, _ = cli("diff", old, new, "--format", "json")
    assert code == 1
    report = json.loads(out)
    assert (report["identical"], report["corpus"], report["old"], report["new"]) == (False, NAME, str(old), str(new))
    assert [c["name"] for c in report["configs"]] == ["conversations", "messages"]
    train = report["configs"][1]["splits"][0]
    assert train == {
        "name": "train", "old_rows": 10, "new_rows": 10, "added": 1, "removed": 1, "changed": 1, "unchanged": 8,
        "fields": [{"name": "message", "rows": 1, "examples": [
            ["game_id=5, absolute_message_index=41", "'Sure, no fleets past Tunis.'", "'Sure, no fleets past Tunis!'"]
        ]}],
        "added_keys": ["game_id=2, absolute_message_index=246"],
        "removed_keys": ["game_id=5, absolute_message_index=213"],
    }


def test_retyped_and_removed_feature_new_split_and_new_config(exports, tmp_path):
    old, _ = exports
    new = tmp_path / NAME
    shutil.copytree(old, new)

    def retype(table, features):
        features["year"] = {"dtype": "string", "_type": "Value"}
        del features["game_score_delta"]
        year = table.column("year").cast(pyarrow.string())
        table = table.set_column(table.schema.get_field_index("year"), "year", year)
        return table.drop_columns(["game_score_delta"])

    for path in (new / "messages").glob("*.parquet"):
        rewrite(path, retype)
    shutil.copy(new / "messages" / "test-00000-of-00001.parquet", new / "messages" / "extra-00000-of-00001.parquet")
    (new / "senders").mkdir()
    shutil.copy(old / "messages" / "validation-00000-of-00001.parquet", new / "senders" / "train-00000-of-00001.parquet")

    code, out, err = cli("diff", old, new)
    assert (code, err) == (1, "")
    assert out.splitlines()[2:] == [
        "config senders: added: train (3 rows)",
        "config conversations (rows matched by game_id, players):",
        "  train: identical (4 rows)",
        "  validation: identical (2 rows)",
        "  test: identical (2 rows)",
        "config messages (rows matched by game_id, absolute_message_index):",
        "  feature removed: game_score_delta (int32)",
        "  feature retyped: year: int32 -> string",
        "  split added: extra (5 rows)",
        # the years are the same numbers, written as text: no row changed
        "  train: identical (10 rows)",
        "  validation: identical (3 rows)",
        "  test: identical (5 rows)",
        "the exports differ",
    ]
    # and the other way round
    code, out, _ = cli("diff", new, old, "--format", "json")
    report = json.loads(out)
    assert code == 1
    assert report["configs_removed"] == {"senders": {"train": 3}}
    messages = report["configs"][1]
    assert (messages["features_added"], messages["features_removed"]) == ({"game_score_delta": "int32"}, {})
    assert messages["features_retyped"] == {"year": ["string", "int32"]}
    assert messages["splits_removed"] == {"extra": 5}


def test_rows_without_a_key_are_matched_by_position_and_labels_shown_by_name(tmp_path):
    name = "caption_contest_ratings"
    old = tmp_path / "old"
    export.export_corpus(name, old, configs=["summaries", "cartoons"], dummy=True)
    new = tmp_path / "new" / name
    shutil.copytree(old / name, new)
    path = new / "summaries" / "train-00000-of-00001.parquet"
    before = pyarrow.parquet.read_table(path)
    names = json.loads(before.schema.metadata[b"huggingface"])["info"]["features"]["algorithm"]["names"]

    def edit(table, features):
        caption = table.column("caption").to_pylist()
        caption[3] = caption[3] + " (edited)"
        algorithm = table.column("algorithm").to_pylist()
        algorithm[7] = (algorithm[7] + 1) % len(names)
        table = table.set_column(table.schema.get_field_index("caption"), "caption", pyarrow.array(caption))
        column = pyarrow.array(algorithm, table.schema.field("algorithm").type)
        return table.set_column(table.schema.get_field_index("algorithm"), "algorithm", column).slice(0, 399)

    rewrite(path, edit)
    report = diff.compare(old / name, new)
    summaries = next(c for c in report.configs if c.name == "summaries")
    assert summaries.key is None
    split = summaries.splits[0]
    assert (split.added, split.removed, split.changed, split.unchanged) == (0, 1, 2, 397)
    assert split.removed_keys == ["row 399"]
    old_caption = before.column("caption")[3].as_py()
    old_algorithm = before.column("algorithm")[7].as_py()
    assert [(f.name, f.rows, f.examples) for f in split.fields] == [
        ("algorithm", 1, [("row 7", names[old_algorithm], names[(old_algorithm + 1) % len(names)])]),
        ("caption", 1, [("row 3", repr(old_caption), repr(old_caption + " (edited)"))]),
    ]
    assert diff.render(report).splitlines()[2:4] == [
        "config summaries (rows matched by position):",
        "  train: 400 -> 399 rows: 0 added, 1 removed, 2 changed, 397 unchanged",
    ]


def test_a_duplicate_key_is_an_error_naming_it(exports, tmp_path):
    old, _ = exports
    new = tmp_path / NAME
    shutil.copytree(old, new)
    rewrite(new / "messages" / "train-00000-of-00001.parquet", lambda table, _: pyarrow.concat_tables([table, table.slice(2, 1)]))
    code, out, err = cli("diff", old, new)
    assert (code, out) == (2, "")
    assert err == (
        "corpora diff: error: new messages/train: key (game_id, absolute_message_index) is not unique: "
        "game_id=5, absolute_message_index=212 is in 2 rows\n"
    )


def test_errors_exit_2(tmp_path, exports):
    old, _ = exports
    code, out, err = cli("diff", old, tmp_path / "missing")
    assert (code, out, err) == (2, "", f"corpora diff: error: new export {tmp_path / 'missing'} is not a folder\n")
    (tmp_path / "empty").mkdir()
    code, _, err = cli("diff", tmp_path / "empty", old)
    assert (code, err) == (2, f"corpora diff: error: old export {tmp_path / 'empty'} holds no <config>/<split>-*.parquet files\n")


@pytest.mark.parametrize("name", registry.names())
def test_two_dummy_builds_are_identical(name, dummy_export, tmp_path, capsys):
    export.export_corpus(name, tmp_path, dummy=True)
    assert main(["diff", str(dummy_export(name)), str(tmp_path / name)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "identical"
    corpus = registry.get(name)
    keys = corpus.module._KEYS
    configs = [corpus.default_config] + [c for c in corpus.configs if c != corpus.default_config]
    expected = [f"config {c} (rows matched {'by ' + ', '.join(keys[c]) if c in keys else 'by position'}):" for c in configs]
    assert [line for line in out.splitlines() if line.startswith("config ")] == expected


def test_build_compare_to_prints_the_summary_before_the_swap(exports, tmp_path, capsys):
    _, new = exports
    out = tmp_path / "build"
    # OLD is an export folder holding NAME: here the edited export, so the build undoes the edits
    assert main(["build", NAME, "--dummy", "--config", "messages", "--out", str(out), "--compare-to", str(new.parent)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:6] == [
        f"old: {new}",
        f"new: {out / NAME}",
        "config messages (rows matched by game_id, absolute_message_index):",
        "  train: 10 -> 10 rows: 1 added, 1 removed, 1 changed, 8 unchanged",
        "    message: 1 row changed",
        "      game_id=5, absolute_message_index=41: 'Sure, no fleets past Tunis!' -> 'Sure, no fleets past Tunis.'",
    ]
    # OUT itself: the export being replaced
    assert main(["build", NAME, "--dummy", "--config", "messages", "--out", str(out), "--compare-to", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2:7] == [
        "config messages (rows matched by game_id, absolute_message_index):",
        "  train: identical (10 rows)",
        "  validation: identical (3 rows)",
        "  test: identical (5 rows)",
        "identical",
    ]
    assert main(["build", NAME, "--dummy", "--out", str(tmp_path / "first"), "--compare-to", str(tmp_path / "first")]) == 0
    assert capsys.readouterr().out.splitlines()[0] == f"--compare-to: no export at {tmp_path / 'first' / NAME} to compare with"


def test_every_loader_key_is_a_column_of_its_config():
    for corpus in registry.all_corpora():
        for config, key in getattr(corpus.module, "_KEYS", {}).items():
            assert config in corpus.configs
            assert set(key) <= set(corpus.features(config)), (corpus.name, config)


def test_reordered_class_label_names_change_what_the_rows_mean(exports, tmp_path):
    old, _ = exports
    new = tmp_path / NAME
    shutil.copytree(old, new)

    def reverse_names(table, features):
        features["speaker"]["names"].reverse()  # the stored indices stay, their names change
        return table

    rewrite(new / "messages" / "train-00000-of-00001.parquet", reverse_names)
    report = diff.compare(old, new, configs=["messages"])
    assert [c.name for c in report.configs] == ["messages"]
    messages = report.configs[0]
    assert messages.features_retyped == {"speaker": (
        "class_label[austria, england, france, germany, italy, russia, turkey]",
        "class_label[turkey, russia, italy, germany, france, england, austria]",
    )}
    train = messages.splits[0]
    assert (train.changed, train.unchanged) == (10, 0)
    assert [(f.name, f.rows, f.examples) for f in train.fields] == [("speaker", 10, [
        ("game_id=1, absolute_message_index=7", "'austria'", "'turkey'"),
        ("game_id=1, absolute_message_index=8", "'italy'", "'france'"),
        ("game_id=1, absolute_message_index=150", "'austria'", "'turkey'"),
    ])]


def test_identical_in_every_format(exports, capsys):
    old, _ = exports
    assert main(["diff", str(old), str(old), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["identical"] is True
    assert [(s["name"], s["unchanged"]) for c in report["configs"] for s in c["splits"]] == [
        ("train", 4), ("validation", 2), ("test", 2), ("train", 10), ("validation", 3), ("test", 5)
    ]
    assert main(["diff", str(old), str(old), "--format", "markdown"]) == 0
    assert capsys.readouterr().out == (
        f"### corpora diff: {NAME}\n\n`{old}` → `{old}`: **identical**\n\n"
        "Every row of every split is the same: `conversations` (8 rows), `messages` (18 rows).\n\n"
    )


def test_key_option_overrides_the_loader_key(exports, capsys):
    old, new = exports
    assert main(["diff", str(old), str(new), "--config", "messages", "--key", "messages="]) == 1
    lines = capsys.readouterr().out.splitlines()
    # by position, the removed message 213 (row 3) shifts game 2's rows 3-6 by one, the edited
    # message is row 1, and game 1's rows 7-9 are back in place after the added message 246
    assert lines[2:4] == [
        "config messages (rows matched by position):",
        "  train: 10 -> 10 rows: 0 added, 0 removed, 5 changed, 5 unchanged",
    ]
    assert main(["diff", str(old), str(new), "--key", "messages"]) == 2
    assert capsys.readouterr().err == "corpora diff: error: --key messages: expected CONFIG=COL[,COL] (or CONFIG= for position)\n"


def test_an_unknown_config_is_an_error(exports):
    old, new = exports
    code, out, err = cli("diff", old, new, "--config", "message")
    assert (code, out, err) == (2, "", "corpora diff: error: no config message in either export\n")
