"""curiosity_dialogs: every quirk of formats/curiosity_dialogs.md, and bad input."""

import json

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from corpora import load
from corpora import registry
from corpora.cli import main
from synthetic import CURIOSITY_SPLITS
from synthetic import write_curiosity

NAME = "curiosity_dialogs"
TRAIN = "dialog_data/curiosity_dialogs.train.json"
loader = registry.get(NAME).module


def sender(index):
    return ["user", "assistant"][index]


def source(index):
    return ["section", "known", "random"][index]


# --- the quirks, on the dummy data ---------------------------------------------------------


def test_validation_split_is_read_from_the_val_file(dummy_build):
    dialogs = dummy_build(NAME, "dialogs")
    assert list(dialogs) == ["train", "validation", "test", "test_zero"]
    assert loader._FILES["dialogs"]["validation"] == ["dialog_data/curiosity_dialogs.val.json"]
    assert dialogs["validation"][0]["focus_entity"] == "Gda\u0144sk"


def test_worker_ids_become_integers(dummy_build):
    first = dummy_build(NAME, "dialogs")["train"][0]
    assert (first["user_id"], first["assistant_id"]) == (314, 207)
    assert dummy_build(NAME, "dialogs")["train"].features["user_id"].dtype == "int32"


def test_null_aspects_are_none(dummy_build):
    tasmania = dummy_build(NAME, "dialogs")["train"][1]
    assert tasmania["aspects"] == ["Geography", "Culture"]
    assert (tasmania["first_aspect"], tasmania["second_aspect"]) == (None, None)
    assert dummy_build(NAME, "dialogs")["train"][0]["first_aspect"] == "History"


def test_empty_message_and_empty_dialog_acts(dummy_build):
    tasmania = dummy_build(NAME, "dialogs")["train"][1]
    third = tasmania["messages"][2]
    assert third["message"] == "" and third["dialog_acts"] == [] and sender(third["sender"]) == "user"
    assert tasmania["known_entities"] == []


def test_user_messages_have_no_facts_assistant_messages_nine(dummy_build):
    for split, dataset in dummy_build(NAME, "dialogs").items():
        for dialog in dataset:
            for position, message in enumerate(dialog["messages"]):
                assert sender(message["sender"]) == ("user" if position % 2 == 0 else "assistant"), split
                assert len(message["facts"]) == (0 if position % 2 == 0 else 9), split
                assert sum(fact["used"] for fact in message["facts"]) <= 1
                assert message["liked"] is False or position % 2 == 1


def test_booleans_are_booleans_and_ids_keep_their_type(dummy_build):
    kerala = dummy_build(NAME, "dialogs")["train"][0]
    assert [kerala[k] for k in ("inferred_steps", "shuffle_facts", "is_annotated", "reported", "annotated")] == [
        True, True, False, False, True]
    assistant = kerala["messages"][1]
    assert assistant["liked"] is True
    assert isinstance(assistant["message_id"], str) and assistant["message_id"].isdigit()
    assert [source(f["source"]) for f in assistant["facts"]].count("known") >= 1
    assert [f["used"] for f in assistant["facts"]].count(True) == 1


def test_escapes_are_decoded(dummy_build):
    texts = [m["message"] for m in dummy_build(NAME, "dialogs")["train"][0]["messages"]]
    assert any("1956\u20131957" in text for text in texts)


def test_every_value_survives_the_build(dummy_build):
    # Nothing lost, nothing invented: the rows equal the source dialogs, typed.
    corpus = registry.get(NAME)
    features = corpus.features("dialogs")
    for split, [path] in loader._FILES["dialogs"].items():
        document = json.loads((corpus.dummy_dir / path).read_text())
        expected = []
        for dialog in document["dialogs"]:
            dialog = dict(dialog, user_id=int(dialog["user_id"]), assistant_id=int(dialog["assistant_id"]))
            expected.append(features.encode_example(dialog))
        assert dummy_build(NAME, "dialogs")[split].to_list() == expected, split


# --- bad input ---------------------------------------------------------------------------------


def build_error(data_dir):
    with pytest.raises(Exception) as caught:
        load(NAME, data_dir=data_dir)
    error = caught.value
    while not isinstance(error, ValueError) and error.__cause__ is not None:
        error = error.__cause__
    assert isinstance(error, ValueError), repr(caught.value)
    return str(error)


def rewrite(data_dir, change, path=TRAIN):
    file = data_dir / path
    document = json.loads(file.read_text())
    change(document)
    file.write_text(json.dumps(document) + "\n")


def test_not_a_json_object_with_dialogs(dummy_copy):
    data_dir = dummy_copy(NAME)
    (data_dir / TRAIN).write_text(json.dumps([{"dialog_id": 1}]))
    assert build_error(data_dir) == f"{TRAIN}: expected a JSON object with a 'dialogs' list, got list"
    (data_dir / TRAIN).write_text(json.dumps({"fold": "train"}))
    assert build_error(data_dir) == f"{TRAIN}: top-level field 'dialogs' is missing"


def test_unknown_header_key(dummy_copy):
    data_dir = dummy_copy(NAME)
    rewrite(data_dir, lambda d: d.update(unannotated_dataset_checksum="0" * 32))
    assert build_error(data_dir).startswith(f"{TRAIN}: unknown top-level field(s) ['unannotated_dataset_checksum']")


def test_truncated_file(dummy_copy):
    data_dir = dummy_copy(NAME)
    (data_dir / TRAIN).write_bytes((data_dir / TRAIN).read_bytes()[:5000])
    assert build_error(data_dir).startswith(f"{TRAIN}: invalid JSON (")


def test_dialog_missing_a_field(dummy_copy):
    data_dir = dummy_copy(NAME)
    rewrite(data_dir, lambda d: d["dialogs"][2].pop("tag"))
    assert build_error(data_dir) == f"{TRAIN}, dialog 2: field(s) missing ['tag'], unknown []"


@pytest.mark.parametrize("value", ["b908a1f3c2", "0314", "-3", 314, ""])
def test_user_id_must_be_a_digit_string(dummy_copy, value):
    data_dir = dummy_copy(NAME)
    rewrite(data_dir, lambda d: d["dialogs"][1].update(user_id=value))
    assert build_error(data_dir) == (
        f"{TRAIN}, dialog 1: field 'user_id': invalid value {value!r} "
        "(expected a string of decimal digits without leading zeros, below 2**31)"
    )


def test_sender_neither_user_nor_assistant(dummy_copy):
    data_dir = dummy_copy(NAME)
    rewrite(data_dir, lambda d: d["dialogs"][0]["messages"][3].update(sender="system"))
    assert build_error(data_dir) == (
        f"{TRAIN}, dialog 0, message 3: field 'sender': invalid value 'system' (expected 'user' or 'assistant')"
    )


@pytest.mark.parametrize(
    "change,message",
    [
        (lambda d: d["dialogs"][0].update(reported="False"), "dialog 0: field 'reported': invalid value 'False' (expected true or false)"),
        (lambda d: d["dialogs"][0].update(inferred_steps=1), "dialog 0: field 'inferred_steps': invalid value 1 (expected true or false)"),
        (lambda d: d["dialogs"][2].update(assistant_dialog_rating=6), "dialog 2: field 'assistant_dialog_rating': invalid value 6 (expected an integer from 1 to 5)"),
        (lambda d: d["dialogs"][0]["messages"][1]["facts"][4].update(source="wiki"), "dialog 0, message 1, fact 4: field 'source': invalid value 'wiki' (expected 'section' or 'known' or 'random')"),
        (lambda d: d["dialogs"][0]["messages"][1]["facts"][4].update(used=0), "dialog 0, message 1, fact 4: field 'used': invalid value 0 (expected true or false)"),
        (lambda d: d["dialogs"][0]["messages"][2].update(message_id=2420897156), "dialog 0, message 2: field 'message_id': invalid value 2420897156 (expected a string of decimal digits)"),
        (lambda d: d["dialogs"][0].update(known_entities=["India", 3]), "dialog 0: field 'known_entities'[1]: invalid value 3 (expected a string)"),
        (lambda d: d["dialogs"][0].update(first_aspect=0), "dialog 0: field 'first_aspect': invalid value 0 (expected a string or null)"),
    ],
)
def test_value_outside_the_documented_domain(dummy_copy, change, message):
    data_dir = dummy_copy(NAME)
    rewrite(data_dir, change)
    assert build_error(data_dir) == f"{TRAIN}, {message}"


def test_git_lfs_pointer_in_place_of_the_file(dummy_copy):
    data_dir = dummy_copy(NAME)
    (data_dir / TRAIN).write_text(
        "version https://git-lfs.github.com/spec/v1\n"
        "oid sha256:afe5bb0db8406663a316cd02cd25f33214725aaf1e25137cac3a13c6b1b4e70b\nsize 66851161\n"
    )
    assert build_error(data_dir) == f"{TRAIN}: is a Git LFS pointer, not the data; fetch the real file (git lfs pull)"


def test_null_dialog_acts_are_no_acts(dummy_copy, tmp_path):
    # Never seen in the data; upstream's own reader treats null like []. Documented in the card.
    data_dir = dummy_copy(NAME)
    rewrite(data_dir, lambda d: d["dialogs"][0]["messages"][0].update(dialog_acts=None))
    assert load(NAME, data_dir=data_dir, cache_dir=tmp_path)["train"][0]["messages"][0]["dialog_acts"] == []


# --- files in the real format and at the official sizes ----------------------------------------


def test_full_size_files_build_with_every_dialog_accounted_for(tmp_path, capsys):
    upstream = tmp_path / "upstream"
    for split in CURIOSITY_SPLITS:
        write_curiosity(upstream, split=split, dialogs=CURIOSITY_SPLITS[split][1])
    header = json.loads((upstream / TRAIN).read_text())
    assert list(header)[1:] == ["fold", "source_checksum", "db_checksum", "unfolded_checksum",
                                "unfolded_generated_time", "generated_time"]
    argv = ["build", NAME, "--data-dir", str(upstream), "--out", str(tmp_path / "out"), "--allow-modified-sources"]
    assert main(argv) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[3:]]
    assert rows == [
        [NAME, "dialogs", "train", "10,287", "10,287", "ok"],
        [NAME, "dialogs", "validation", "1,287", "1,287", "ok"],
        [NAME, "dialogs", "test", "1,287", "1,287", "ok"],
        [NAME, "dialogs", "test_zero", "1,187", "1,187", "ok"],
    ]


def test_a_repeated_key_is_an_error_not_a_silent_overwrite(dummy_copy):
    data_dir = dummy_copy(NAME)
    text = (data_dir / TRAIN).read_text()
    (data_dir / TRAIN).write_text(text.replace('"tag": "pilot"', '"tag": "pilot", "tag": "round_1"', 1))
    assert build_error(data_dir) == f"{TRAIN}: invalid JSON (object with duplicate key 'tag')"


def test_an_empty_dialog_list_is_an_error(dummy_copy):
    data_dir = dummy_copy(NAME)
    rewrite(data_dir, lambda d: d.update(dialogs=[]), path="dialog_data/curiosity_dialogs.test_zero.json")
    assert build_error(data_dir) == "dialog_data/curiosity_dialogs.test_zero.json: top-level field 'dialogs' is an empty list"


# --- the typing, fuzzed ------------------------------------------------------------------------

fact = st.fixed_dictionaries({
    "fid": st.integers(0, 2**31 - 1), "used": st.booleans(), "source": st.sampled_from(["section", "known", "random"]),
})
message = st.fixed_dictionaries({
    "message": st.text(), "liked": st.booleans(), "sender": st.sampled_from(["user", "assistant"]),
    "facts": st.lists(fact, max_size=9), "message_id": st.integers(0, 2**32).map(str),
    "dialog_acts": st.lists(st.sampled_from(["request_topic", "inform_response", "social_greeting"]), max_size=3),
})
text_list = st.lists(st.text(max_size=20), max_size=4)
rating = st.integers(1, 5)
dialog = st.fixed_dictionaries({
    "messages": st.lists(message, max_size=4), "known_entities": text_list, "focus_entity": st.text(),
    "dialog_id": st.integers(0, 2**31 - 1), "inferred_steps": st.booleans(), "created_time": st.integers(0, 2**40),
    "aspects": text_list, "first_aspect": st.none() | st.text(), "second_aspect": st.none() | st.text(),
    "shuffle_facts": st.booleans(), "related_entities": text_list, "tag": st.sampled_from(["pilot", "round_1"]),
    "user_id": st.integers(0, 2**31 - 1).map(str), "assistant_id": st.integers(0, 2**31 - 1).map(str),
    "is_annotated": st.booleans(), "user_dialog_rating": rating, "user_other_agent_rating": rating,
    "assistant_dialog_rating": rating, "assistant_other_agent_rating": rating, "reported": st.booleans(),
    "annotated": st.booleans(),
})


@settings(max_examples=150, deadline=None)
@given(dialog)
def test_typed_dialog_keeps_every_value(record):
    typed = loader._typed_dialog(json.loads(json.dumps(record)), "fuzz")
    assert typed == dict(record, user_id=int(record["user_id"]), assistant_id=int(record["assistant_id"]))
    registry.get(NAME).features("dialogs").encode_example(typed)  # fits the declared features
