"""What every loader of this collection uses: the source files of a build, the checks that a file
is data at all, UTF-8 decoding, and the one shape of an error about a value.

Standard library only (the toolkit imports it too, before it imports datasets). A loader imports
it as `from corpora.loader_shared.loader_common import name`.
"""

import os

_SHOW_LIMIT = 80


def shorten(items, keep=5, sep=", "):
    """The first `keep` items, then "and N more": an error line stays readable with 181 paths (and
    one more is shown rather than counted). The one cutting rule of a listing in an error line."""
    items = [str(item) for item in items]
    if len(items) <= keep + 1:
        return sep.join(items)
    return sep.join(items[:keep]) + f"{sep}and {len(items) - keep} more"


def local_files(data_dir, dl_manager, paths, urls):
    """{path: local file} for each source path (relative to the upstream repository root): the
    file at `data_dir/path`, or the pinned URL `urls[path]` downloaded by `dl_manager`. Every
    missing file of `data_dir` is reported in one error, before any work."""
    if not data_dir:
        return dl_manager.download({path: urls[path] for path in paths})
    missing = missing_files(data_dir, paths)
    if missing:
        raise FileNotFoundError(f"{len(missing)} source file(s) missing in {data_dir}: {shorten(missing)}")
    return {path: os.path.join(data_dir, path) for path in paths}


def missing_files(data_dir, paths):
    """The source paths with no file under `data_dir`: the one check, for the loaders and the toolkit."""
    return [path for path in paths if not os.path.isfile(os.path.join(data_dir, path))]


# The start of a Git LFS pointer (a clone without `git lfs pull`), where the data should be.
LFS_POINTER = b"version https://git-lfs.github.com/spec/"
# No release file starts with a byte order mark (the recorded checksums say so): one means a copy
# re-saved by an editor, refused so that a file is either the release file or an error.
_BOM = b"\xef\xbb\xbf"
# An HTML page (a login or error page saved in place of the file). Not `<?xml`: that starts XML data.
HTML_STARTS = (b"<!doctype html", b"<html", b"<head", b"<body")


def is_html(head):
    """Whether the first bytes `head` of a file are an HTML page's."""
    return head[:512].lstrip().lower().startswith(HTML_STARTS)


def check_is_data(head, source, expected):
    """Raise a ValueError if the first bytes `head` of `source` show it is not the data: empty
    (`expected` says what should be there), a Git LFS pointer, a byte order mark or an HTML page."""
    if not head:
        raise ValueError(f"{source}: is empty (expected {expected})")
    if head.startswith(LFS_POINTER):
        raise ValueError(f"{source}: is a Git LFS pointer, not the data; fetch the real file (git lfs pull)")
    if head.startswith(_BOM):
        raise ValueError(f"{source}: starts with a UTF-8 byte order mark; the release files have none")
    if is_html(head):
        raise ValueError(f"{source}: is an HTML page, not the data (an error page saved in its place?)")


def no_records(source, records):
    """The ValueError of a file with none of its records (`records`, such as "records after the
    header"): every release file has some, and datasets cannot load an empty split."""
    return ValueError(f"{source}: has no {records}")


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


def field_path(field):
    """A field as errors name it: `'label'` for a name, `'messages'[3]['text']` for a path of keys
    and indexes (a tuple)."""
    if not isinstance(field, tuple):
        return repr(field)
    steps = [repr(field[0]) if isinstance(field[0], str) else f"[{field[0]}]"]
    return "".join(steps + [f"[{step!r}]" for step in field[1:]])


def invalid(where, field, value, expected):
    """The ValueError of one bad value, in the shape of every such error of the collection:
    `<file>, <record>: field <field>: invalid value <value> (expected <expected>)`, where `where`
    is `<file>, <record>` (such as "train.jsonl, line 4") and `field` a name or a path."""
    return ValueError(f"{where}: field {field_path(field)}: invalid value {show(value)} (expected {expected})")

