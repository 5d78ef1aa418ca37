"""crowd_deliberation's CSV files read as records with exactly the expected header, and a record's
cells typed by a table of fields, one per column (its `key`)."""

import csv
import io
import sys

from datasets.utils.file_utils import xopen

from corpora.loader_shared.fields import typed
from corpora.loader_shared.loader_common import check_is_data
from corpora.loader_shared.loader_common import invalid
from corpora.loader_shared.loader_common import no_records
from corpora.loader_shared.loader_common import show
from corpora.loader_shared.loader_common import utf8


def rows(filepath, source, header):
    """A Row per record; a file without records is an error (datasets cannot load an empty split)."""
    count = 0
    for line, cells in records(filepath, source, header):
        count += 1
        yield Row(source, line, cells)
    if count == 0:
        raise no_records(source, "records after the header")


def records(filepath, source, header):
    """(the line it starts on, {column: cell}) of every record; strict: malformed quoting is an error."""
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
    with xopen(filepath, "rb") as f:
        data = f.read()
    check_is_data(data, source, "a CSV header and records")
    return utf8(data, source)


def _largest_field_size_limit():
    """The largest limit the platform's C long takes: csv refuses cells over 128 KiB by default."""
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
    # Same names, in another order or repeated: name the first position that differs.
    position = next(
        (i for i, (a, b) in enumerate(zip(header, expected, strict=False)) if a != b), len(expected)
    )
    wanted = repr(expected[position]) if position < len(expected) else "no further column"
    raise ValueError(
        f"{source}: unexpected header: column {position + 1} is {header[position]!r}, expected "
        f"{wanted} (columns out of order or repeated)"
    )


def _show_columns(columns):
    shown = ", ".join(show(column) for column in columns[:5])
    return "[" + shown + (f", ... ({len(columns)} in all)]" if len(columns) > 5 else "]")


class Row:
    """One record's cells, typed by the fields of a table {name: Field, its column the Field's key}."""

    def __init__(self, source, line, cells):
        self.line = line
        self.where = f"{source}, line {line}"
        self.cells = cells

    def typed(self, fields, context=None):
        return typed(fields, self.cells, self.where, context)

    def value(self, field, context=None):
        return field.value(self.cells[field.key], self.where, field.key, context)

    def invalid(self, field, value, expected):
        return invalid(self.where, field, value, expected)

    def check_unique(self, seen, column, value):
        """`value` of `column` not in `seen` ({value: line}) and recorded there."""
        if value in seen:
            raise self.invalid(column, str(value), f"a unique {column}; already on line {seen[value]}")
        seen[value] = self.line

    def empty(self, column):
        return self.cells[column] == ""

    def check_filled(self, column, filled, reason):
        """The cell of `column` filled exactly when `filled` is true, as `reason` says."""
        if self.empty(column) == filled:
            raise self.invalid(column, self.cells[column], f"{'filled' if filled else 'empty'}: {reason}")

    def statistics(self, group):
        """{field: value} of a group of statistics {field: Field}, or None if every cell is empty."""
        columns = [field.key for field in group.values()]
        empty = [self.empty(column) for column in columns]
        if all(empty):
            return None
        if any(empty):
            first = next(column for column, is_empty in zip(columns, empty, strict=True) if is_empty)
            raise self.invalid(first, "", "a number: the other statistics of this group are filled")
        return self.typed(group)
