"""diplomacy_detection: every quirk of loaders/diplomacy_detection/FORMAT.md, as declarations that
tests/test_declared.py and tests/test_bad_input.py run, and the checks no row can hold."""

import json
import re
import shutil

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from corpora import registry
from helpers import BadInput
from helpers import Downloads
from helpers import FullSize
from helpers import Fuzz
from helpers import builder_rows
from helpers import class_labels_snippet
from helpers import json_values
from helpers import near_valid
from synthetic_diplomacy_detection import write_diplomacy

NAME = "diplomacy_detection"
COUNTRIES = ["austria", "england", "france", "germany", "italy", "russia", "turkey"]
TRAIN, VALIDATION, TEST = "data/train.jsonl", "data/validation.jsonl", "data/test.jsonl"
# A conversation's lists, each a field of the messages config (its singular).
MESSAGE_FIELDS = {
    "messages": "message", "sender_labels": "sender_label", "receiver_labels": "receiver_label", "speakers": "speaker",
    "receivers": "receiver", "absolute_message_index": "absolute_message_index",
    "relative_message_index": "relative_message_index", "seasons": "season", "years": "year",
    "game_score": "game_score", "game_score_delta": "game_score_delta",
}

# (config, split, key, field, expected): a dict key selects the conversations of a game.
QUIRKS = [
    ("conversations", "train", {"game_id": 2}, "receiver_labels", [[None, None, False]]),  # NOANNOTATION: None
    ("conversations", "train", {"game_id": 2}, "sender_labels", [[True, True, False]]),
    ("conversations", "train", {"game_id": 5}, "game_score", [[4, 6, 0, 0]]),  # an integer 0 among strings
    ("conversations", "train", {"game_id": 5}, "game_score_delta", [[-2, 2, 0, -9]]),
    ("conversations", "train", {"game_id": 5}, "years", [[1905, 1905, 1908, 1908]]),
]
DOWNLOADS = Downloads(
    "https://raw.githubusercontent.com/DenisPeskov/2020_acl_diplomacy/b230a4d1c04c02cab4c0a41679806812be82cae0/",
    ("messages", "conversations"),
)
FULL_SIZE = FullSize(write_diplomacy)  # tests/synthetic_diplomacy_detection.py: every dialog and message
DUMMY_RECORDS = [json.loads(line) for line in (registry.get(NAME).dummy_dir / TRAIN).read_text().splitlines()]
FUZZ = [  # any first record, or any bytes: the typed rows or one line naming the file
    Fuzz(TRAIN, "conversations", (near_valid(DUMMY_RECORDS) | json_values).map(
        lambda record: lambda raw: json.dumps(record).encode() + b"\n" + raw.split(b"\n", 1)[1]), re.escape(f"{TRAIN}, line 1"), 300),
    Fuzz(TRAIN, "conversations", st.binary(max_size=200).map(lambda data: lambda raw: data), re.escape(TRAIN), 200),
]


def country(index):
    return COUNTRIES[index]


# --- what no row can hold ---------------------------------------------------------------------


def test_noannotation_becomes_none_next_to_booleans(dummy_build):
    messages = dummy_build(NAME, "messages")
    labels = [label for split in messages for label in messages[split]["receiver_label"]]
    assert (labels.count(None), labels.count(True), labels.count(False)) == (5, 9, 4)


def test_dialog_with_every_list_empty(dummy_build):
    empty = dummy_build(NAME, "conversations")["train"][1]
    assert [country(i) for i in empty["players"]] == ["germany", "turkey"]
    assert empty["game_id"] == 1
    assert all(empty[key] == [] for key in MESSAGE_FIELDS)
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
            dict({one: dialog[plural][i] for plural, one in MESSAGE_FIELDS.items()},
                 players=dialog["players"], game_id=dialog["game_id"])
            for dialog in conversations[split]
            for i in range(len(dialog["messages"]))
        ]
        assert messages[split].to_list() == expected


message = st.fixed_dictionaries({
    "messages": st.text(), "sender_labels": st.booleans(), "receiver_labels": st.sampled_from([True, False, "NOANNOTATION"]),
    "speakers": st.sampled_from(COUNTRIES), "receivers": st.sampled_from(COUNTRIES),
    "absolute_message_index": st.integers(0, 5000), "relative_message_index": st.integers(0, 700),
    "seasons": st.sampled_from(["Spring", "Fall", "Winter"]), "years": st.integers(1901, 1918).map(str),
    "game_score": st.one_of(st.integers(0, 18).map(str), st.just(0)),
    "game_score_delta": st.one_of(st.integers(-18, 18).map(str), st.just(0)),
})


@settings(max_examples=200, deadline=None)
@given(st.lists(message, max_size=8), st.lists(st.sampled_from(COUNTRIES), min_size=2, max_size=2, unique=True), st.integers(1, 12))
def test_typed_dialog_keeps_every_value(tmp_path_factory, messages, players, game_id):
    record = {key: [m[key] for m in messages] for key in MESSAGE_FIELDS}
    record.update(players=players, game_id=game_id)
    data_dir = tmp_path_factory.mktemp("typed") / "data"
    shutil.copytree(registry.get(NAME).dummy_dir, data_dir)
    (data_dir / TRAIN).write_text(json.dumps(record) + "\n")
    typed = builder_rows(registry.get(NAME), "conversations", str(data_dir))["train"][0]  # what the builder yields
    assert typed["messages"] == record["messages"]
    assert typed["receiver_labels"] == [None if v == "NOANNOTATION" else v for v in record["receiver_labels"]]
    assert typed["game_score"] == [int(v) for v in record["game_score"]]
    assert typed["years"] == [int(v) for v in record["years"]]
    # the typed dialog fits the declared features exactly
    features = registry.get(NAME).features("conversations")
    encoded = features.encode_example(typed)
    assert encoded["players"] == [COUNTRIES.index(p) for p in players]
    assert encoded["seasons"] == [["Spring", "Fall", "Winter"].index(m["seasons"]) for m in messages]


# --- bad input: what `corpora build diplomacy_detection` prints (tests/test_bad_input.py runs them) ---


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


def on_line(number, change):
    """Line `number` of a JSON Lines file (text) changed by `change`."""
    def variant(raw):
        lines = raw.decode("utf-8").splitlines(keepends=True)
        lines[number - 1] = change(lines[number - 1])
        return "".join(lines).encode("utf-8")

    return variant


def edit(field, function):
    def change(line):
        record = json.loads(line)
        function(record[field])
        return json.dumps(record) + "\n"
    return change


COUNTRY = "'austria' or 'england' or 'france' or 'germany' or 'italy' or 'russia' or 'turkey'"
EXPECTED = {
    "speakers": COUNTRY, "receivers": COUNTRY, "seasons": "'Spring' or 'Fall' or 'Winter'",
    "years": "an integer from 1901 to 1918", "game_score": "an integer from 0 to 18",
    "game_score_delta": "an integer from -18 to 18", "sender_labels": "true or false",
    "receiver_labels": "true or false or 'NOANNOTATION'", "absolute_message_index": "a non-negative integer below 2**31",
}


BAD_INPUT = [
    BadInput(TRAIN, "truncated file", lambda raw: raw[: len(raw) // 2],
             f"{TRAIN}, line 3: invalid JSON (Unterminated string starting at: line 1 column 78 (char 77))"),
    BadInput(TRAIN, "wrong encoding (Latin-1)", lambda raw: b"\xe9" + raw,
             f"{TRAIN}, line 1: not UTF-8 (byte 0xe9 at offset 0 of the line: invalid continuation byte)"),
    BadInput(TRAIN, "NaN in a list of numbers",
             lambda raw: raw.replace(b'"absolute_message_index": [40,', b'"absolute_message_index": [NaN,', 1),
             f"{TRAIN}, line 1: field 'absolute_message_index'[0]: invalid value NaN "
             "(expected a number JSON has; NaN and Infinity are not JSON)"),
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
    BadInput(TRAIN, "a line cut short (line 4)", on_line(4, lambda line: line[:80]),
             f"{TRAIN}, line 4: invalid JSON (Expecting value: line 1 column 81 (char 80))"),
    BadInput(VALIDATION, "a byte not UTF-8 in validation.jsonl", lambda raw: raw.replace(b"Bur is yours", b"Bur is \xe9 yours"),
             f"{VALIDATION}, line 2: not UTF-8 (byte 0xe9 at offset 34 of the line: invalid continuation byte)"),
    BadInput(VALIDATION, "a list shorter than the others", on_line(2, edit("receiver_labels", lambda values: values.pop())),
             f"{VALIDATION}, line 2: field 'receiver_labels' has 2 items but 'messages' has 3", "messages"),
    *[BadInput(TEST, f"{field}[{position}] = {value!r}", on_line(2, edit(field, lambda v, p=position, x=value: v.__setitem__(p, x))),
               f"{TEST}, line 2: field {field!r}[{position}]: invalid value {value!r} (expected {EXPECTED[field]})")
      for field, position, value in [
          ("speakers", 1, "prussia"), ("receivers", 0, "Italy"), ("seasons", 2, "Autumn"), ("years", 0, "1900"),
          ("game_score", 1, "19"), ("game_score", 0, "03"), ("game_score_delta", 0, 1.5), ("sender_labels", 0, "true"),
          ("receiver_labels", 1, "noannotation"), ("absolute_message_index", 0, "3")]],
    *[BadInput(TRAIN, f"players {players}", on_line(1, edit("players", lambda v, p=players: v.__setitem__(slice(None), p))),
               f"{TRAIN}, line 1: field 'players': invalid value {players!r} (expected two different countries of {COUNTRIES})")
      for players in [["england", "prussia"], ["england", "england"], ["england"]]],
    BadInput(TRAIN, "game_id a string", on_line(2, lambda line: line.replace('"game_id": 1}', '"game_id": "1"}')),
             f"{TRAIN}, line 2: field 'game_id': invalid value '1' (expected an integer from 1 to 12)"),
    BadInput(TRAIN, "a renamed field", on_line(4, lambda line: line.replace('"game_score_delta"', '"score_delta"')),
             f"{TRAIN}, line 4: field(s) missing ['game_score_delta'], unknown ['score_delta']"),
    BadInput(VALIDATION, "empty validation.jsonl", lambda raw: b"",
             f"{VALIDATION}: is empty (expected JSON Lines, one dialog per line)"),
]


def test_diplomacy_migration_notes_give_the_old_ids():
    text = registry.get(NAME).card_path.read_text()
    notes = " ".join(text.split("## Migrating from the Earlier Hub Loader\n", 1)[1].split("\n## ", 1)[0].split())
    notes = notes.replace("`", "")  # the ids are written as code, `0`
    assert "old 0 -> 4, 1 -> 6, 2 -> 5, 3 -> 1, 4 -> 0, 5 -> 3, 6 -> 2" in notes
    assert "spring = 0, fall = 1, winter = 2, Spring = 3, Fall = 4, Winter = 5" in notes
    old = ["italy", "turkey", "russia", "england", "austria", "germany", "france"]
    new = ["austria", "england", "france", "germany", "italy", "russia", "turkey"]
    mapping = ", ".join(f"{i} -> {new.index(name)}" for i, name in enumerate(old))
    assert f"old {mapping}" in notes


def test_the_class_labels_snippet_runs_as_written(dummy_export, monkeypatch):
    """docs/class_labels.md shows class label ids turned into names on this corpus's `messages` export;
    run as written on the dummy export, with pandas (tests/test_card_render.py runs it on the
    toolkit's example corpus)."""
    import pyarrow.parquet as pq

    folder = dummy_export(NAME)
    monkeypatch.chdir(folder.parent)
    namespace = {}
    exec(class_labels_snippet(), namespace)  # noqa: S102 - the doc's own code
    frame = namespace["df"]
    rows = pq.read_table(folder / "messages" / "train-00000-of-00001.parquet").to_pylist()
    assert list(frame["speaker"]) == [COUNTRIES[row["speaker"]] for row in rows]
    assert list(frame["season"]) == [["Spring", "Fall", "Winter"][row["season"]] for row in rows]
    assert len(rows) == 10


# Each documented range at both edges (quirk 5 and the declared features): the last valid value is
# read as that number, the first invalid one refused with the line of BAD_INPUT's table.
RANGE = "an integer from 1 to 12"
EDGES = [
    *[(field, value, None) for field, value in [
        ("years", "1901"), ("years", "1918"), ("game_score", "0"), ("game_score", "18"), ("game_score_delta", "-18"),
        ("game_score_delta", "18"), ("absolute_message_index", 0), ("absolute_message_index", 2**31 - 1),
        ("game_id", 1), ("game_id", 12)]],
    *[(field, value, f"field {field!r}[0]: invalid value {value!r} (expected {EXPECTED[field]})") for field, value in [
        ("years", "1900"), ("years", "1919"), ("game_score", "-1"), ("game_score", "19"), ("game_score_delta", "-19"),
        ("game_score_delta", "19"), ("absolute_message_index", -1), ("absolute_message_index", 2**31)]],
    *[("game_id", value, f"field 'game_id': invalid value {value} (expected {RANGE})") for value in (0, 13)],
]


@pytest.mark.parametrize("field,value,refused", EDGES, ids=[f"{field}={value}" for field, value, _ in EDGES])
def test_each_range_at_both_edges(field, value, refused, dummy_copy):
    data_dir = dummy_copy(NAME, changed=TRAIN)
    record = json.loads((data_dir / TRAIN).read_text(encoding="utf-8").splitlines()[0])
    if field == "game_id":
        record[field] = value
    else:
        record[field][0] = value
    (data_dir / TRAIN).write_text(json.dumps(record) + "\n", encoding="utf-8")
    if refused is None:
        typed = builder_rows(registry.get(NAME), "conversations", str(data_dir))["train"][0]
        assert (typed[field] if field == "game_id" else typed[field][0]) == int(value)
    else:
        with pytest.raises(ValueError) as caught:
            builder_rows(registry.get(NAME), "conversations", str(data_dir))
        assert str(caught.value) == f"{TRAIN}, line 1: {refused}"
