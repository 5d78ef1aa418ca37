"""Strict JSON for the loaders that read JSON: every failure is a ValueError located like any
other bad value of the collection (`<file>, <record>: field <path>: ...`).

Standard library and `loader_common` only; a loader imports it as
`from corpora.loader_shared.strict_json import x`.
"""

import json
import re
import sys

from corpora.loader_shared.loader_common import field_path
from corpora.loader_shared.loader_common import invalid
from corpora.loader_shared.loader_common import show

# A UTF-16 surrogate can only come from a \uXXXX escape (UTF-8 text has none): a document without
# such an escape needs no search for lone surrogates.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")
_MAX_DIGITS = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 0
_TOO_DEEP = "invalid JSON (nested too deeply for Python's JSON reader)"


class _Repeated(dict):
    """An object whose key `repeated` appeared twice (values `values`), kept to be located."""


class _Shown(str):
    """A value json cannot give as it was written (NaN, Infinity, an integer too long for int()),
    kept as its text to be located and shown as written."""

    def __repr__(self):
        return str.__str__(self)


class _Constant(_Shown):
    pass


class _LongInteger(_Shown):
    def __repr__(self):  # cut here: show() would say "(N characters)", the message says its digits
        return str.__str__(self)[:77] + "..."


def check_fields(record, keys, where):
    """Raise a ValueError unless `record` is a JSON object with exactly the fields `keys`; the
    error names the missing and the unknown fields."""
    if not isinstance(record, dict):
        raise ValueError(f"{where}: expected a JSON object, got {type(record).__name__}")
    if len(record) != len(keys) or any(key not in record for key in keys):
        missing = [key for key in keys if key not in record]
        unknown = [key for key in record if key not in keys]
        raise ValueError(f"{where}: field(s) missing {missing}, unknown {unknown}")


def loads(text, where, records=None, field=None):
    """`text` decoded, or a ValueError that starts with `where`.

    Refused, besides what json refuses: a repeated key in one object (json would keep the last
    value), NaN and Infinity, lone UTF-16 surrogates (no text can hold them: writing them fails
    later, far from the file), integers too long for Python and nesting too deep for it. With
    `records` = (key, noun), such as ("dialogs", "dialog"), a path into the list `key` of the
    top-level object is located as `<where>, <noun> <index>: field ...`. With `field` (the JSON
    is the value of that field, such as a CSV cell), every problem is located below it, and a
    text that is not JSON at all is shown.
    """
    prefix = () if field is None else (field,)
    shown = "" if field is None else f": {show(text)}"
    within = where if field is None else f"{where}: field {field_path(field)}"
    try:
        value = json.loads(text, object_pairs_hook=_unique, parse_constant=_constant)
        if _SURROGATE_ESCAPE.search(text):
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        return value
    except RecursionError:
        raise ValueError(f"{within}: {_TOO_DEEP}{shown}") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"{within}: invalid JSON ({error}){shown}") from None
    except (ValueError, UnicodeEncodeError) as error:  # repeated key, NaN, long integer, surrogate
        failure = error
    # Decoded again to locate the problem: what the fast path refused, this one marks.
    try:
        marked = json.loads(text, object_pairs_hook=_marking, parse_constant=_Constant, parse_int=_marking_int)
    except RecursionError:
        raise ValueError(f"{within}: {_TOO_DEEP}{shown}") from None
    found = _first_problem(marked)
    if found is None:  # not expected: say what json said
        raise ValueError(f"{within}: invalid JSON ({failure})") from None
    path, problem = found
    if records and len(path) >= 2 and path[0] == records[0] and isinstance(path[1], int):
        where, path = f"{where}, {records[1]} {path[1]}", path[2:]
    path = prefix + path
    if isinstance(problem, tuple) and path:  # (value, expected)
        raise invalid(where, path, *problem) from None
    if isinstance(problem, tuple):
        raise ValueError(f"{where}: invalid value {show(problem[0])} (expected {problem[1]})") from None
    raise ValueError(f"{where}: {'field ' + field_path(path) + ': ' if path else ''}{problem}") from None


def _constant(name):
    raise ValueError(f"{name} is not valid JSON")


def _unique(pairs):
    record = dict(pairs)
    if len(record) != len(pairs):
        raise ValueError("repeated key")
    return record


def _marking(pairs):
    record = dict(pairs)
    if len(record) == len(pairs):
        return record
    marked = _Repeated(record)
    seen = {}
    for key, value in pairs:
        if key in seen:
            marked.repeated, marked.values = key, (seen[key], value)
            break
        seen[key] = value
    return marked


def _marking_int(digits):
    try:
        return int(digits)
    except ValueError:
        return _LongInteger(digits)


def _first_problem(document):
    """(path, problem) of the first problem in document order, or None: a problem is (value,
    expected) for a bad value, else a message. Iterative: the document may be nested as deeply as
    json allows."""
    stack = [((), document)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, _Constant):
            return path, (value, "a number JSON has; NaN and Infinity are not JSON")
        if isinstance(value, _LongInteger):
            digits = len(value.lstrip("-"))
            return path, (value, f"an integer of at most {_MAX_DIGITS} digits; this one has {digits}")
        if isinstance(value, str):
            if _SURROGATE.search(value):
                return path, (value, "text; a lone UTF-16 surrogate escape is not text")
        elif isinstance(value, dict):
            if isinstance(value, _Repeated):
                first, second = (show(v) for v in value.values)
                return path + (value.repeated,), f"repeated key in one JSON object (values {first} and {second})"
            children = []
            for key, item in value.items():
                if _SURROGATE.search(key):
                    return path + (key,), "a key with a lone UTF-16 surrogate escape, which is not text"
                children.append((path + (key,), item))
            stack.extend(reversed(children))
        elif isinstance(value, list):
            stack.extend(reversed([(path + (index,), item) for index, item in enumerate(value)]))
    return None
