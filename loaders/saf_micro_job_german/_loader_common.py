"""What every loader of this collection carries, in one text: the same file, byte for byte, in
each loader folder (a test keeps the copies identical; edit one, then copy it to the others).

- `local_files`: the source files of a build, from `data_dir` (a copy laid out like the upstream
  repository) or downloaded from the pinned URLs;
- `check_start` / `not_the_data`: a file that is not the data at all (a Git LFS pointer, a file
  re-saved with a byte order mark, an HTML page saved in its place), named before any parsing;
- `show`: a value as errors show it, cut to a readable length;
- `check_fields`: a record that must be a JSON object with exactly the given fields;
- `loads`: strict JSON, whose every failure is a ValueError located like any other bad value:
  `<where>: field <path>: ...`.

Standard library only, and imported with `from ._loader_common import name`: datasets 3.x copies a
module imported that way along with a loading script (it does not see `from . import name`).
"""

import json
import os
import re
import sys

_SHOW_LIMIT = 80
_MISSING_SHOWN = 5

# --- data_dir or download -----------------------------------------------------------------------


def local_files(data_dir, dl_manager, paths, urls):
    """{path: local file} for each source path (relative to the upstream repository root): the
    file at `data_dir/path`, or the pinned URL `urls[path]` downloaded by `dl_manager`. Every
    missing file of `data_dir` is reported in one error, before any work."""
    if not data_dir:
        return dl_manager.download({path: urls[path] for path in paths})
    local = {path: os.path.join(data_dir, path) for path in paths}
    missing = [path for path in local if not os.path.isfile(local[path])]
    if missing:
        shown = ", ".join(missing[:_MISSING_SHOWN])
        if len(missing) > _MISSING_SHOWN:
            shown += f" and {len(missing) - _MISSING_SHOWN} more"
        raise FileNotFoundError(f"{len(missing)} source file(s) missing in {data_dir}: {shown}")
    return local


# --- not the data -------------------------------------------------------------------------------

_LFS_POINTER = b"version https://git-lfs.github.com/spec/"
# No release file of any corpus starts with a byte order mark (all are UTF-8 without one, and the
# checksums of the pinned files say so); one means a copy re-saved by an editor: refused
# everywhere, so a file is either the release file or an error, never silently something else.
_BOM = b"\xef\xbb\xbf"
# An HTML page (a login or error page saved in place of the file). `<?xml` is not among them: it
# starts XML data.
_HTML = (b"<!doctype html", b"<html", b"<head", b"<body")


def not_the_data(head, source):
    """The ValueError for a file whose first bytes `head` show it is not the data, or None."""
    if head.startswith(_LFS_POINTER):
        return ValueError(f"{source}: is a Git LFS pointer, not the data; fetch the real file (git lfs pull)")
    if head.startswith(_BOM):
        return ValueError(f"{source}: starts with a UTF-8 byte order mark; the release files have none")
    if head[:512].lstrip().lower().startswith(_HTML):
        return ValueError(f"{source}: is an HTML page, not the data (an error page saved in its place?)")
    return None


def check_start(head, source):
    """Raise the error of `not_the_data`, if any."""
    error = not_the_data(head, source)
    if error is not None:
        raise error


def utf8(data, source, line=None):
    """`data` decoded as UTF-8, or a ValueError naming the first bad byte, its line (counted in
    `data`, or `line` for data that is one line) and its offset in that line."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        start = data.rfind(b"\n", 0, error.start) + 1
        number = line if line is not None else data.count(b"\n", 0, error.start) + 1
        raise ValueError(
            f"{source}, line {number}: not UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start - start} "
            f"of the line: {error.reason})"
        ) from None


# --- showing a value ----------------------------------------------------------------------------


def show(value):
    """repr(value), cut to a readable length; a cut value says how long it is."""
    try:
        text = repr(value)
    except (RecursionError, ValueError):  # nested too deeply, or an int too long to write
        return f"<{type(value).__name__} too large to show>"
    if len(text) <= _SHOW_LIMIT:
        return text
    if isinstance(value, str):
        size = f"{len(value)} characters"
    elif isinstance(value, bytes):
        size = f"{len(value)} bytes"
    elif isinstance(value, (list, tuple, dict)):
        size = f"{len(value)} items"
    else:
        size = f"{len(text)} characters"
    return f"{text[: _SHOW_LIMIT - 3]}... ({size})"


# --- the fields of a record --------------------------------------------------------------------


def check_fields(record, keys, where):
    """Raise a ValueError unless `record` is a JSON object (a dict) with exactly the fields `keys`;
    the error names the missing and the unknown fields."""
    if not isinstance(record, dict):
        raise ValueError(f"{where}: expected a JSON object, got {type(record).__name__}")
    if sorted(record) != sorted(keys):
        missing = sorted(set(keys) - set(record))
        unknown = sorted(set(record) - set(keys))
        raise ValueError(f"{where}: field(s) missing {missing}, unknown {unknown}")


# --- strict JSON --------------------------------------------------------------------------------

# A UTF-16 surrogate can only come from a \uXXXX escape (UTF-8 text has none): a document without
# such an escape needs no search for lone surrogates.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")
_MAX_DIGITS = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 0


class _Repeated(dict):
    """An object whose key `repeated` appeared twice (values `values`), kept to be located."""


class _Constant(str):
    """NaN, Infinity or -Infinity, which JSON does not have, kept to be located."""


class _LongInteger(str):
    """The digits of an integer too long for int() (Python's int_max_str_digits), shown as such."""

    def __repr__(self):
        return str.__str__(self)


def loads(text, where, records=None):
    """Strict JSON: `text` decoded, or a ValueError that starts with `where`.

    Refused, besides what json refuses: a repeated key in one object (json would keep the last
    value), NaN and Infinity, lone UTF-16 surrogates (no text can hold them: writing them fails
    later, far from the file), integers too long for Python and nesting too deep for it. When the
    value is known its path is named: `<where>: field 'messages'[3]: ...`. With `records` =
    (key, noun), such as ("dialogs", "dialog"), a path into the list `key` of the top-level object
    is located as `<where>, <noun> <index>: field ...`.
    """
    try:
        value = json.loads(text, object_pairs_hook=_unique, parse_constant=_constant)
        if _SURROGATE_ESCAPE.search(text):
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        return value
    except RecursionError:
        raise ValueError(f"{where}: invalid JSON (nested too deeply for Python's JSON reader)") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"{where}: invalid JSON ({error})") from None
    except (ValueError, UnicodeEncodeError) as error:  # repeated key, NaN, long integer, surrogate
        failure = error
    # Decoded again to locate the problem: what the fast path refused, this one marks.
    try:
        marked = json.loads(text, object_pairs_hook=_marking, parse_constant=_Constant, parse_int=_marking_int)
    except RecursionError:
        raise ValueError(f"{where}: invalid JSON (nested too deeply for Python's JSON reader)") from None
    found = _first_problem(marked)
    if found is None:  # not expected: say what json said
        raise ValueError(f"{where}: invalid JSON ({failure})") from None
    path, problem = found
    if records and len(path) >= 2 and path[0] == records[0] and isinstance(path[1], int):
        where, path = f"{where}, {records[1]} {path[1]}", path[2:]
    raise ValueError(f"{where}: {_field(path)}{problem}") from None


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
    """(path, message) of the first problem in document order, or None. Iterative: the document
    may be nested as deeply as json allows."""
    stack = [((), document)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, _Constant):
            return path, f"invalid value {value} (not a number JSON has)"
        if isinstance(value, _LongInteger):
            digits = len(value.lstrip("-"))
            shown = value[: _SHOW_LIMIT - 3]
            return path, f"invalid value {shown}... (an integer of {digits} digits; Python reads at most {_MAX_DIGITS})"
        if isinstance(value, str):
            if _SURROGATE.search(value):
                return path, f"invalid value {show(value)} (a lone UTF-16 surrogate escape, which is not text)"
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


def _field(path):
    """`field 'messages'[3]['text']: ` for a path of keys and indexes; `` for the whole value."""
    if not path:
        return ""
    steps = [repr(path[0]) if isinstance(path[0], str) else f"[{path[0]}]"]
    steps += [f"[{step!r}]" for step in path[1:]]
    return "field " + "".join(steps) + ": "
