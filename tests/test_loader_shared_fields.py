"""src/corpora/loader_shared/fields.py: the builders every loader declares its fields with (the
domain once: the feature, the check and what an error says derive from it), and the one reading of
a value (`Field.value`) that `values` and `reader` use too."""

import re

import datasets
import pytest

from corpora.loader_shared.fields import EMPTY
from corpora.loader_shared.fields import INT32
from corpora.loader_shared.fields import INT64
from corpora.loader_shared.fields import INVALID
from corpora.loader_shared.fields import NULL
from corpora.loader_shared.fields import Field
from corpora.loader_shared.fields import boolean
from corpora.loader_shared.fields import checked
from corpora.loader_shared.fields import choices
from corpora.loader_shared.fields import integer
from corpora.loader_shared.fields import label
from corpora.loader_shared.fields import mapping
from corpora.loader_shared.fields import matching
from corpora.loader_shared.fields import number
from corpora.loader_shared.fields import reader
from corpora.loader_shared.fields import string
from corpora.loader_shared.fields import typed

WHERE = "f.jsonl, line 2"


@pytest.mark.parametrize(("field", "good", "bad"), [
    (string(), ["", "x", " "], [None, 1, b"x", ["x"]]),
    (string(nonempty=True), ["x", " "], ["", None, 1]),
    (string(blank=False), ["x", " x\n"], ["", " ", " \n ", None]),
    (boolean(), [True, False], [0, 1, "true", None]),
    (integer(range(1, 13)), [1, 12], [0, 13, True, "3", 3.0, None]),
    (label(["a", "b"]), ["a", "b"], ["c", None, ["a"], {"a": 1}]),
    # Names in a set: a value that cannot be hashed (a list, a dict) is refused, not a TypeError.
    (label(frozenset({"0", "1"})), ["0", "1"], [0, 1, True, 1.0, ["0"], {"0": 1}, None]),
    (matching(re.compile(r"[0-9]+"), "digits"), ["0", "0123"], ["", "1a", " 1", 1, None]),
    (number(0.0, 1.0), [0.0, 0.5, 1.0], [1.5, -0.1, float("nan"), float("inf"), "0.5", True, None, 10**400]),
])
def test_a_builder_keeps_its_domain_and_refuses_the_rest(field, good, bad):
    assert [field.check(value) for value in good] == good
    assert all(field.check(value) is INVALID for value in bad)


def test_a_label_read_as_its_index_is_its_position_among_the_names():
    check = label(["user", "assistant"], index=True).check
    assert [check("user"), check("assistant")] == [0, 1]
    assert [v for v in ["bot", 0, 1, True, None, ["user"], {"user": 1}] if check(v) is not INVALID] == []


def test_an_integer_with_text_reads_the_text_python_writes_and_json_integers():
    check = integer(range(-18, 19), text=True).check
    assert [check(v) for v in ["12", "-3", "0", 0, 18, -18]] == [12, -3, 0, 0, 18, -18]
    refused = [" 3", "+3", "03", "-0", "1_0", "\u0663", "3.0", "", "19", 19, True, None, 3.0, "9" * 5000]
    assert [v for v in refused if check(v) is not INVALID] == []


def test_an_integer_of_text_only_refuses_json_integers():
    check = integer(range(2**31), text="only").check
    assert [check(v) for v in ["314", "0"]] == [314, 0]
    assert [v for v in [314, "0314", "-3", "", "2147483648", True] if check(v) is not INVALID] == []


def test_a_decimal_number_reads_its_text():
    check = number(text=True).check
    assert [check(v) for v in ["0", "-3", "12.5", "0.75"]] == [0.0, -3.0, 12.5, 0.75]
    assert [v for v in ["1e3", ".5", "05", "nan", "inf", " 1", "", 1.0, "9" * 400] if check(v) is not INVALID] == []


def test_a_mapping_types_the_text_it_names():
    check = mapping({"True": True, "False": False}, datasets.Value("bool")).check
    assert [check("True"), check("False")] == [True, False]
    assert [v for v in ["true", "", True, None, ["True"]] if check(v) is not INVALID] == []


@pytest.mark.parametrize(("field", "expected"), [
    (string(), "a string"),
    (string(nonempty=True), "a non-empty string"),
    (string(blank=False), "a non-empty string"),
    (string(nulls=NULL), "a string or null"),
    (boolean(), "true or false"),
    (boolean(nulls=("NOANNOTATION",)), "true or false or 'NOANNOTATION'"),
    (integer(range(1, 6)), "an integer from 1 to 5"),
    (integer(range(-18, 19), text=True), "an integer from -18 to 18"),
    (integer(range(2**31)), "a non-negative integer below 2**31"),
    (integer(range(2**31), text=True, nulls=EMPTY), "a non-negative integer below 2**31 or empty"),
    (integer(range(2**31), text="only"), "a string of decimal digits without leading zeros, below 2**31"),
    (integer(INT32), "an int32 integer"),
    (integer(INT64), "an int64 integer"),
    (integer((0, 2, 3), text=True), "0 or 2 or 3"),
    (integer((1, 2, 3), text=True, nulls=EMPTY), "1 or 2 or 3 or empty"),
    (number(0.0, 1.0), "a number from 0 to 1"),
    (number(0.0, 1.0, text=True), "a decimal number from 0 to 1"),
    (number(text=True), "a decimal number"),
    (label(["Spring", "Fall", "Winter"]), "'Spring' or 'Fall' or 'Winter'"),
    (label(["a", "b"], nulls=EMPTY), "'a' or 'b' or empty"),
    (mapping({"0": 0.0, "0.5": 0.5, "1": 1.0}, datasets.Value("float32")), "'0' or '0.5' or '1'"),
    (matching(re.compile("[0-9]+"), "a string of decimal digits"), "a string of decimal digits"),
    (checked(datasets.Value("string"), str, "a text starting with 'Yes' or 'No'", nulls=EMPTY),
     "a text starting with 'Yes' or 'No' or empty"),
])
def test_a_builder_derives_what_its_error_says_from_the_domain_and_the_nulls(field, expected):
    assert field.expected == expected


def test_a_builder_derives_the_feature_from_the_domain():
    assert integer(range(1, 6)).feature == datasets.Value("int32")
    assert integer(INT64).feature == datasets.Value("int64")
    assert label(["a", "b"]).feature == datasets.ClassLabel(names=["a", "b"])
    assert label(["a"], feature=datasets.Value("string")).feature == datasets.Value("string")
    assert number(text=True).feature == datasets.Value("float64")
    assert string(key="k").source("name") == "k"


def test_choices_names_the_values_as_errors_do():
    assert choices(["Spring", "Fall", "Winter"]) == "'Spring' or 'Fall' or 'Winter'"
    assert choices((0, 2, 3)) == "0 or 2 or 3"


FIELDS = {
    "n": Field(None, integer(range(10)).check, "a digit"),
    "label": Field(None, boolean().check, "true, false or 'NONE'", nulls=("NONE",)),
    "name": Field(None, parse=lambda raw, where, path, context: context + raw, key="who"),
}


def test_reader_gives_each_value_as_field_value_does():
    record = {"n": 3, "label": "NONE", "who": "x"}
    expected = {name: field.value(record[field.source(name)], WHERE, name, ">") for name, field in FIELDS.items()}
    assert expected == {"n": 3, "label": None, "name": ">x"}
    assert reader(FIELDS)(record, WHERE, ">") == expected == typed(FIELDS, record, WHERE, ">")


@pytest.mark.parametrize(("record", "bad", "message"), [
    ({"n": 10, "label": 1, "who": "x"}, "n", "f.jsonl, line 2: field 'n': invalid value 10 (expected a digit)"),
    ({"n": 1, "label": 1, "who": "x"}, "label",
     "f.jsonl, line 2: field 'label': invalid value 1 (expected true, false or 'NONE')"),
])
def test_reader_raises_the_error_of_field_value_for_the_first_bad_value(record, bad, message):
    with pytest.raises(ValueError) as read:
        reader(FIELDS)(record, WHERE, "")
    with pytest.raises(ValueError) as one:
        FIELDS[bad].value(record[bad], WHERE, bad)
    assert str(read.value) == str(one.value) == message


def test_values_types_a_list_and_names_the_position_of_the_first_bad_item():
    field = FIELDS["label"]
    assert field.values([True, "NONE", False], WHERE, "labels") == [True, None, False]
    with pytest.raises(ValueError, match=r"^f.jsonl, line 2: field 'labels'\[2\]: invalid value 0 "):
        field.values([True, "NONE", 0, 1], WHERE, "labels")
    parsed = Field(None, parse=lambda raw, where, path, context: (path, raw))
    assert parsed.values(["a"], WHERE, "names") == [(("names", 0), "a")]


def test_a_record_below_a_field_names_its_path_in_errors():
    fields = {"start": integer(range(2**31)), "quote": string()}
    assert typed(fields, {"start": 3, "quote": "x"}, WHERE, at=("EVIDENCE", 0)) == {"start": 3, "quote": "x"}
    with pytest.raises(ValueError) as error:
        typed(fields, {"start": "87", "quote": "x"}, WHERE, at=("EVIDENCE", 0))
    assert str(error.value) == (
        "f.jsonl, line 2: field 'EVIDENCE'[0]['start']: invalid value '87' (expected a non-negative integer below 2**31)"
    )
