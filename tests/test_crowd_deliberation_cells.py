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
from corpora.loader_shared.loader_common import show  # a long value is cut in the message
from helpers import CSV_UNSAFE

DATA = "data.csv"
loader = registry.get("crowd_deliberation").module
csv_cells = importlib.import_module(f"{loader.__package__}._csv_cells")  # the CSV reading and the cell parsers


def typed_cell(value, column, field):
    """`value` in the column `column` of line 2 of fuzz.csv, typed by `field` as a record's cells are."""
    return csv_cells.Row("fuzz.csv", 2, {column: value}).value(field._replace(key=column))


def expect_error(value, column, field, expected):
    with pytest.raises(ValueError) as caught:
        typed_cell(value, column, field)
    assert str(caught.value) == f"fuzz.csv, line 2: field {column!r}: invalid value {show(value)} (expected {expected})"


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.integers(-10, 2**32).map(str), st.text(max_size=12)))
def test_integer_cells(value):
    if value.isascii() and value.isdigit() and str(int(value)) == value and int(value) < 2**31:
        assert typed_cell(value, "ORDER", loader._ID) == int(value)
    else:
        expect_error(value, "ORDER", loader._ID, "a non-negative integer below 2**31")


FEW_VALUES = [  # (field, the cells it takes and their values, other cells tried first, the refusal's expected part)
    (loader._confidence(), {"0": 0.0, "0.5": 0.5, "1": 1.0}, ["", "1.0", ".5", "0.50"], "'0' or '0.5' or '1'"),
    (loader._BOOLEAN, {"True": True, "False": False}, ["true", "1", ""], "'True' or 'False'"),
]


@pytest.mark.parametrize("field,taken,tried,expected", FEW_VALUES, ids=["confidence", "boolean"])
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_cells_of_a_few_values(field, taken, tried, expected, data):
    value = data.draw(st.one_of(st.sampled_from(sorted(taken) + tried), st.text(max_size=6)))
    if value in taken:
        read = typed_cell(value, "C", field)
        assert (read, type(read)) == (taken[value], type(taken[value]))
    else:
        expect_error(value, "C", field, expected)


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
        expect_error(value, "Q", loader._YES_NO_ANSWER, "a text starting with 'Yes' or 'No' or empty")


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.integers(-(2**40), 2**40).map(str), st.floats(allow_nan=True, allow_infinity=True).map(repr),
                 st.decimals(places=4, allow_nan=False, allow_infinity=False).map(str), st.text(max_size=8)))
@example("-2147483648")  # found (ffd8a05): -2**31 is an int32
def test_number_cells(value):
    for integer in (True, False):
        try:
            number = typed_cell(value, "N", loader._statistic(integer, "N"))
        except ValueError as error:
            expected = "an int32 integer" if integer else "a decimal number"
            assert str(error) == f"fuzz.csv, line 2: field 'N': invalid value {show(value)} (expected {expected})"
            continue
        assert "e" not in value.lower() and "n" not in value.lower() and not value.startswith("+")
        assert (number, type(number)) == ((int(value), int) if integer else (float(value), float))
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
