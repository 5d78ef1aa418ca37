"""diplomacy_detection: every quirk of loaders/diplomacy_detection/FORMAT.md, and bad input (BAD_INPUT, run by
test_bad_input.py)."""

import json

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from conftest import HTML
from conftest import LFS
from conftest import BadInput
from conftest import build_error as shared_build_error
from conftest import json_values
from conftest import near_valid
from conftest import official_sizes_of_the_dummy_data
from conftest import readme_snippet
from conftest import table_lines
from corpora import load
from corpora import registry
from corpora.cli import main
from corpora.errors import CorporaError
from corpora.sources import MissingSourceFiles
from synthetic_diplomacy_detection import write_diplomacy

NAME = "diplomacy_detection"
COUNTRIES = ["austria", "england", "france", "germany", "italy", "russia", "turkey"]
loader = registry.get(NAME).module  # for its pure functions and constants


def country(index):
    return COUNTRIES[index]


# --- the quirks, on the dummy data ---------------------------------------------------------


def test_noannotation_becomes_none_next_to_booleans(dummy_build):
    italy_russia = dummy_build(NAME, "conversations")["train"][2]
    assert italy_russia["receiver_labels"] == [None, None, False]
    assert italy_russia["sender_labels"] == [True, True, False]
    messages = dummy_build(NAME, "messages")
    labels = [label for split in messages for label in messages[split]["receiver_label"]]
    assert (labels.count(None), labels.count(True), labels.count(False)) == (5, 9, 4)


def test_integer_zero_among_string_scores(dummy_build):
    england_turkey = dummy_build(NAME, "conversations")["train"][0]
    assert england_turkey["game_score"] == [4, 6, 0, 0]
    assert england_turkey["game_score_delta"] == [-2, 2, 0, -9]
    assert england_turkey["years"] == [1905, 1905, 1908, 1908]


def test_dialog_with_every_list_empty(dummy_build):
    empty = dummy_build(NAME, "conversations")["train"][1]
    assert [country(i) for i in empty["players"]] == ["germany", "turkey"]
    assert empty["game_id"] == 1
    assert all(empty[key] == [] for key in loader._MESSAGE_FIELDS)
    # ...and it contributes no example to the messages config
    assert dummy_build(NAME, "messages")["train"]["game_id"] == [5, 5, 5, 5, 2, 2, 2, 1, 1, 1]


def test_escapes_are_decoded_once(dummy_build):
    conversations = dummy_build(NAME, "conversations")
    assert conversations["train"][2]["messages"][0] == "What\u2019re you thinking for the early game?"
    assert conversations["train"][2]["messages"][2].startswith("Hey Italy,\nI want to go North")
    deal = conversations["train"][3]["messages"][0]
    assert deal == "Deal? \U0001F91D" and len(deal) == 7  # one code point, not two surrogates
    assert conversations["validation"][1]["messages"][2].endswith("\U0001F609")


def test_repeated_texts_are_kept(dummy_build):
    texts = dummy_build(NAME, "messages")["train"]["message"]
    assert texts.count("Yes") == 2


def test_class_labels_carry_the_measured_values(dummy_build):
    features = dummy_build(NAME, "messages")["train"].features
    assert features["speaker"].names == COUNTRIES
    assert features["season"].names == ["Spring", "Fall", "Winter"]
    seasons = dummy_build(NAME, "conversations")["train"][0]["seasons"]
    assert [features["season"].int2str(s) for s in seasons] == ["Spring", "Spring", "Fall", "Winter"]


def test_messages_are_the_conversations_flattened(dummy_build):
    conversations = dummy_build(NAME, "conversations")
    messages = dummy_build(NAME, "messages")
    for split in conversations:
        expected = [
            dict({one: dialog[plural][i] for plural, one in loader._MESSAGE_FIELDS.items()},
                 players=dialog["players"], game_id=dialog["game_id"])
            for dialog in conversations[split]
            for i in range(len(dialog["messages"]))
        ]
        assert messages[split].to_list() == expected


# --- bad input: one clear error naming file, line and field -----------------------------------


def rewrite_line(data_dir, split, line_number, change):
    path = data_dir / "data" / f"{split}.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    lines[line_number - 1] = change(lines[line_number - 1])
    path.write_text("".join(lines))


def build_error(data_dir, config="conversations"):
    return shared_build_error(NAME, config, data_dir)


def edit(field, function):
    def change(line):
        record = json.loads(line)
        function(record[field])
        return json.dumps(record) + "\n"
    return change


def test_truncated_json_line(dummy_copy):
    data_dir = dummy_copy(NAME)
    rewrite_line(data_dir, "train", 4, lambda line: line[:80])  # an interrupted download
    assert build_error(data_dir) == (
        "data/train.jsonl, line 4: invalid JSON (Expecting value: line 1 column 81 (char 80))"
    )


def test_bytes_that_are_not_utf8(dummy_copy):
    data_dir = dummy_copy(NAME)
    path = data_dir / "data" / "validation.jsonl"
    path.write_bytes(path.read_bytes().replace(b"Bur is yours", b"Bur is \xe9 yours"))
    assert build_error(data_dir) == (
        "data/validation.jsonl, line 2: not UTF-8 (byte 0xe9 at offset 34 of the line: invalid continuation byte)"
    )


def test_list_length_differs_from_the_others(dummy_copy):
    data_dir = dummy_copy(NAME)
    rewrite_line(data_dir, "validation", 2, edit("receiver_labels", lambda values: values.pop()))
    assert build_error(data_dir, "messages") == (
        "data/validation.jsonl, line 2: field 'receiver_labels' has 2 items but 'messages' has 3"
    )


@pytest.mark.parametrize(
    "field,position,value",
    [("speakers", 1, "prussia"), ("receivers", 0, "Italy"), ("seasons", 2, "Autumn"), ("years", 0, "1900"),
     ("game_score", 1, "19"), ("game_score", 0, "03"), ("game_score_delta", 0, 1.5), ("sender_labels", 0, "true"),
     ("receiver_labels", 1, "noannotation"), ("absolute_message_index", 0, "3")],
)
def test_value_outside_the_documented_domain(dummy_copy, field, position, value):
    data_dir = dummy_copy(NAME)
    rewrite_line(data_dir, "test", 2, edit(field, lambda values: values.__setitem__(position, value)))
    expected = EXPECTED[field]
    assert build_error(data_dir) == (
        f"data/test.jsonl, line 2: field {field!r}[{position}]: invalid value {value!r} (expected {expected})"
    )


COUNTRY = "one of 'austria', 'england', 'france', 'germany', 'italy', 'russia', 'turkey'"
EXPECTED = {
    "speakers": COUNTRY,
    "receivers": COUNTRY,
    "seasons": "'Spring' or 'Fall' or 'Winter'",
    "years": "an integer from 1901 to 1918",
    "game_score": "an integer from 0 to 18",
    "game_score_delta": "an integer from -18 to 18",
    "sender_labels": "true or false",
    "receiver_labels": "true, false or 'NOANNOTATION'",
    "absolute_message_index": "a JSON integer from 0 to 2**31 - 1",
}


@pytest.mark.parametrize("players", [["england", "prussia"], ["england", "england"], ["england"]])
def test_players_must_be_two_countries(dummy_copy, players):
    data_dir = dummy_copy(NAME)
    rewrite_line(data_dir, "train", 1, edit("players", lambda values: values.__setitem__(slice(None), players)))
    assert build_error(data_dir) == (
        f"data/train.jsonl, line 1: field 'players': invalid value {players!r} (expected two different countries of {COUNTRIES})"
    )


def test_unknown_game(dummy_copy):
    data_dir = dummy_copy(NAME)
    rewrite_line(data_dir, "train", 2, lambda line: line.replace('"game_id": 1}', '"game_id": "1"}'))
    assert build_error(data_dir) == "data/train.jsonl, line 2: field 'game_id': invalid value '1' (expected an integer from 1 to 12)"


def test_renamed_field(dummy_copy):
    data_dir = dummy_copy(NAME)
    rewrite_line(data_dir, "train", 4, lambda line: line.replace('"game_score_delta"', '"score_delta"'))
    assert build_error(data_dir) == (
        "data/train.jsonl, line 4: field(s) missing ['game_score_delta'], unknown ['score_delta']"
    )


def test_git_lfs_pointer_instead_of_the_data(dummy_copy):
    data_dir = dummy_copy(NAME)
    (data_dir / "data" / "test.jsonl").write_text(
        "version https://git-lfs.github.com/spec/v1\n"
        "oid sha256:2061ee7f040d6d8016760cb146d7821fef57cfbb4ced868f233e63854257c050\nsize 490273\n"
    )
    assert build_error(data_dir) == "data/test.jsonl: is a Git LFS pointer, not the data; fetch the real file (git lfs pull)"


def test_an_empty_split_file(dummy_copy):
    data_dir = dummy_copy(NAME)
    (data_dir / "data" / "validation.jsonl").write_bytes(b"")
    assert build_error(data_dir) == "data/validation.jsonl: is empty (expected JSON Lines, one dialog per line)"


def test_every_missing_split_file_is_listed(dummy_copy):
    data_dir = dummy_copy(NAME)
    (data_dir / "data" / "train.jsonl").unlink()
    (data_dir / "data" / "test.jsonl").unlink()
    with pytest.raises(MissingSourceFiles) as caught:
        load(NAME, data_dir=data_dir, allow_modified_sources=True)
    assert str(caught.value) == (
        f"diplomacy_detection: 2 source file(s) missing: {data_dir}/data/train.jsonl, {data_dir}/data/test.jsonl"
    )


def test_full_size_files_build_to_the_official_sizes(tmp_path, capsys):
    # A synthetic release at the real sizes (tests/synthetic_diplomacy_detection.py): every
    # dialog and every message accounted for, in the official counts of both configs.
    release = write_diplomacy(tmp_path / "release")
    argv = ["build", NAME, "--data-dir", str(release), "--out", str(tmp_path / "out"), "--allow-modified-sources"]
    assert main(argv) == 0
    assert table_lines(capsys.readouterr().out) == [
        [NAME, "conversations", "train", "189", "189", "189"],
        [NAME, "conversations", "validation", "21", "21", "21"],
        [NAME, "conversations", "test", "42", "42", "42"],
        [NAME, "messages", "train", "13,132", "13,132", "13,132"],
        [NAME, "messages", "validation", "1,416", "1,416", "1,416"],
        [NAME, "messages", "test", "2,741", "2,741", "2,741"],
    ]


def test_unknown_config():
    with pytest.raises(CorporaError, match="diplomacy_detection has no config 'dialogs'; configs: conversations, messages"):
        load(NAME, "dialogs", dummy=True)


# --- the typing, fuzzed ------------------------------------------------------------------------

message = st.fixed_dictionaries({
    "messages": st.text(),
    "sender_labels": st.booleans(),
    "receiver_labels": st.sampled_from([True, False, "NOANNOTATION"]),
    "speakers": st.sampled_from(COUNTRIES),
    "receivers": st.sampled_from(COUNTRIES),
    "absolute_message_index": st.integers(0, 5000),
    "relative_message_index": st.integers(0, 700),
    "seasons": st.sampled_from(["Spring", "Fall", "Winter"]),
    "years": st.integers(1901, 1918).map(str),
    "game_score": st.one_of(st.integers(0, 18).map(str), st.just(0)),
    "game_score_delta": st.one_of(st.integers(-18, 18).map(str), st.just(0)),
})


@settings(max_examples=200, deadline=None)
@given(st.lists(message, max_size=8), st.lists(st.sampled_from(COUNTRIES), min_size=2, max_size=2, unique=True), st.integers(1, 12))
def test_typed_dialog_keeps_every_value(messages, players, game_id):
    record = {key: [m[key] for m in messages] for key in loader._MESSAGE_FIELDS}
    record.update(players=players, game_id=game_id)
    typed = loader._typed_dialog(json.loads(json.dumps(record)), "fuzz")
    assert typed["messages"] == record["messages"]
    assert typed["receiver_labels"] == [None if v == "NOANNOTATION" else v for v in record["receiver_labels"]]
    assert typed["game_score"] == [int(v) for v in record["game_score"]]
    assert typed["years"] == [int(v) for v in record["years"]]
    # the typed dialog fits the declared features exactly
    features = registry.get(NAME).features("conversations")
    encoded = features.encode_example(typed)
    assert encoded["players"] == [COUNTRIES.index(p) for p in players]
    assert encoded["seasons"] == [["Spring", "Fall", "Winter"].index(m["seasons"]) for m in messages]


# --- downloads over real HTTP (127.0.0.1), as from the pinned URLs -----------------------------


def test_download_from_urls_prepared_and_streaming(mirror, tmp_path, dummy_build):
    prepared = load(NAME, "messages", cache_dir=tmp_path, allow_modified_sources=True)
    assert {split: prepared[split].num_rows for split in prepared} == {"train": 10, "validation": 3, "test": 5}
    assert prepared["test"].to_list() == dummy_build(NAME, "messages")["test"].to_list()
    streamed = load(NAME, "messages", streaming=True)
    assert list(streamed["validation"]) == dummy_build(NAME, "messages")["validation"].to_list()


PINNED = "https://raw.githubusercontent.com/DenisPeskov/2020_acl_diplomacy/b230a4d1c04c02cab4c0a41679806812be82cae0/"


def test_without_a_data_dir_the_pinned_urls_are_downloaded(tmp_path):
    splits = ("train", "validation", "test")
    assert loader._URLS == {f"data/{split}.jsonl": PINNED + f"data/{split}.jsonl" for split in splits}
    # ...which tests may not reach: offline mode (and the socket guard) stop the download.
    with pytest.raises(Exception) as caught:
        load(NAME, "messages", cache_dir=tmp_path)
    assert PINNED + "data/" in str(caught.value)


def test_build_from_the_urls_checks_the_release_and_exports(mirror, tmp_path, monkeypatch, record_release):
    # The whole path of a real build: download, size and sha256 against the recorded release,
    # build, rows in = rows out, official sizes, export, reload. The dummy files stand in for
    # the release here.
    from corpora import build
    from corpora import prepare

    corpus = registry.get(NAME)
    record_release(NAME, corpus.dummy_dir, urls=corpus.module._URLS)
    official_sizes_of_the_dummy_data(monkeypatch, registry.get(NAME))
    rows = build.export(prepare.Request(NAME), tmp_path / "out")
    assert [(r.config, r.split, r.read, r.rows, r.official) for r in rows] == [
        ("conversations", "train", 4, 4, 4), ("conversations", "validation", 2, 2, 2),
        ("conversations", "test", 2, 2, 2), ("messages", "train", 10, 10, 10), ("messages", "validation", 3, 3, 3),
        ("messages", "test", 5, 5, 5),
    ]


def test_downloaded_files_that_are_not_the_release_are_refused(mirror, tmp_path):
    from corpora import build
    from corpora import prepare

    with pytest.raises(CorporaError, match=rf"differ from the recorded release: {mirror}data/train.jsonl \(no recorded checksum\)"):
        build.export(prepare.Request(NAME), tmp_path / "out")


# --- bad input: what `corpora build diplomacy_detection` prints (tests/test_bad_input.py runs them) ---

TRAIN = "data/train.jsonl"


def jsonl_record(mutate):
    """The first line of the file, decoded, changed by `mutate` and encoded again."""
    def variant(raw):
        lines = raw.split(b"\n")
        record = json.loads(lines[0])
        mutate(record)
        return b"\n".join([json.dumps(record).encode()] + lines[1:])

    return variant


def first_line(change):
    """The first line's bytes changed by `change` (for what json.dumps cannot write)."""
    def variant(raw):
        first, rest = raw.split(b"\n", 1)
        return change(first) + b"\n" + rest

    return variant


BAD_INPUT = [
    BadInput(TRAIN, "truncated file", lambda raw: raw[: len(raw) // 2],
             f"{TRAIN}, line 3: invalid JSON (Unterminated string starting at: line 1 column 78 (char 77))"),
    BadInput(TRAIN, "wrong encoding (Latin-1)", lambda raw: b"\xe9" + raw,
             f"{TRAIN}, line 1: not UTF-8 (byte 0xe9 at offset 0 of the line: invalid continuation byte)"),
    BadInput(TRAIN, "NaN in a list of numbers",
             lambda raw: raw.replace(b'"absolute_message_index": [40,', b'"absolute_message_index": [NaN,', 1),
             f"{TRAIN}, line 1: field 'absolute_message_index'[0]: invalid value NaN "
             "(expected a number JSON has; NaN and Infinity are not JSON)"),
    BadInput(TRAIN, "UTF-8 BOM", lambda raw: b"\xef\xbb\xbf" + raw,
             f"{TRAIN}: starts with a UTF-8 byte order mark; the release files have none"),
    BadInput(TRAIN, "wrong delimiter (CSV instead of JSON Lines)", lambda raw: b"messages,sender_labels\nhello,true\n",
             f"{TRAIN}, line 1: invalid JSON (Expecting value: line 1 column 1 (char 0))"),
    BadInput(TRAIN, "missing field", jsonl_record(lambda r: r.pop("game_id")),
             f"{TRAIN}, line 1: field(s) missing ['game_id'], unknown []"),
    BadInput(TRAIN, "extra field", jsonl_record(lambda r: r.update(comment="x")),
             f"{TRAIN}, line 1: field(s) missing [], unknown ['comment']"),
    BadInput(TRAIN, "empty file", lambda raw: b"", f"{TRAIN}: is empty (expected JSON Lines, one dialog per line)"),
    BadInput(TRAIN, "unknown label", jsonl_record(lambda r: r["seasons"].__setitem__(0, "Summer")),
             f"{TRAIN}, line 1: field 'seasons'[0]: invalid value 'Summer' (expected 'Spring' or 'Fall' or 'Winter')"),
    BadInput(TRAIN, "out-of-range number", jsonl_record(lambda r: r["years"].__setitem__(0, "1950")),
             f"{TRAIN}, line 1: field 'years'[0]: invalid value '1950' (expected an integer from 1901 to 1918)"),
    BadInput(TRAIN, "Git LFS pointer", lambda raw: LFS,
             f"{TRAIN}: is a Git LFS pointer, not the data; fetch the real file (git lfs pull)"),
    BadInput(TRAIN, "HTML error page", lambda raw: HTML,
             f"{TRAIN}: is an HTML page, not the data (an error page saved in its place?)"),
    BadInput(TRAIN, "repeated key", first_line(lambda line: b'{"game_id": 7, ' + line[1:]),
             f"{TRAIN}, line 1: field 'game_id': repeated key in one JSON object (values 7 and 5)"),
    BadInput(TRAIN, "lone surrogate escape", jsonl_record(lambda r: r["messages"].__setitem__(1, "Hi \ud83d")),
             f"{TRAIN}, line 1: field 'messages'[1]: invalid value 'Hi \\ud83d' "
             "(expected text; a lone UTF-16 surrogate escape is not text)"),
    BadInput(TRAIN, "5000-digit integer", first_line(lambda line: line.replace(b'"game_id": 5', b'"game_id": ' + b"9" * 5000)),
             f"{TRAIN}, line 1: field 'game_id': invalid value {'9' * 77}... "
             "(expected an integer of at most 4300 digits; this one has 5000)"),
    BadInput(TRAIN, "nesting 100,000 deep",
             first_line(lambda line: line.replace(b'"game_id": 5', b'"game_id": ' + b"[" * 100_000 + b"]" * 100_000)),
             f"{TRAIN}, line 1: invalid JSON (nested too deeply for Python's JSON reader)"),
    BadInput(TRAIN, "a value too long to show", jsonl_record(lambda r: r["seasons"].__setitem__(0, "Summer" * 1000)),
             f"{TRAIN}, line 1: field 'seasons'[0]: invalid value '{'Summer' * 12}Summ... (6000 characters) "
             "(expected 'Spring' or 'Fall' or 'Winter')"),
]


# --- fuzzing the record parser: the typed value or a ValueError, never another exception ----------


DUMMY_RECORDS = [json.loads(line) for line in (registry.get(NAME).dummy_dir / TRAIN).read_text().splitlines()]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_fuzzed_records(data):
    record = data.draw(near_valid(DUMMY_RECORDS) | json_values)
    try:
        loader._typed_dialog(record, f"{TRAIN}, line 1")
    except ValueError as error:
        assert str(error).startswith(f"{TRAIN}, line 1")


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_fuzzed_lines(tmp_path_factory, raw):
    path = tmp_path_factory.mktemp("fuzz") / "train.jsonl"
    path.write_bytes(raw)
    try:
        list(loader._read_dialogs(str(path), TRAIN))
    except ValueError as error:
        assert str(error).startswith(TRAIN)


def test_diplomacy_migration_notes_give_the_old_ids():
    text = registry.get(NAME).card_path.read_text()
    notes = " ".join(text.split("## Migrating from the Earlier Hub Loader\n", 1)[1].split("\n## ", 1)[0].split())
    assert "old 0 -> 4, 1 -> 6, 2 -> 5, 3 -> 1, 4 -> 0, 5 -> 3, 6 -> 2" in notes
    assert "spring = 0, fall = 1, winter = 2, Spring = 3, Fall = 4, Winter = 5" in notes
    old = ["italy", "turkey", "russia", "england", "austria", "germany", "france"]
    new = ["austria", "england", "france", "germany", "italy", "russia", "turkey"]
    mapping = ", ".join(f"{i} -> {new.index(name)}" for i, name in enumerate(old))
    assert f"old {mapping}" in notes


def test_the_readme_snippet_runs_as_written(dummy_export, monkeypatch):
    """README.md shows class label ids turned into names on this corpus's `messages` export;
    run as written on the dummy export, with pandas (tests/test_card_render.py runs it on the
    toolkit's example corpus)."""
    import pyarrow.parquet as pq

    folder = dummy_export(NAME)
    monkeypatch.chdir(folder.parent)
    namespace = {}
    exec(readme_snippet(), namespace)  # noqa: S102 - the README's own code
    frame = namespace["df"]
    rows = pq.read_table(folder / "messages" / "train-00000-of-00001.parquet").to_pylist()
    assert list(frame["speaker"]) == [COUNTRIES[row["speaker"]] for row in rows]
    assert list(frame["season"]) == [["Spring", "Fall", "Winter"][row["season"]] for row in rows]
    assert len(rows) == 10
