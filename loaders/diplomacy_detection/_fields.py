# Generated from src/corpora/loader_shared/_fields.py by `make shared-modules`; edit that file, not this copy.
"""The fields of a record, each declared once, on a `Field`: its feature, the check of its value
(the domain, the raw values that mean "no value", what an error says the value should be) and,
for a loader that checks whole Arrow columns, the same check on a column. A loader's table
{name: Field} gives the builder's features, the keys (or header) a record must have and the checks;
a field of a JSON record and a column of a CSV file are declared alike, with the same checks
(`string`, `boolean`, `integer`, `one_of`, `matching` below).

Standard library and `_loader_common` only (a feature is whatever the loader passes); a loader
imports it as `from ._fields import x`.
"""

from typing import NamedTuple

from ._loader_common import invalid

INVALID = object()  # what a check returns for a value outside its domain


class Field(NamedTuple):
    """One field of a record.

    - `feature`: the datasets feature of its typed value (a field with neither `check` nor
      `parse` is only declared: its value is made, or checked, by the loader's own code);
    - `check`: raw value -> typed value, or INVALID (then the error says it is not `expected`);
    - `expected`: what the error of an invalid value says it should be;
    - `nulls`: the raw values that mean no value (None in the row), such as "" for a CSV cell;
    - `parse`: instead of `check`, for a value checked part by part or against other values:
      `parse(raw, where, path, context)` -> typed value, raising its own errors;
    - `column`: the check of a whole Arrow column, for a loader that checks no row in Python:
      `column(values, context)` -> booleans, true where a value is not `expected`; a field with
      several gives a tuple of them and a tuple of `expected`, checked in that order;
    - `key`: the record's key (or the file's column) it is read from, where that is not its name;
    - `filled_when`: the record's boolean field that decides it: filled exactly when that is True.
    """

    feature: object
    check: object = None
    expected: object = None
    nulls: tuple = ()
    parse: object = None
    column: object = None
    key: str | None = None
    filled_when: str | None = None

    def value(self, raw, where, path, context=None):
        """The typed value of `raw`, or the ValueError naming `where`, `path`, `raw` and what it
        should be. The one reading of a value: `values` and `reader` call it too."""
        if self.nulls and raw in self.nulls:
            return None
        if self.parse is not None:
            return self.parse(raw, where, path, context)
        typed = self.check(raw)
        if typed is INVALID:
            raise invalid(where, path, raw, self.expected)
        return typed

    def plain(self):
        """`value` without its error, where the field has no parse: raw -> typed value (None for
        a null), or INVALID. Loops over many values call it, and `value` only for a value it
        refuses, to raise the error: one call per value, as a hand-written reader. None for a
        field with a parse."""
        if self.parse is not None:
            return None
        if not self.nulls:
            return self.check
        nulls, check = self.nulls, self.check
        return lambda raw: None if raw in nulls else check(raw)

    def values(self, raws, where, path):
        """The typed values of the list `raws` (a value per item, such as a message's), or the
        error of the first bad one, at `path`[its position]. The path is made only for an error:
        this runs once per item of long lists."""
        check = self.plain()
        if check is None:
            return [self.value(raw, where, (path, position)) for position, raw in enumerate(raws)]
        typed = [check(raw) for raw in raws]
        if INVALID in typed:
            position = typed.index(INVALID)
            self.value(raws[position], where, (path, position))  # raises its error
        return typed

    def source(self, name):
        """The record's key (or the file's column) the field named `name` is read from."""
        return name if self.key is None else self.key

    def column_checks(self):
        """[(column check, expected)] in the order they are checked."""
        if self.column is None:
            return []
        if isinstance(self.column, tuple):
            return list(zip(self.column, self.expected, strict=True))
        return [(self.column, self.expected)]


def features(fields):
    """{name: feature} of a table of fields, in its order."""
    return {name: field.feature for name, field in fields.items()}


def keys(fields):
    """The keys (or columns) a record of a table of fields is read from, in its order."""
    return [field.source(name) for name, field in fields.items()]


def typed(fields, record, where, context=None):
    """{name: typed value} of `record`, checked field by field in the table's order: the first bad
    value stops it with its error."""
    return reader(fields)(record, where, context)


def reader(fields):
    """`typed` for one table, made once: `read(record, where, context=None)`. For the records a
    loader reads by the million (a message, a fact): each value read by its field's `plain`
    check, or its `value`."""
    plan = [(name, field.source(name), field.plain(), field.value) for name, field in fields.items()]

    def read(record, where, context=None):
        values = {}
        for name, key, check, value_of in plan:
            raw = record[key]
            if check is None:
                values[name] = value_of(raw, where, key, context)
                continue
            value = check(raw)
            if value is INVALID:
                value_of(raw, where, key)  # raises its error
            values[name] = value
        return values

    return read


# --- the checks more than one loader uses: raw value -> typed value, or INVALID -------------


def string(value):
    return value if isinstance(value, str) else INVALID


def boolean(value):
    return value if value is True or value is False else INVALID


def integer(domain, text=False):
    """An int in `domain` (a range or a tuple): a JSON integer (a bool is none) or, with `text`,
    also its decimal text as Python writes it ("12", "-3"; not " 3", "+3", "03", "-0", "1_000")."""
    if not text:
        return lambda value: value if type(value) is int and value in domain else INVALID

    def check(value):
        if type(value) is int:
            number = value
        elif isinstance(value, str):
            try:
                number = int(value)
            except ValueError:  # not an integer, or more digits than int() reads
                return INVALID
            if str(number) != value:
                return INVALID
        else:
            return INVALID
        return number if number in domain else INVALID

    return check


def one_of(names):
    """A string equal to one of the strings `names` (a class label's names): not a number or a
    bool that compares equal to one."""
    return lambda value: value if isinstance(value, str) and value in names else INVALID


def choices(names):
    """How an error names the values of `one_of(names)`: 'a' or 'b' or 'c'."""
    return " or ".join(repr(name) for name in names)


def matching(pattern):
    """A string that the compiled regular expression `pattern` matches whole."""
    return lambda value: value if isinstance(value, str) and pattern.fullmatch(value) else INVALID
