"""The fields of a record, each declared once, on a `Field`: its feature, the check of its value
(the domain, the raw values that mean "no value", what an error says the value should be) and,
for a loader that checks whole Arrow columns, the same check on a column. A loader's table
{name: Field} gives the builder's features, the keys (or header) a record must have and the checks.
A field of a JSON record, a column of a CSV or Parquet file and an XML element are declared alike,
with the builders below (`string`, `boolean`, `integer`, `number`, `label`, `mapping`,
`matching`): each takes the domain once and derives the feature, the check and the text of the
error from it; `nulls` are the raw values that mean no value, and `key` the record's key (column,
element) where it is not the field's name.

datasets, the standard library and `loader_common` only; a loader imports it as
`from corpora.loader_shared.fields import x`.
"""

import math
import re
from typing import NamedTuple

import datasets

from corpora.loader_shared.loader_common import invalid

INVALID = object()  # what a check returns for a value outside its domain

EMPTY = ("",)  # the raw value of an empty CSV cell, as `nulls`
NULL = (None,)  # JSON null, as `nulls`
INT32 = range(-(2**31), 2**31)
INT64 = range(-(2**63), 2**63)


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
    - `key`: the record's key (or the file's column, or the XML element) it is read from, where
      that is not its name.
    """

    feature: object
    check: object = None
    expected: object = None
    nulls: tuple = ()
    parse: object = None
    column: object = None
    key: str | None = None

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


def typed(fields, record, where, context=None, at=()):
    """{name: typed value} of `record`, checked field by field in the table's order: the first bad
    value stops it with its error. `at`: the record's path below `where` (an item of a list inside
    a record, such as ('EVIDENCE', 0)), which the errors name before the key."""
    return reader(fields)(record, where, context, at)


def reader(fields):
    """`typed` for one table, made once: `read(record, where, context=None, at=())`. For the
    records a loader reads by the million (a message, a fact): each value read by its field's
    `plain` check, or its `value`; the path of a value is made only for an error or a parse."""
    plan = [(name, field.source(name), field.plain(), field.value) for name, field in fields.items()]

    def read(record, where, context=None, at=()):
        values = {}
        for name, key, check, value_of in plan:
            raw = record[key]
            if check is None:
                values[name] = value_of(raw, where, (*at, key) if at else key, context)
                continue
            value = check(raw)
            if value is INVALID:
                value_of(raw, where, (*at, key) if at else key)  # raises its error
            values[name] = value
        return values

    return read


# --- the builders: a field from its domain ----------------------------------------------------
# Each derives what its errors say from the domain; `nulls` add " or empty" (""), " or null"
# (None) or " or 'X'" to it.


def string(*, nonempty=False, blank=True, nulls=(), key=None):
    """A string, kept as it is; `nonempty`: not ""; `blank=False`: not only whitespace either."""
    check = _string if blank and not nonempty else _text if blank else _not_blank
    expected = "a non-empty string" if nonempty or not blank else "a string"
    return _field(datasets.Value("string"), check, expected, nulls, key)


def boolean(*, nulls=(), key=None):
    """A JSON true or false (not 0, 1 or "true")."""
    return _field(datasets.Value("bool"), _boolean, "true or false", nulls, key)


def integer(domain, *, text=False, nulls=(), key=None):
    """An int in `domain` (a range, or a tuple of the values), int32 if the domain fits, else
    int64: a JSON integer (a bool is none); with `text=True` also its decimal text as Python writes
    it ("12", "-3"; not " 3", "+3", "03", "-0", "1_000"), as a CSV cell has it; with `text="only"`
    that text only (an id a JSON file writes as a string)."""
    if isinstance(domain, range):
        expected = _integers(domain)
        if text == "only":
            expected = (
                f"a string of decimal digits without leading zeros, below {_power(domain.stop)}"
                if domain.start == 0 else f"the decimal text of {expected}"
            )
    else:
        expected = choices([str(n) for n in domain] if text == "only" else domain)
    fits = domain[0] >= INT32.start and domain[-1] < INT32.stop
    return _field(datasets.Value("int32" if fits else "int64"), _integer(domain, text), expected, nulls, key)


def number(low=None, high=None, *, text=False, dtype="float64", nulls=(), key=None):
    """A finite number from `low` to `high` (either bound may be None), as a float: a JSON number
    or a Parquet double (a bool is none); with `text`, its decimal text ("0.75", "-3", "12.5"; not
    "1e3", ".5", "05", "nan"; a minus sign only if `low` is below 0 or None)."""
    def within(number):
        in_range = (low is None or number >= low) and (high is None or number <= high)
        return number if in_range and math.isfinite(number) else INVALID

    if text:
        signed = low is None or low < 0  # else a minus sign is refused, as in "-0"

        def check(value):
            if isinstance(value, str) and _DECIMAL.fullmatch(value) and (signed or value[0] != "-"):
                return within(float(value))
            return INVALID
    else:
        def check(value):
            if type(value) is float:
                return within(value)
            if type(value) is int:
                try:
                    return within(float(value))
                except OverflowError:  # too large for a float
                    return INVALID
            return INVALID
    if low is not None and high is not None:
        bounds = f" from {low:g} to {high:g}"
    else:
        bounds = f" >= {low:g}" if low is not None else f" <= {high:g}" if high is not None else ""
    expected = f"a {'decimal ' if text else ''}number{bounds}"
    return _field(datasets.Value(dtype), check, expected, nulls, key)


def label(names, *, feature=None, nulls=(), key=None, index=False):
    """One of the strings `names` (not a number or a bool that compares equal to one), a class
    label of these names unless `feature` says otherwise; with `index`, read as its position in
    `names`, the class label as stored (for tables pyarrow builds, which encodes no names)."""
    feature = datasets.ClassLabel(names=list(names)) if feature is None else feature
    return _field(feature, _position_in(names) if index else _one_of(names), choices(names), nulls, key)


def mapping(values, feature, *, nulls=(), key=None):
    """One of the strings `values` names ({text: typed value}), typed as it says: a CSV cell such
    as 'True' -> True, '0.5' -> 0.5."""
    get = values.get
    return _field(feature, lambda value: get(value, INVALID) if isinstance(value, str) else INVALID,
                  choices(values), nulls, key)


def matching(pattern, expected, *, nulls=(), key=None):
    """A string that the compiled regular expression `pattern` matches whole, kept as it is;
    `expected` says in words what the pattern matches."""
    def check(value):
        return value if isinstance(value, str) and pattern.fullmatch(value) else INVALID

    return _field(datasets.Value("string"), check, expected, nulls, key)


def checked(feature, check, expected, *, nulls=(), key=None):
    """A field of a domain no builder above has: `check` (raw -> typed value, or INVALID) and what
    its error says the value should be."""
    return _field(feature, check, expected, nulls, key)


def choices(names):
    """How an error names the values of a finite domain: 'a' or 'b' or 'c' (0 or 2 or 3)."""
    return " or ".join(repr(name) for name in names)


def _field(feature, check, expected, nulls, key):
    shown = ["empty" if null == "" else "null" if null is None else repr(null) for null in nulls]
    return Field(feature, check, " or ".join([expected, *shown]), tuple(nulls), key=key)


def _integers(domain):
    """What an error says an int of the range `domain` should be."""
    if domain == INT32 or domain == INT64:
        return f"an int{32 if domain == INT32 else 64} integer"
    if domain.start == 0 and domain.step == 1 and domain.stop in _POWERS:
        return f"a non-negative integer below {_POWERS[domain.stop]}"
    return f"an integer from {domain[0]} to {domain[-1]}"


def _power(number):
    return _POWERS.get(number, str(number))


_POWERS = {2**31: "2**31", 2**63: "2**63"}
_DECIMAL = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?")


# --- the checks: raw value -> typed value, or INVALID -------------------------------------------


def _string(value):
    return value if isinstance(value, str) else INVALID


def _text(value):
    return value if isinstance(value, str) and value else INVALID


def _not_blank(value):
    return value if isinstance(value, str) and value.strip() else INVALID


def _boolean(value):
    return value if value is True or value is False else INVALID


def _integer(domain, text=False):
    if not text:
        return lambda value: value if type(value) is int and value in domain else INVALID

    def check(value):
        if type(value) is int and text is True:
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


def _one_of(names):
    return lambda value: value if isinstance(value, str) and value in names else INVALID


def _position_in(names):
    position = {name: number for number, name in enumerate(names)}.get
    return lambda value: position(value, INVALID) if isinstance(value, str) else INVALID
