"""src/corpora/loader_shared/_fields.py: the checks every loader shares, and the one reading of a
value (`Field.value`) that `values` and `reader` use too."""

import re

import pytest

from corpora.loader_shared._fields import INVALID
from corpora.loader_shared._fields import Field
from corpora.loader_shared._fields import boolean
from corpora.loader_shared._fields import choices
from corpora.loader_shared._fields import integer
from corpora.loader_shared._fields import matching
from corpora.loader_shared._fields import one_of
from corpora.loader_shared._fields import reader
from corpora.loader_shared._fields import string
from corpora.loader_shared._fields import typed

WHERE = "f.jsonl, line 2"


@pytest.mark.parametrize(("check", "good", "bad"), [
    (string, ["", "x"], [None, 1, b"x", ["x"]]),
    (boolean, [True, False], [0, 1, "true", None]),
    (integer(range(1, 13)), [1, 12], [0, 13, True, "3", 3.0, None]),
    (one_of(["a", "b"]), ["a", "b"], ["c", None, ["a"], {"a": 1}]),
    # Names in a set: a value that cannot be hashed (a list, a dict) is refused, not a TypeError.
    (one_of(frozenset({"0", "1"})), ["0", "1"], [0, 1, True, 1.0, ["0"], {"0": 1}, None]),
    (matching(re.compile(r"[0-9]+")), ["0", "0123"], ["", "1a", " 1", 1, None]),
])
def test_a_shared_check_keeps_its_domain_and_refuses_the_rest(check, good, bad):
    assert [check(value) for value in good] == good
    assert all(check(value) is INVALID for value in bad)


def test_an_integer_with_text_reads_the_text_python_writes_and_json_integers():
    check = integer(range(-18, 19), text=True)
    assert [check(v) for v in ["12", "-3", "0", 0, 18, -18]] == [12, -3, 0, 0, 18, -18]
    refused = [" 3", "+3", "03", "-0", "1_0", "\u0663", "3.0", "", "19", 19, True, None, 3.0, "9" * 5000]
    assert [v for v in refused if check(v) is not INVALID] == []


def test_choices_names_the_values_as_errors_do():
    assert choices(["Spring", "Fall", "Winter"]) == "'Spring' or 'Fall' or 'Winter'"


FIELDS = {
    "n": Field(None, integer(range(10)), "a digit"),
    "label": Field(None, boolean, "true, false or 'NONE'", nulls=("NONE",)),
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
