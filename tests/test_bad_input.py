"""The bad-input matrix of the JSON corpora (diplomacy_detection, curiosity_dialogs): each malformed
variant of the real format stops the build with one clear line, and docs/bad_input.md says what
the user sees. The other corpora's matrices are in their own test files."""

import json
import re
from pathlib import Path

import pytest
from datasets.exceptions import DatasetGenerationError
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from corpora import load
from corpora import registry
from corpora.cli import _one_line

ROOT = Path(__file__).resolve().parents[1]
HTML = b"<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body>Not Found</body></html>\n"
LFS = b"version https://git-lfs.github.com/spec/v1\noid sha256:" + b"0" * 64 + b"\nsize 2472563\n"


def jsonl_record(mutate):
    def variant(raw):
        lines = raw.split(b"\n")
        record = json.loads(lines[0])
        mutate(record)
        return b"\n".join([json.dumps(record).encode()] + lines[1:])

    return variant


def document(mutate):
    def variant(raw):
        parsed = json.loads(raw)
        mutate(parsed)
        return json.dumps(parsed).encode()

    return variant


DIPLOMACY = "data/train.jsonl"
CURIOSITY = "dialog_data/curiosity_dialogs.train.json"

# corpus -> (file corrupted, {case: (variant of the dummy file's bytes, the error the user sees)})
MATRIX = {
    "diplomacy_detection": (DIPLOMACY, {
        "truncated file": (
            lambda raw: raw[: len(raw) // 2],
            "data/train.jsonl, line 3: invalid JSON (Unterminated string starting at: line 1 column 78 (char 77))",
        ),
        "wrong encoding (Latin-1)": (
            lambda raw: b"\xe9" + raw,
            "data/train.jsonl, line 1: not UTF-8 (byte 0xe9 at position 0: invalid continuation byte)",
        ),
        "UTF-8 BOM": (
            lambda raw: b"\xef\xbb\xbf" + raw,
            "data/train.jsonl: starts with a UTF-8 byte order mark; the release files have none",
        ),
        "wrong delimiter (CSV instead of JSON Lines)": (
            lambda raw: b"messages,sender_labels\nhello,true\n",
            "data/train.jsonl, line 1: invalid JSON (Expecting value: line 1 column 1 (char 0))",
        ),
        "missing field": (
            jsonl_record(lambda r: r.pop("game_id")),
            "data/train.jsonl, line 1: field(s) missing ['game_id'], unknown []",
        ),
        "extra field": (
            jsonl_record(lambda r: r.update(comment="x")),
            "data/train.jsonl, line 1: field(s) missing [], unknown ['comment']",
        ),
        "empty file": (lambda raw: b"", "data/train.jsonl: empty file, no dialogs"),
        "unknown label": (
            jsonl_record(lambda r: r["seasons"].__setitem__(0, "Summer")),
            "data/train.jsonl, line 1: field 'seasons'[0]: invalid value 'Summer'",
        ),
        "out-of-range number": (
            jsonl_record(lambda r: r["years"].__setitem__(0, "1950")),
            "data/train.jsonl, line 1: field 'years'[0]: invalid value '1950'",
        ),
        "Git LFS pointer": (
            lambda raw: LFS,
            "data/train.jsonl: is a Git LFS pointer, not the data; fetch the real file (git lfs pull)",
        ),
        "HTML error page": (
            lambda raw: HTML,
            "data/train.jsonl: is an HTML page, not the data (an error page saved in its place?)",
        ),
    }),
    "curiosity_dialogs": (CURIOSITY, {
        "truncated file": (
            lambda raw: raw[: len(raw) // 2],
            f"{CURIOSITY}: invalid JSON (Unterminated string starting at: line 1 column 8921 (char 8920))",
        ),
        "wrong encoding (Latin-1)": (
            lambda raw: raw[:20] + b"\xe9" + raw[20:],
            f"{CURIOSITY}: not UTF-8 (byte 0xe9 at position 20: invalid continuation byte)",
        ),
        "UTF-8 BOM": (
            lambda raw: b"\xef\xbb\xbf" + raw,
            f"{CURIOSITY}: starts with a UTF-8 byte order mark; the release files have none",
        ),
        "wrong delimiter (JSON Lines instead of one document)": (
            lambda raw: b"\n".join(json.dumps(d).encode() for d in json.loads(raw)["dialogs"]),
            f"{CURIOSITY}: invalid JSON (Extra data: line 2 column 1 (char 5791))",
        ),
        "missing field": (
            document(lambda d: d["dialogs"][0].pop("tag")),
            f"{CURIOSITY}, dialog 0: field(s) missing ['tag'], unknown []",
        ),
        "extra field": (
            document(lambda d: d["dialogs"][0].update(comment="x")),
            f"{CURIOSITY}, dialog 0: field(s) missing [], unknown ['comment']",
        ),
        "empty file": (lambda raw: b"", f"{CURIOSITY}: empty file, no dialogs"),
        "unknown label": (
            document(lambda d: d["dialogs"][0]["messages"][0].update(sender="bot")),
            f"{CURIOSITY}, dialog 0, message 0: field 'sender': invalid value 'bot' (expected 'user' or 'assistant')",
        ),
        "out-of-range number": (
            document(lambda d: d["dialogs"][0].update(user_dialog_rating=7)),
            f"{CURIOSITY}, dialog 0: field 'user_dialog_rating': invalid value 7 (expected an integer from 1 to 5)",
        ),
        "Git LFS pointer": (
            lambda raw: LFS,
            f"{CURIOSITY}: is a Git LFS pointer, not the data; fetch the real file (git lfs pull)",
        ),
        "HTML error page": (
            lambda raw: HTML,
            f"{CURIOSITY}: is an HTML page, not the data (an error page saved in its place?)",
        ),
    }),
}
CASES = [(name, case) for name, (_, cases) in MATRIX.items() for case in cases]


@pytest.mark.parametrize("name,case", CASES, ids=[f"{n}-{c}" for n, c in CASES])
def test_bad_input_stops_with_one_clear_line(name, case, dummy_copy, tmp_path):
    path, cases = MATRIX[name]
    variant, message = cases[case]
    data_dir = dummy_copy(name)
    (data_dir / path).write_bytes(variant((data_dir / path).read_bytes()))
    with pytest.raises(DatasetGenerationError) as caught:
        load(name, data_dir=data_dir, cache_dir=tmp_path / "cache", allow_modified_sources=True)
    assert isinstance(caught.value.__cause__, ValueError)
    assert _one_line(caught.value) == message


def documented_rows():
    """(corpus, case) -> message, from the tables of docs/bad_input.md."""
    rows, corpus = {}, None
    for line in (ROOT / "docs" / "bad_input.md").read_text().splitlines():
        heading = re.match(r"^## `(\w+)`", line)
        if heading:
            corpus = heading.group(1)
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if len(cells) == 2 and cells[1].startswith("`") and corpus:
            rows[corpus, cells[0]] = cells[1].strip("`").strip()
    return rows


ACCEPTED = "(accepted: the same rows as without it)"


def expectations():
    """(corpus, case) -> the line the user sees, from every corpus's bad-input matrix."""
    import test_caption_contest_ratings as caption
    import test_crowd_deliberation as crowd
    import test_saf_micro_job_german as saf

    expected = {(name, case): MATRIX[name][1][case][1] for name, case in CASES}
    expected |= {("crowd_deliberation", case): message for case, (_, message) in crowd.MATRIX.items()}
    expected |= {
        ("saf_micro_job_german", f"{config}: {case}"): message or ACCEPTED for config, _, case, _, message in saf.MATRIX
    }
    expected |= {("caption_contest_ratings", case): message.strip() for case, message in caption.DOCUMENTED_CASES.items()}
    return expected


def test_docs_show_exactly_what_the_user_sees():
    assert documented_rows() == expectations()


def test_every_corpus_has_at_least_ten_documented_bad_inputs():
    counts = {name: sum(1 for corpus, _ in expectations() if corpus == name) for name in registry.names()}
    assert {name: count >= 10 for name, count in counts.items()} == {name: True for name in registry.names()}


# --- fuzzing the record parsers: the typed value or a ValueError, never another exception -------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def near_valid(valid):
    """Records like the dummy ones, with one field replaced, removed or added."""
    return st.builds(
        lambda record, key, value, action: (
            {k: v for k, v in record.items() if k != key} if action == "drop"
            else dict(record, **{key if action == "set" else key + "_extra": value})
        ),
        st.sampled_from(valid), st.sampled_from(sorted(valid[0])), json_values, st.sampled_from(["set", "drop", "add"]),
    )


def diplomacy_records():
    lines = (registry.get("diplomacy_detection").dummy_dir / DIPLOMACY).read_text().splitlines()
    return [json.loads(line) for line in lines]


def curiosity_records():
    return json.loads((registry.get("curiosity_dialogs").dummy_dir / CURIOSITY).read_text())["dialogs"]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_fuzzed_diplomacy_records(data):
    module = registry.get("diplomacy_detection").module
    record = data.draw(near_valid(diplomacy_records()) | json_values)
    try:
        module._typed_dialog(record, "data/train.jsonl, line 1")
    except ValueError as error:
        assert str(error).startswith("data/train.jsonl, line 1")


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_fuzzed_curiosity_records(data):
    module = registry.get("curiosity_dialogs").module
    record = data.draw(near_valid(curiosity_records()) | json_values)
    try:
        module._typed_dialog(record, f"{CURIOSITY}, dialog 0")
    except ValueError as error:
        assert str(error).startswith(f"{CURIOSITY}, dialog 0")


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_fuzzed_diplomacy_lines(tmp_path_factory, raw):
    module = registry.get("diplomacy_detection").module
    path = tmp_path_factory.mktemp("fuzz") / "train.jsonl"
    path.write_bytes(raw)
    try:
        list(module._read_dialogs(str(path), DIPLOMACY))
    except ValueError as error:
        assert str(error).startswith(DIPLOMACY)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200) | json_values.map(lambda v: json.dumps({"dialogs": v}).encode()))
def test_fuzzed_curiosity_files(tmp_path_factory, raw):
    module = registry.get("curiosity_dialogs").module
    path = tmp_path_factory.mktemp("fuzz") / "train.json"
    path.write_bytes(raw)
    try:
        list(module._read_dialogs(str(path), CURIOSITY))
    except ValueError as error:
        assert str(error).startswith(CURIOSITY)
