"""`corpora diff OLD NEW` and `corpora build --compare-to`, on real builds of the dummy data of the
example corpus (tests/example_collection).

The "new" exports are real too: the example loader run on an edited copy of its dummy data
(train: a score and a text edited, one rating removed, one added), written as Parquet by datasets;
and exports edited with pyarrow the way a loader change would (a retyped and a removed feature, a
new split, a new config, a duplicate key, a changed label). Two tests are generic over every
corpus of the collection under test (dummy builds are reproducible, loader keys are columns)."""

import json
import shutil
from pathlib import Path

import datasets
import pyarrow
import pyarrow.parquet
import pytest

import corpora
from corpora import cards
from corpora import diff
from corpora import export_folder
from corpora import prepare
from corpora import registry
from corpora.cli import main
from corpora.exports import MARK
from corpora.feature_spelling import spell
from helpers import EXAMPLE
from helpers import corpora_here
from helpers import using_example

NAME = EXAMPLE
pytestmark = [pytest.mark.usefixtures("example_collection"), pytest.mark.other_dependencies]


def edit_jsonl(path, line_number, edit):
    lines = path.read_text().splitlines()
    record = json.loads(lines[line_number])
    edit(record)
    lines[line_number] = json.dumps(record, ensure_ascii=False)
    path.write_text("\n".join(lines) + "\n")


LONG_TEXT = "The meeting moved to Thursday, as the room booked for Wednesday was needed for the audit."


def edit_sources(data_dir):
    """In train: s01 gets a long text and ben's score 3 becomes 2; s02 loses chen's rating; s08
    gets a rating by emil (3)."""

    def s01(record):
        assert record["sentence_id"] == "s01" and record["raters"][1] == "ben"
        record["text"] = LONG_TEXT
        record["scores"][1] = 2

    def s02(record):
        assert record["sentence_id"] == "s02" and record["raters"] == ["ben", "chen"]
        del record["raters"][1], record["scores"][1]

    def s08(record):
        assert record["sentence_id"] == "s08"
        record["raters"].append("emil")
        record["scores"].append(3)

    edit_jsonl(data_dir / "data" / "train-1.jsonl", 0, s01)
    edit_jsonl(data_dir / "data" / "train-1.jsonl", 1, s02)
    edit_jsonl(data_dir / "data" / "train-2.jsonl", 0, s08)


@pytest.fixture(scope="module")
def exports(tmp_path_factory):
    """build-old/NAME: the dummy build; build-new/NAME: the same with train of `sentences` and
    `ratings` (both read the edited files) built from the edited sources by the loader."""
    with using_example():
        root = tmp_path_factory.mktemp("diff")
        export_folder.export(prepare.Request(registry.get(NAME), dummy=True), root / "build-old")
        data_dir = root / "data_dir"
        shutil.copytree(registry.get(NAME).dummy_dir, data_dir)
        edit_sources(data_dir)
        new = root / "build-new" / NAME
        shutil.copytree(root / "build-old" / NAME, new)
        for config in ("sentences", "ratings"):
            dataset = corpora.load(NAME, config, data_dir=data_dir, cache_dir=root / f"cache-{config}",
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
    ratings = next(c for c in report.configs if c.name == "ratings")
    assert ratings.key == ["sentence_id", "rater"]
    train, validation, test = ratings.splits
    assert (train.name, train.old_rows, train.new_rows) == ("train", 10, 10)
    assert (train.added, train.removed, train.changed, train.unchanged) == (1, 1, 1, 8)
    assert [(f.name, f.rows, f.examples) for f in train.fields] == [
        ("score", 1, [("sentence_id='s01', rater='ben'", "3", "2")])
    ]
    assert train.added_keys == ["sentence_id='s08', rater='emil'"]
    assert train.removed_keys == ["sentence_id='s02', rater='chen'"]
    assert [(s.name, s.identical, s.unchanged) for s in (validation, test)] == [("validation", True, 5), ("test", True, 6)]

    sentences = report.configs[0]
    assert sentences.key == ["sentence_id"]
    train = sentences.splits[0]
    assert (train.added, train.removed, train.changed, train.unchanged) == (0, 0, 3, 1)
    # the per-rating lists changed in the three edited sentences, the text in one
    assert [(f.name, f.rows) for f in train.fields] == [("text", 1), ("raters", 2), ("scores", 3)]
    raters, scores = train.fields[1:]
    assert raters.examples == [
        ("sentence_id='s02'", "['ben', 'chen']", "['ben']"),
        ("sentence_id='s08'", "['chen', 'dara']", "['chen', 'dara', 'emil']"),
    ]
    assert scores.examples == [
        ("sentence_id='s01'", "[1, 3, 5]", "[1, 2, 5]"),
        ("sentence_id='s02'", "[4, 1]", "[4]"),
        ("sentence_id='s08'", "[2, 4]", "[2, 4, 3]"),
    ]
    # a long value is cut around its first difference (the 30th character, ',' for '.')
    assert train.fields[0].examples == [(
        "sentence_id='s01'",
        "... meeting moved to Thursday.'",
        "... meeting moved to Thursday, as the room booked for Wednesday was needed for t...",
    )]
    assert [c.name for c in report.configs] == ["sentences", "ratings", "raters"]
    assert report.configs[2].identical


def test_text_output_and_exit_status(exports):
    old, new = exports
    code, out, err = corpora_here("diff", old, new)
    assert (code, err) == (1, "")
    lines = out.splitlines()
    assert lines[:2] == [f"old: {old}", f"new: {new}"]
    start = lines.index("config ratings (rows matched by sentence_id, rater):")
    assert lines[start:start + 7] == [
        "config ratings (rows matched by sentence_id, rater):",
        "  train: 10 -> 10 rows: 1 added, 1 removed, 1 changed, 8 unchanged",
        "    score: 1 row changed",
        "      sentence_id='s01', rater='ben': 3 -> 2",
        "    added: sentence_id='s08', rater='emil'",
        "    removed: sentence_id='s02', rater='chen'",
        "  validation: identical (5 rows)",
    ]
    assert lines[-1] == "the exports differ"


def test_markdown_output(exports):
    old, new = exports
    code, out, _ = corpora_here("diff", old, new, "--format", "markdown")
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == f"### corpora diff: {NAME}"
    assert lines[2] == f"`{old}` → `{new}`: **the exports differ**"
    start = lines.index("#### `ratings` (rows matched by sentence_id, rater)")
    assert lines[start:start + 16] == [
        "#### `ratings` (rows matched by sentence_id, rater)",
        "",
        "| split | old rows | new rows | added | removed | changed | unchanged |",
        "|---|--:|--:|--:|--:|--:|--:|",
        "| train | 10 | 10 | 1 | 1 | 1 | 8 |",
        "| validation | 5 | 5 | 0 | 0 | 0 | 5 |",
        "| test | 6 | 6 | 0 | 0 | 0 | 6 |",
        "",
        "`train`, changed fields:",
        "",
        "| field | rows | examples (key: old → new) |",
        "|---|--:|---|",
        "| `score` | 1 | `sentence_id='s01', rater='ben'`: `3` → `2` |",
        "",
        "`train`, added: `sentence_id='s08', rater='emil'`",
        "",
    ]


def test_json_output(exports):
    old, new = exports
    code, out, _ = corpora_here("diff", old, new, "--format", "json")
    assert code == 1
    report = json.loads(out)
    assert (report["identical"], report["corpus"], report["old"], report["new"]) == (False, NAME, str(old), str(new))
    assert [c["name"] for c in report["configs"]] == ["sentences", "ratings", "raters"]
    train = report["configs"][1]["splits"][0]
    assert train == {
        "name": "train", "old_rows": 10, "new_rows": 10, "added": 1, "removed": 1, "changed": 1, "unchanged": 8,
        "fields": [{"name": "score", "rows": 1, "examples": [["sentence_id='s01', rater='ben'", "3", "2"]]}],
        "added_keys": ["sentence_id='s08', rater='emil'"],
        "removed_keys": ["sentence_id='s02', rater='chen'"],
    }


def test_retyped_and_removed_feature_new_split_and_new_config(exports, tmp_path):
    old, _ = exports
    new = tmp_path / NAME
    shutil.copytree(old, new)

    def retype(table, features):
        features["score"] = {"dtype": "string", "_type": "Value"}
        del features["language"]
        score = table.column("score").cast(pyarrow.string())
        table = table.set_column(table.schema.get_field_index("score"), "score", score)
        return table.drop_columns(["language"])

    for path in (new / "ratings").glob("*.parquet"):
        rewrite(path, retype)
    shutil.copy(new / "ratings" / "test-00000-of-00001.parquet", new / "ratings" / "extra-00000-of-00001.parquet")
    (new / "scores").mkdir()
    shutil.copy(old / "ratings" / "validation-00000-of-00001.parquet", new / "scores" / "train-00000-of-00001.parquet")

    code, out, err = corpora_here("diff", old, new)
    assert (code, err) == (1, "")
    assert out.splitlines()[2:] == [
        "config scores: added: train (5 rows)",
        "config sentences (rows matched by sentence_id):",
        "  train: identical (4 rows)",
        "  validation: identical (2 rows)",
        "  test: identical (2 rows)",
        "config ratings (rows matched by sentence_id, rater):",
        "  feature removed: language (class label (de, en))",
        "  feature retyped: score: int32 -> string",
        "  split added: extra (6 rows)",
        # the scores are the same numbers, written as text: no row changed
        "  train: identical (10 rows)",
        "  validation: identical (5 rows)",
        "  test: identical (6 rows)",
        "config raters (rows matched by rater):",
        "  train: identical (3 rows)",
        "the exports differ",
    ]
    # and the other way round
    code, out, _ = corpora_here("diff", new, old, "--format", "json")
    report = json.loads(out)
    assert code == 1
    assert report["configs_removed"] == {"scores": {"train": 5}}
    ratings = report["configs"][1]
    assert (ratings["features_added"], ratings["features_removed"]) == ({"language": "class label (de, en)"}, {})
    assert ratings["features_retyped"] == {"score": ["string", "int32"]}
    assert ratings["splits_removed"] == {"extra": 6}


def test_rows_without_a_key_are_matched_by_position_and_labels_shown_by_name(tmp_path, monkeypatch):
    # The example declares a key for every config; a loader may leave a config without one.
    monkeypatch.setattr(registry.get(NAME).config("sentences"), "key", ())
    old = tmp_path / "old"
    export_folder.export(prepare.Request(registry.get(NAME), configs=["sentences", "raters"], dummy=True), old)
    new = tmp_path / "new" / NAME
    shutil.copytree(old / NAME, new)
    path = new / "sentences" / "train-00000-of-00001.parquet"

    def edit(table, features):  # rows: s01, s02, s08, s11
        assert features["language"]["names"] == ["de", "en"]
        text = table.column("text").to_pylist()
        text[1] = text[1] + " (edited)"
        language = table.column("language").to_pylist()
        language[2] = 1 - language[2]
        table = table.set_column(table.schema.get_field_index("text"), "text", pyarrow.array(text))
        column = pyarrow.array(language, table.schema.field("language").type)
        return table.set_column(table.schema.get_field_index("language"), "language", column).slice(0, 3)

    rewrite(path, edit)
    report = diff.compare(old / NAME, new)
    sentences = next(c for c in report.configs if c.name == "sentences")
    assert sentences.key is None
    split = sentences.splits[0]
    assert (split.added, split.removed, split.changed, split.unchanged) == (0, 1, 2, 1)
    assert split.removed_keys == ["row 3"]
    assert [(f.name, f.rows, f.examples) for f in split.fields] == [
        ("text", 1, [("row 1", "'Der Zug fährt um acht Uhr ab.'", "'Der Zug fährt um acht Uhr ab. (edited)'")]),
        ("language", 1, [("row 2", "en", "de")]),
    ]
    assert diff.render(report).splitlines()[2:6] == [
        "config sentences (rows matched by position):",
        "  train: 4 -> 3 rows: 0 added, 1 removed, 2 changed, 1 unchanged",
        "    text: 1 row changed",
        "      row 1: 'Der Zug fährt um acht Uhr ab.' -> 'Der Zug fährt um acht Uhr ab. (edited)'",
    ]
    assert next(c for c in report.configs if c.name == "raters").key == ["rater"]  # still by its key


def test_a_duplicate_key_is_an_error_naming_it(exports, tmp_path):
    old, _ = exports
    new = tmp_path / NAME
    shutil.copytree(old, new)
    rewrite(new / "ratings" / "train-00000-of-00001.parquet", lambda table, _: pyarrow.concat_tables([table, table.slice(2, 1)]))
    code, out, err = corpora_here("diff", old, new)
    assert (code, out) == (2, "")
    assert err == (
        "corpora diff: error: new ratings/train: key (sentence_id, rater) is not unique: "
        "sentence_id='s01', rater='chen' is in 2 rows\n"
    )


def test_errors_exit_2(tmp_path, exports):
    old, _ = exports
    code, out, err = corpora_here("diff", old, tmp_path / "missing")
    assert (code, out, err) == (2, "", f"corpora diff: error: new export {tmp_path / 'missing'} is not a folder\n")
    (tmp_path / "empty").mkdir()
    code, _, err = corpora_here("diff", tmp_path / "empty", old)
    assert (code, err) == (2, f"corpora diff: error: old export {tmp_path / 'empty'} holds no <config>/<split>-*.parquet files\n")


def test_exports_of_two_corpora_are_an_error(tmp_path, exports):
    old, _ = exports
    other = shutil.copytree(old, tmp_path / "other")
    mark = json.loads((other / MARK).read_text())
    (other / MARK).write_text(json.dumps(dict(mark, corpus="another_corpus")))
    code, out, err = corpora_here("diff", old, other)
    assert (code, out, err) == (2, "", (
        f"corpora diff: error: {old} is an export of {NAME} and {other} one of another_corpus: "
        "a diff compares two exports of one corpus\n"))


def test_configs_are_in_the_loader_order_with_the_key_each_is_matched_by(dummy_export, tmp_path, capsys):
    export_folder.export(prepare.Request(registry.get(NAME), dummy=True), tmp_path)
    assert main(["diff", str(dummy_export(NAME)), str(tmp_path / NAME)]) == 0
    assert capsys.readouterr().out.splitlines()[2:] == [
        "config sentences (rows matched by sentence_id):",
        "  train: identical (4 rows)",
        "  validation: identical (2 rows)",
        "  test: identical (2 rows)",
        "config ratings (rows matched by sentence_id, rater):",
        "  train: identical (10 rows)",
        "  validation: identical (5 rows)",
        "  test: identical (6 rows)",
        "config raters (rows matched by rater):",
        "  train: identical (3 rows)",
        "identical",
    ]


def test_build_compare_to_prints_the_summary_before_the_swap(exports, tmp_path, capsys):
    _, new = exports
    out = tmp_path / "build"
    # OLD is an export folder holding NAME: here the edited export, so the build undoes the edits
    assert main(["build", NAME, "--dummy", "--config", "ratings", "--out", str(out), "--compare-to", str(new.parent)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:8] == [
        f"old: {new}",
        f"new: {out / NAME}",
        "config raters: removed: train (3 rows)",  # the configs OLD has and this build does not
        "config sentences: removed: train (4 rows), validation (2 rows), test (2 rows)",
        "config ratings (rows matched by sentence_id, rater):",
        "  train: 10 -> 10 rows: 1 added, 1 removed, 1 changed, 8 unchanged",
        "    score: 1 row changed",
        "      sentence_id='s01', rater='ben': 2 -> 3",
    ]
    # OUT itself: the export being replaced
    assert main(["build", NAME, "--dummy", "--config", "ratings", "--out", str(out), "--compare-to", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2:7] == [
        "config ratings (rows matched by sentence_id, rater):",
        "  train: identical (10 rows)",
        "  validation: identical (5 rows)",
        "  test: identical (6 rows)",
        "identical",
    ]
    assert main(["build", NAME, "--dummy", "--out", str(tmp_path / "first"), "--compare-to", str(tmp_path / "first")]) == 0
    assert capsys.readouterr().out.splitlines()[0] == f"--compare-to: no export at {tmp_path / 'first' / NAME} to compare with"


def test_reordered_class_label_names_change_what_the_rows_mean(exports, tmp_path):
    old, _ = exports
    new = tmp_path / NAME
    shutil.copytree(old, new)

    def reverse_names(table, features):
        features["language"]["names"].reverse()  # the stored indices stay, their names change
        return table

    rewrite(new / "sentences" / "train-00000-of-00001.parquet", reverse_names)
    report = diff.compare(old, new, configs=["sentences"])
    assert [c.name for c in report.configs] == ["sentences"]
    sentences = report.configs[0]
    assert sentences.features_retyped == {"language": ("class label (de, en)", "class label (en, de)")}
    train = sentences.splits[0]
    assert (train.changed, train.unchanged) == (4, 0)
    assert [(f.name, f.rows, f.examples) for f in train.fields] == [("language", 4, [
        ("sentence_id='s01'", "'en'", "'de'"),
        ("sentence_id='s02'", "'de'", "'en'"),
        ("sentence_id='s08'", "'en'", "'de'"),
    ])]


def test_a_value_that_becomes_null_and_null_that_becomes_a_value_are_changes(exports, tmp_path):
    old_export, _ = exports
    old, new = tmp_path / "old" / NAME, tmp_path / "new" / NAME

    def without(rater):
        def edit(table, features):
            years = [None if name == rater else value
                     for name, value in zip(table["rater"].to_pylist(), table["years_rating"].to_pylist(), strict=True)]
            column = pyarrow.array(years, table.schema.field("years_rating").type)
            return table.set_column(table.schema.get_field_index("years_rating"), "years_rating", column)

        return edit

    for folder, rater in ((old, "ben"), (new, "ana")):  # ben: null, then 1; ana: 4, then null
        shutil.copytree(old_export, folder)
        rewrite(folder / "raters" / "train-00000-of-00001.parquet", without(rater))
    (raters,) = diff.compare(old, new, configs=["raters"]).configs
    (train,) = raters.splits
    assert (train.added, train.removed, train.changed, train.unchanged) == (0, 0, 2, 1)
    assert [(f.name, f.rows, f.examples) for f in train.fields] == [
        ("years_rating", 2, [("rater='ana'", "4", "None"), ("rater='ben'", "None", "1")])]


def test_identical_in_every_format(exports, capsys):
    old, _ = exports
    assert main(["diff", str(old), str(old), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["identical"] is True
    assert [(c["name"], s["name"], s["unchanged"]) for c in report["configs"] for s in c["splits"]] == [
        ("sentences", "train", 4), ("sentences", "validation", 2), ("sentences", "test", 2),
        ("ratings", "train", 10), ("ratings", "validation", 5), ("ratings", "test", 6), ("raters", "train", 3),
    ]
    assert main(["diff", str(old), str(old), "--format", "markdown"]) == 0
    assert capsys.readouterr().out == (
        f"### corpora diff: {NAME}\n\n`{old}` → `{old}`: **identical**\n\n"
        "Every row of every split is the same: `sentences` (8 rows), `ratings` (21 rows), `raters` (3 rows).\n\n"
    )


def test_exports_under_other_names_are_matched_by_the_corpus_they_record(exports, tmp_path, capsys):
    # Folders named otherwise (a repo id of the user's choice, `mine_v1`): a local export says its
    # corpus in its mark, a published one (no mark: it is not uploaded) in its card's YAML.
    old, new = exports
    renamed_old, renamed_new = shutil.copytree(old, tmp_path / "a" / "mine_v1"), shutil.copytree(new, tmp_path / "b" / "mine_v2")
    assert main(["diff", str(renamed_old), str(renamed_new), "--config", "ratings"]) == 1  # by the marks
    assert capsys.readouterr().out.splitlines()[2] == "config ratings (rows matched by sentence_id, rater):"
    for folder in (renamed_old, renamed_new):
        (Path(folder) / MARK).unlink()
        assert cards.read_metadata(Path(folder) / "README.md")["corpora"]["corpus"] == NAME
    assert main(["diff", str(renamed_old), str(renamed_new), "--config", "ratings"]) == 1  # by the cards
    assert capsys.readouterr().out.splitlines()[2] == "config ratings (rows matched by sentence_id, rater):"


def test_key_option_overrides_the_loader_key(exports, capsys):
    old, new = exports
    assert main(["diff", str(old), str(new), "--config", "ratings", "--key", "ratings="]) == 1
    lines = capsys.readouterr().out.splitlines()
    # by position, the removed rating (s02, chen: row 4) shifts s08's ratings into rows 4-6, the
    # edited score is row 1, and s11's rows 7-9 are back in place after the added (s08, emil)
    assert lines[2:4] == [
        "config ratings (rows matched by position):",
        "  train: 10 -> 10 rows: 0 added, 0 removed, 4 changed, 6 unchanged",
    ]
    assert main(["diff", str(old), str(new), "--key", "ratings"]) == 2
    assert capsys.readouterr().err == "corpora diff: error: --key ratings: expected CONFIG=COL[,COL] (or CONFIG= for position)\n"


def test_a_key_column_that_does_not_exist_is_an_error_naming_it(exports):
    old, new = exports
    code, out, err = corpora_here("diff", old, new, "--key", "ratings=game")
    assert (code, out) == (2, "")
    assert err == ("corpora diff: error: --key ratings=game: no column 'game' in config 'ratings'; its columns: "
                   "language, rater, score, sentence_id\n")
    code, out, err = corpora_here("diff", old, new, "--key", "messages=game")
    assert (code, out, err) == (2, "", "corpora diff: error: --key messages=...: no config 'messages' in either export\n")


def test_an_unknown_config_is_an_error(exports):
    old, new = exports
    code, out, err = corpora_here("diff", old, new, "--config", "rating")
    assert (code, out, err) == (2, "", "corpora diff: error: no config rating in either export\n")


def test_a_feature_type_is_spelled_alike_from_the_features_and_from_a_parquet_files_json():
    features = datasets.Features({"a": datasets.ClassLabel(names=["de", "en"]),
                                  "b": datasets.Sequence(datasets.Value("int32")),
                                  "c": {"x": datasets.Value("string")}, "d": datasets.Image()})
    expected = {"a": "class label (de, en)", "b": "list of int32", "c": "struct (x: string)", "d": "image"}
    assert {name: spell(feature) for name, feature in features.items()} == expected  # the card's
    assert {name: spell(feature) for name, feature in features.to_dict().items()} == expected  # diff's
    assert spell(features["c"], fields=False) == "struct"  # the card lists a struct's fields in rows of their own
