"""curiosity_dialogs: every quirk of loaders/curiosity_dialogs/FORMAT.md, as declarations that
tests/test_declared.py and tests/test_bad_input.py run, and the checks no row can hold."""

import json
import re
import shutil

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from corpora import load
from corpora import registry
from helpers import BadInput
from helpers import Downloads
from helpers import FullSize
from helpers import Fuzz
from helpers import builder_rows
from helpers import json_values
from helpers import near_valid
from synthetic_curiosity_dialogs import CURIOSITY_SPLITS
from synthetic_curiosity_dialogs import write_curiosity

NAME = "curiosity_dialogs"
TRAIN = "dialog_data/curiosity_dialogs.train.json"
corpus = registry.get(NAME)
D, V = ("dialogs", "train"), ("dialogs", "validation")

# (config, split, key, field, expected): the dummy build's values, class labels by name.
QUIRKS = [
    (*V, 16540, "focus_entity", "Gda\u0144sk"),  # the validation split is read from the val file
    (*D, 9120, "user_id", 314), (*D, 9120, "assistant_id", 207),  # worker ids become integers
    (*D, 4511, "aspects", ["Geography", "Culture"]), (*D, 4511, "first_aspect", None),  # null aspects: None
    (*D, 4511, "second_aspect", None), (*D, 9120, "first_aspect", "History"),
    (*D, 4511, "messages.2.message", ""), (*D, 4511, "messages.2.dialog_acts", []), (*D, 4511, "messages.2.sender", "user"),
    (*D, 4511, "known_entities", []),
    (*D, 9120, "inferred_steps", True), (*D, 9120, "shuffle_facts", True), (*D, 9120, "is_annotated", False),
    (*D, 9120, "reported", False), (*D, 9120, "annotated", True), (*D, 9120, "messages.1.liked", True),
    (*D, 9120, "messages.1.facts.*.used", [False] * 3 + [True] + [False] * 5),
]


def write_full_size(folder):
    # The official sizes count dialogs; two messages each (not the real 12 to 16): the real 181,068
    # messages made this build a tenth of the main leg's time, and no check here counts messages.
    for split in CURIOSITY_SPLITS:
        write_curiosity(folder, split=split, dialogs=CURIOSITY_SPLITS[split][1], messages_each=2)


DOWNLOADS = Downloads(
    "https://media.githubusercontent.com/media/facebookresearch/curiosity/7201d252ec7f453df3ce4d8af86a9bffb1744f41/",
    ("dialogs",),
)
FULL_SIZE = FullSize(write_full_size)
DUMMY_DOCUMENT = json.loads((corpus.dummy_dir / TRAIN).read_text())
FUZZ = [  # any first dialog, or any file: the typed rows or one line naming the file
    Fuzz(TRAIN, "dialogs", (near_valid(DUMMY_DOCUMENT["dialogs"]) | json_values).map(
        lambda record: lambda raw: json.dumps(dict(DUMMY_DOCUMENT, dialogs=[record, *DUMMY_DOCUMENT["dialogs"][1:]])).encode()),
        re.escape(f"{TRAIN}, dialog 0"), 300),
    Fuzz(TRAIN, "dialogs", (st.binary(max_size=200) | json_values.map(lambda v: json.dumps({"dialogs": v}).encode())).map(
        lambda data: lambda raw: data), re.escape(TRAIN), 200),
]


def sender(index):
    return ["user", "assistant"][index]


def source(index):
    return ["section", "known", "random"][index]


# --- what no row can hold ---------------------------------------------------------------------


def test_validation_split_is_read_from_the_val_file(dummy_build):
    assert list(dummy_build(NAME, "dialogs")) == ["train", "validation", "test", "test_zero"]
    assert corpus.config("dialogs").files["validation"] == ["dialog_data/curiosity_dialogs.val.json"]
    assert dummy_build(NAME, "dialogs")["train"].features["user_id"].dtype == "int32"


def test_user_messages_have_no_facts_assistant_messages_nine(dummy_build):
    for split, dataset in dummy_build(NAME, "dialogs").items():
        for dialog in dataset:
            for position, message in enumerate(dialog["messages"]):
                assert sender(message["sender"]) == ("user" if position % 2 == 0 else "assistant"), split
                assert len(message["facts"]) == (0 if position % 2 == 0 else 9), split
                assert sum(fact["used"] for fact in message["facts"]) <= 1
                assert message["liked"] is False or position % 2 == 1


def test_booleans_are_booleans_and_ids_keep_their_type(dummy_build):
    assistant = dummy_build(NAME, "dialogs")["train"][0]["messages"][1]  # its booleans: QUIRKS
    assert isinstance(assistant["message_id"], str) and assistant["message_id"].isdigit()
    assert [source(f["source"]) for f in assistant["facts"]].count("known") >= 1


def test_escapes_are_decoded(dummy_build):
    texts = [m["message"] for m in dummy_build(NAME, "dialogs")["train"][0]["messages"]]
    assert any("1956\u20131957" in text for text in texts)


def test_every_value_survives_the_build(dummy_build):
    # Nothing lost, nothing invented: the rows equal the source dialogs, typed.
    corpus = registry.get(NAME)
    features = corpus.features("dialogs")
    for split, [path] in corpus.config("dialogs").files.items():
        document = json.loads((corpus.dummy_dir / path).read_text())
        expected = []
        for dialog in document["dialogs"]:
            dialog = dict(dialog, user_id=int(dialog["user_id"]), assistant_id=int(dialog["assistant_id"]))
            expected.append(features.encode_example(dialog))
        assert dummy_build(NAME, "dialogs")[split].to_list() == expected, split


def test_null_dialog_acts_are_no_acts(dummy_copy, tmp_path):
    # Never seen in the data; upstream's own reader treats null like []. Documented in the card.
    data_dir = dummy_copy(NAME)
    (data_dir / TRAIN).write_bytes(document(lambda d: d["dialogs"][0]["messages"][0].update(dialog_acts=None))(
        (data_dir / TRAIN).read_bytes()))
    assert load(NAME, data_dir=data_dir, cache_dir=tmp_path, allow_modified_sources=True)["train"][0]["messages"][0]["dialog_acts"] == []


def test_full_size_files_have_the_release_header(tmp_path):
    header = json.loads(write_curiosity(tmp_path, dialogs=2).read_text())  # FULL_SIZE builds them at the real sizes
    assert list(header)[1:] == ["fold", "source_checksum", "db_checksum", "unfolded_checksum",
                                "unfolded_generated_time", "generated_time"]


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
def test_typed_dialog_keeps_every_value(tmp_path_factory, record):
    data_dir = tmp_path_factory.mktemp("typed") / "data"
    shutil.copytree(corpus.dummy_dir, data_dir)
    (data_dir / TRAIN).write_text(json.dumps(dict(DUMMY_DOCUMENT, dialogs=[record])))
    typed = builder_rows(corpus, "dialogs", str(data_dir))["train"][0]  # what the builder yields
    features = registry.get(NAME).features("dialogs")
    expected = dict(record, user_id=int(record["user_id"]), assistant_id=int(record["assistant_id"]))
    assert typed == features.encode_example(expected)  # the same values, class labels as their index: they fit


# --- bad input: what `corpora build curiosity_dialogs` prints (tests/test_bad_input.py runs them) ----


def document(mutate):
    """The file decoded, changed by `mutate` and encoded again (ASCII, as upstream writes it)."""
    def variant(raw):
        parsed = json.loads(raw)
        mutate(parsed)
        return json.dumps(parsed).encode()

    return variant


def first_dialog(old, new):
    """The file's bytes with the first `old` replaced by `new` (for what json.dumps cannot write)."""
    return lambda raw: raw.replace(old, new, 1)


MESSAGE_ID = b'"message_id": "2761459254"'
ZERO = "dialog_data/curiosity_dialogs.test_zero.json"
UNKNOWN_HEADER = (f"{TRAIN}: unknown top-level field(s) ['unannotated_dataset_checksum']; expected ['dialogs', 'fold', "
                  "'source_checksum', 'db_checksum', 'unfolded_checksum', 'unfolded_generated_time', 'generated_time']")
CUT_AT_5000 = f"{TRAIN}: invalid JSON (Expecting ',' delimiter: line 1 column 5001 (char 5000))"
BAD_INPUT = [
    BadInput(TRAIN, "truncated file", lambda raw: raw[: len(raw) // 2],
             f"{TRAIN}: invalid JSON (Unterminated string starting at: line 1 column 8921 (char 8920))"),
    BadInput(TRAIN, "wrong encoding (Latin-1)", lambda raw: raw[:20] + b"\xe9" + raw[20:],
             f"{TRAIN}, line 1: not UTF-8 (byte 0xe9 at offset 20 of the line: invalid continuation byte)"),
    BadInput(TRAIN, "wrong delimiter (JSON Lines instead of one document)",
             lambda raw: b"\n".join(json.dumps(d).encode() for d in json.loads(raw)["dialogs"]),
             f"{TRAIN}: invalid JSON (Extra data: line 2 column 1 (char 5791))"),
    BadInput(TRAIN, "missing field", document(lambda d: d["dialogs"][0].pop("tag")),
             f"{TRAIN}, dialog 0: field(s) missing ['tag'], unknown []"),
    BadInput(TRAIN, "extra field", document(lambda d: d["dialogs"][0].update(comment="x")),
             f"{TRAIN}, dialog 0: field(s) missing [], unknown ['comment']"),
    BadInput(TRAIN, "empty file", lambda raw: b"", f"{TRAIN}: is empty (expected a JSON object with a 'dialogs' list)"),
    BadInput(TRAIN, "unknown label", document(lambda d: d["dialogs"][0]["messages"][0].update(sender="bot")),
             f"{TRAIN}, dialog 0, message 0: field 'sender': invalid value 'bot' (expected 'user' or 'assistant')"),
    BadInput(TRAIN, "out-of-range number", document(lambda d: d["dialogs"][0].update(user_dialog_rating=7)),
             f"{TRAIN}, dialog 0: field 'user_dialog_rating': invalid value 7 (expected an integer from 1 to 5)"),
    BadInput(TRAIN, "repeated key", first_dialog(MESSAGE_ID, MESSAGE_ID + b', "liked": true'),
             f"{TRAIN}, dialog 0: field 'messages'[0]['liked']: repeated key in one JSON object (values False and True)"),
    BadInput(TRAIN, "lone surrogate escape", first_dialog(b'"Hi, can you', b'"\\ud83d Hi, can you'),
             f"{TRAIN}, dialog 0: field 'messages'[0]['message']: invalid value "
             "'\\ud83d Hi, can you tell me about Kerala?' (expected text; a lone UTF-16 surrogate escape is not text)"),
    BadInput(TRAIN, "5000-digit integer", first_dialog(b'"facts": []', b'"facts": [' + b"1" * 5000 + b"]"),
             f"{TRAIN}, dialog 0: field 'messages'[0]['facts'][0]: invalid value {'1' * 77}... "
             "(expected an integer of at most 4300 digits; this one has 5000)"),
    BadInput(TRAIN, "nesting 100,000 deep", first_dialog(b'"facts": []', b'"facts": ' + b"[" * 100_000 + b"]" * 100_000),
             f"{TRAIN}: invalid JSON (nested too deeply for Python's JSON reader)"),
    BadInput(TRAIN, "a JSON list, not an object", lambda raw: json.dumps([{"dialog_id": 1}]).encode(),
             f"{TRAIN}: expected a JSON object with a 'dialogs' list, got list"),
    BadInput(TRAIN, "no dialogs", lambda raw: json.dumps({"fold": "train"}).encode(), f"{TRAIN}: top-level field 'dialogs' is missing"),
    BadInput(TRAIN, "unknown top-level field", document(lambda d: d.update(unannotated_dataset_checksum="0" * 32)),
             UNKNOWN_HEADER),
    BadInput(TRAIN, "cut at 5000 bytes", lambda raw: raw[:5000], CUT_AT_5000),
    BadInput(TRAIN, "a later dialog without a field", document(lambda d: d["dialogs"][2].pop("tag")),
             f"{TRAIN}, dialog 2: field(s) missing ['tag'], unknown []"),
    *[BadInput(TRAIN, f"user_id {value!r}", document(lambda d, v=value: d["dialogs"][1].update(user_id=v)),
               f"{TRAIN}, dialog 1: field 'user_id': invalid value {value!r} "
               "(expected a string of decimal digits without leading zeros, below 2**31)")
      for value in ["b908a1f3c2", "0314", "-3", 314, ""]],
    BadInput(TRAIN, "sender system", document(lambda d: d["dialogs"][0]["messages"][3].update(sender="system")),
             f"{TRAIN}, dialog 0, message 3: field 'sender': invalid value 'system' (expected 'user' or 'assistant')"),
    *[BadInput(TRAIN, case, document(change), f"{TRAIN}, {message}") for case, change, message in [
        ("reported a string", lambda d: d["dialogs"][0].update(reported="False"),
         "dialog 0: field 'reported': invalid value 'False' (expected true or false)"),
        ("inferred_steps 1", lambda d: d["dialogs"][0].update(inferred_steps=1),
         "dialog 0: field 'inferred_steps': invalid value 1 (expected true or false)"),
        ("a rating of 6", lambda d: d["dialogs"][2].update(assistant_dialog_rating=6),
         "dialog 2: field 'assistant_dialog_rating': invalid value 6 (expected an integer from 1 to 5)"),
        ("an unknown fact source", lambda d: d["dialogs"][0]["messages"][1]["facts"][4].update(source="wiki"),
         "dialog 0, message 1, fact 4: field 'source': invalid value 'wiki' (expected 'section' or 'known' or 'random')"),
        ("used 0", lambda d: d["dialogs"][0]["messages"][1]["facts"][4].update(used=0),
         "dialog 0, message 1, fact 4: field 'used': invalid value 0 (expected true or false)"),
        ("message_id a number", lambda d: d["dialogs"][0]["messages"][2].update(message_id=2420897156),
         "dialog 0, message 2: field 'message_id': invalid value 2420897156 (expected a string of decimal digits)"),
        ("a known entity not a string", lambda d: d["dialogs"][0].update(known_entities=["India", 3]),
         "dialog 0: field 'known_entities'[1]: invalid value 3 (expected a string)"),
        ("an aspect not a string", lambda d: d["dialogs"][0].update(first_aspect=0),
         "dialog 0: field 'first_aspect': invalid value 0 (expected a string or null)"),
    ]],
    BadInput(TRAIN, "a repeated tag", lambda raw: raw.replace(b'"tag": "pilot"', b'"tag": "pilot", "tag": "round_1"', 1),
             f"{TRAIN}, dialog 2: field 'tag': repeated key in one JSON object (values 'pilot' and 'round_1')"),
    BadInput(ZERO, "no dialogs in test_zero", document(lambda d: d.update(dialogs=[])),
             f"{ZERO}: has no dialogs (its 'dialogs' list is empty)"),
]


def test_the_earlier_loader_version_is_the_one_the_format_notes_record():
    # curiosity_dialogs' first release note named the earlier Hugging Face loader "1.0.0"; it was 1.1.0.
    corpus = registry.get("curiosity_dialogs")
    format_md = (corpus.loader_dir / "FORMAT.md").read_text(encoding="utf-8")
    (recorded,) = re.findall(r"^\| earlier Hugging Face loader \| .*, version (\d+\.\d+\.\d+);", format_md, re.MULTILINE)
    note = corpus.builder_class.RELEASE_NOTES["2.0.0"]
    assert (recorded, re.findall(r"earlier Hugging Face loader \((\d+\.\d+\.\d+)\)", note)) == ("1.1.0", ["1.1.0"])


# Each documented range at both edges: the last valid value is read as that number, the first
# invalid one refused with the line of BAD_INPUT's table.
RATING, WORKER_ID = "an integer from 1 to 5", "a string of decimal digits without leading zeros, below 2**31"
EDGES = [
    *[(field, value, None) for field, value in [
        ("assistant_dialog_rating", 1), ("assistant_dialog_rating", 5), ("user_id", "0"), ("user_id", str(2**31 - 1))]],
    *[("assistant_dialog_rating", value, RATING) for value in (0, 6)],
    ("user_id", str(2**31), WORKER_ID),
]


@pytest.mark.parametrize("field,value,refused", EDGES, ids=[f"{field}={value}" for field, value, _ in EDGES])
def test_each_range_at_both_edges(field, value, refused, dummy_copy):
    data_dir = dummy_copy(NAME, changed=TRAIN)
    (data_dir / TRAIN).write_bytes(document(lambda d: d["dialogs"][2].update({field: value}))((data_dir / TRAIN).read_bytes()))
    if refused is None:
        assert builder_rows(corpus, "dialogs", str(data_dir))["train"][2][field] == int(value)
    else:
        with pytest.raises(ValueError) as caught:
            builder_rows(corpus, "dialogs", str(data_dir))
        assert str(caught.value) == f"{TRAIN}, dialog 2: field {field!r}: invalid value {value!r} (expected {refused})"
