"""The CSV side of crowd_deliberation: a file read as records (after the checks that it is the
data and has exactly the expected header), and the kinds of its cells, each a `Field` (the
feature of a value, the check of its text, what an error says it should be; an empty cell is
None where the column is nullable), whose errors name the file, the line, the field and the value.
"""

import csv
import io
import re
import sys

import datasets
from datasets.utils.file_utils import xopen

from ._fields import INVALID
from ._fields import Field
from ._fields import choices
from ._fields import integer as integer_in
from ._fields import one_of
from ._loader_common import check_is_data
from ._loader_common import invalid
from ._loader_common import no_records
from ._loader_common import show
from ._loader_common import utf8

INT32_MAX = 2**31 - 1
_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")
_DECIMAL = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?")
_YES_NO = re.compile(r"(Yes|No)(?: (.*))?", re.DOTALL)
# 0 = not sure, 0.5 = sure, 1 = very sure (upstream README).
_CONFIDENCES = {"0": 0.0, "0.5": 0.5, "1": 1.0}
_BOOLEANS = {"True": True, "False": False}


# --- the kinds of a cell --------------------------------------------------------------------

_EMPTY = ("",)  # the cell that means no value, in a nullable column


def _cell(feature, check, expected, nullable):
    """The Field of a cell; a nullable column's empty cell is None, and its errors say so."""
    if nullable:
        return Field(feature, check, expected + " or empty", nulls=_EMPTY)
    return Field(feature, check, expected)


def integer(domain=None, nullable=False):
    """A non-negative int32 from its decimal digits (an id, an order, a count)."""
    if domain is None:
        domain, expected = range(INT32_MAX + 1), "a non-negative integer below 2**31"
    else:
        expected = "one of " + ", ".join(str(n) for n in domain)
    return _cell(datasets.Value("int32"), integer_in(domain, text=True), expected, nullable)


def choice(names, nullable=False):
    return _cell(datasets.ClassLabel(names=names), one_of(names), choices(names), nullable)


def string(nullable=False):
    return Field(
        datasets.Value("string"), lambda value: value if value != "" else INVALID, "a non-empty text",
        nulls=_EMPTY if nullable else (),
    )


def confidence(nullable=False):
    check = _CONFIDENCES.get
    return _cell(datasets.Value("float32"), lambda value: check(value, INVALID), "'0', '0.5' or '1'", nullable)


def number(whole):
    """A readability statistic: an int32 integer if `whole`, else a decimal number."""
    if whole:
        return Field(datasets.Value("int32"), _whole_number, "an int32 integer")
    return Field(datasets.Value("float64"), lambda value: float(value) if _DECIMAL.fullmatch(value) else INVALID,
                 "a decimal number")


def _whole_number(value):
    if _INTEGER.fullmatch(value) and len(value) <= 11 and -INT32_MAX <= int(value) <= INT32_MAX:
        return int(value)
    return INVALID


def _yes_no(value):
    """'Yes ...' / 'No ...' -> {answer, explanation}."""
    match = _YES_NO.fullmatch(value)
    if match is None:
        return INVALID
    return {"answer": match.group(1) == "Yes", "explanation": match.group(2) or None}


BOOLEAN = Field(datasets.Value("bool"), lambda value: _BOOLEANS.get(value, INVALID), "'True' or 'False'")
YES_NO = Field(
    {"answer": datasets.Value("bool"), "explanation": datasets.Value("string")},
    _yes_no,
    "a text starting with 'Yes' or 'No'",
    nulls=_EMPTY,
)


# --- a file's records -----------------------------------------------------------------------


def rows(filepath, source, header):
    """A Row per record; a file without records is an error (datasets cannot load an empty split)."""
    count = 0
    for line, cells in records(filepath, source, header):
        count += 1
        yield Row(source, line, cells)
    if count == 0:
        raise no_records(source, "records after the header")


def records(filepath, source, header):
    """Yield (line, {column: cell}) for every CSV record after checking that the header is `header`.

    `line` is the physical line the record starts on. csv handles quoted cells with doubled
    quotes and newlines; strict mode makes malformed quoting an error.
    """
    csv.field_size_limit(_FIELD_SIZE_LIMIT)
    reader = csv.reader(io.StringIO(_read_text(filepath, source), newline=""), strict=True)
    line = 1
    try:
        _check_header(next(reader), header, source)
        for cells in reader:
            start, line = line + 1, reader.line_num
            if len(cells) != len(header):
                raise ValueError(
                    f"{source}, line {start}: {len(cells)} cells, expected {len(header)} (the header's columns)"
                )
            yield start, dict(zip(header, cells, strict=True))
    except csv.Error as error:
        raise ValueError(f"{source}, line {reader.line_num}: malformed CSV ({error})") from None


def _read_text(filepath, source):
    """The whole file (at most 1.8 MB) as text, after the checks that name what it really is."""
    with xopen(filepath, "rb") as f:
        data = f.read()
    check_is_data(data, source, "a CSV header and records")
    return utf8(data, source)


def _largest_field_size_limit():
    """The csv module refuses cells over 128 KiB by default; here a cell is limited only by memory
    (the largest limit the platform's C long takes: sys.maxsize, or less where a long is 32 bits)."""
    limit = sys.maxsize
    while True:
        try:
            csv.field_size_limit(limit)
            return limit
        except OverflowError:
            limit //= 2


_FIELD_SIZE_LIMIT = _largest_field_size_limit()


def _check_header(header, expected, source):
    if header == expected:
        return
    missing = [column for column in expected if column not in header]
    unexpected = [column for column in header if column not in expected]
    if len(header) == 1 and (";" in header[0] or "\t" in header[0]):
        hint = " (not comma-separated?)"
    else:
        hint = ""
    if missing or unexpected:
        raise ValueError(
            f"{source}: unexpected header{hint}: {len(header)} columns, expected {len(expected)}; "
            f"missing {_show_columns(missing)}, unexpected {_show_columns(unexpected)}"
        )
    # Same names, other order or a repeated column: name the first position that differs.
    position = next(
        (i for i, (a, b) in enumerate(zip(header, expected, strict=False)) if a != b), len(expected)
    )
    wanted = repr(expected[position]) if position < len(expected) else "no further column"
    raise ValueError(
        f"{source}: unexpected header: column {position + 1} is {header[position]!r}, expected "
        f"{wanted} (columns out of order or repeated)"
    )


def _show_columns(columns):
    """At most 5 column names, each cut to a readable length."""
    shown = ", ".join(show(column) for column in columns[:5])
    return "[" + shown + (f", ... ({len(columns)} in all)]" if len(columns) > 5 else "]")


# --- a record's cells -----------------------------------------------------------------------


class Row:
    """One record's cells, typed by the fields of a table {column: Field}."""

    def __init__(self, source, line, cells):
        self.line = line
        self.where = f"{source}, line {line}"
        self.cells = cells

    def cell(self, column, field, context=None):
        """The value of the cell of `column`, typed by `field`."""
        return field.value(self.cells[column], self.where, column, context)

    def parse(self, fields, context=None, prefix=""):
        """{field: value} of the columns of `fields` ({column: Field}, each prefixed by `prefix` in
        the file), in their order; a field is named by its column in lower case."""
        return {column.lower(): self.cell(prefix + column, field, context) for column, field in fields.items()}

    def value(self, fields, column, context=None, prefix=""):
        """The value of one column of `fields`."""
        return self.cell(prefix + column, fields[column], context)

    def invalid(self, field, value, expected):
        return invalid(self.where, field, value, expected)

    def check_unique(self, seen, column, value):
        """`value` of `column` not in `seen` ({value: line}) and recorded there."""
        if value in seen:
            raise self.invalid(column, str(value), f"a unique {column}; already on line {seen[value]}")
        seen[value] = self.line

    def empty(self, column):
        return self.cells[column] == ""

    def statistics(self, group, prefix=""):
        """{field: value} of a group of statistics {field: Field, its column the Field's key}, or
        None if every cell is empty (nothing written)."""
        columns = [prefix + field.key for field in group.values()]
        empty = [self.empty(column) for column in columns]
        if all(empty):
            return None
        if any(empty):
            first = next(column for column, is_empty in zip(columns, empty, strict=True) if is_empty)
            raise self.invalid(first, "", "a number: the other statistics of this group are filled")
        return {name: self.cell(prefix + field.key, field) for name, field in group.items()}

