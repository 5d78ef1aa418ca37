"""crowd_deliberation's cell parsers (the loader's _csv_cells and its JSON lists), fuzzed: each
accepts exactly the cells FORMAT.md allows. Whole files are fuzzed through the builder by the
FUZZ declarations of tests/test_crowd_deliberation.py."""

import csv
import importlib
import io
import json

import pytest
from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from corpora import registry
from helpers import CSV_UNSAFE

DATA = "data.csv"
loader = registry.get("crowd_deliberation").module
csv_cells = importlib.import_module(f"{loader.__package__}._csv_cells")  # the CSV reading and the cell parsers


def typed_cell(value, column, field):
    """`value` in the column `column` of line 2 of fuzz.csv, typed by `field` as a record's cells are."""
    return csv_cells.Row("fuzz.csv", 2, {column: value}).value(field._replace(key=column))


def expect_error(call, column, value):
    with pytest.raises(ValueError) as caught:
        call()
    assert str(caught.value).startswith(f"fuzz.csv, line 2: field {column!r}: ")
    assert "invalid" in str(caught.value)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.integers(-10, 2**32).map(str), st.text(max_size=12)))
def test_integer_cells(value):
    if value.isascii() and value.isdigit() and str(int(value)) == value and int(value) < 2**31:
        assert typed_cell(value, "ORDER", loader._ID) == int(value)
    else:
        expect_error(lambda: typed_cell(value, "ORDER", loader._ID), "ORDER", value)
    if value == "":
        assert typed_cell(value, "ORDER", loader._LABEL_FIELDS["deliberation_id"]) is None


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.sampled_from(["0", "0.5", "1", "", "1.0", ".5", "0.50"]), st.text(max_size=5)))
def test_confidence_cells(value):
    if value in ("0", "0.5", "1"):
        assert typed_cell(value, "C", loader._confidence()) == float(value)
    else:
        expect_error(lambda: typed_cell(value, "C", loader._confidence()), "C", value)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.sampled_from(["True", "False", "true", "1", ""]), st.text(max_size=6)))
def test_boolean_cells(value):
    if value in ("True", "False"):
        assert typed_cell(value, "B", loader._BOOLEAN) is (value == "True")
    else:
        expect_error(lambda: typed_cell(value, "B", loader._BOOLEAN), "B", value)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.tuples(st.sampled_from(["Yes", "No", "yes", "Yeah", "Nope", ""]), st.sampled_from(["", " "]),
                           st.text(max_size=20)).map("".join), st.text(max_size=20)))
def test_yes_no_cells(value):
    if value == "":
        assert typed_cell(value, "Q", loader._YES_NO_ANSWER) is None
    elif value in ("Yes", "No") or value.startswith(("Yes ", "No ")):
        answer, _, rest = value.partition(" ")
        assert typed_cell(value, "Q", loader._YES_NO_ANSWER) == {"answer": answer == "Yes", "explanation": rest or None}
    else:
        expect_error(lambda: typed_cell(value, "Q", loader._YES_NO_ANSWER), "Q", value)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.integers(-(2**40), 2**40).map(str), st.floats(allow_nan=True, allow_infinity=True).map(repr),
                 st.decimals(places=4, allow_nan=False, allow_infinity=False).map(str), st.text(max_size=8)))
@example("-2147483648")  # found (ffd8a05): -2**31 is an int32
def test_number_cells(value):
    for integer in (True, False):
        try:
            number = typed_cell(value, "N", loader._statistic(integer, "N"))
        except ValueError as error:
            assert str(error).startswith("fuzz.csv, line 2: field 'N': invalid value")
            continue
        assert "e" not in value.lower() and "n" not in value.lower() and not value.startswith("+")
        assert number == (int(value) if integer else float(value))
        assert isinstance(number, int if integer else float)
        if integer:
            assert -(2**31) <= number < 2**31  # an int32


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.lists(st.text(max_size=10), max_size=4).map(json.dumps),
                 st.lists(st.one_of(st.integers(), st.none()), min_size=1, max_size=3).map(json.dumps),
                 st.text(max_size=10)))
def test_string_list_cells(value):
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = None
    if value == "":
        assert typed_cell(value, "W", loader._STRINGS) is None
    elif isinstance(parsed, list) and all(isinstance(item, str) for item in parsed):
        assert typed_cell(value, "W", loader._STRINGS) == parsed
    else:
        with pytest.raises(ValueError, match=r"^fuzz\.csv, line 2: field 'W'[:\[]"):
            typed_cell(value, "W", loader._STRINGS)


# Upstream writes with lineterminator="\n", so a lone CR would not be quoted: the release has none.
cell = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r" + CSV_UNSAFE), max_size=30)


@settings(max_examples=100, deadline=None)
@given(rows=st.lists(st.lists(cell, min_size=5, max_size=5), min_size=1, max_size=5))
def test_csv_records_round_trip(rows, tmp_path_factory):
    # Any cells (quotes, commas, newlines) written the way upstream writes them come back as
    # the same records, with the line each starts on.
    folder = tmp_path_factory.mktemp("csv")
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows([loader._DATA_COLUMNS] + rows)
    (folder / DATA).write_text(buffer.getvalue(), encoding="utf-8", newline="")
    records = list(csv_cells.records(str(folder / DATA), DATA, loader._DATA_COLUMNS))
    assert [list(record.values()) for _, record in records] == rows
    assert records[0][0] == 2
