"""loaders/<name>/_loader_common.py: what every loader carries, one text in every loader folder."""

import collections
import importlib.util
import sys

import pytest

from conftest import EXAMPLE
from conftest import EXAMPLE_COLLECTION
from corpora import registry

COMMON = "_loader_common.py"


def copies():
    """Every loader folder's copy: the collection's, and the example corpus's of the toolkit tests."""
    found = {name: (registry.get(name).loader_dir / COMMON) for name in registry.names()}
    return dict(found, **{f"tests/example_collection: {EXAMPLE}": EXAMPLE_COLLECTION / "loaders" / EXAMPLE / COMMON})


def test_every_loader_folder_has_the_same_copy():
    texts = {name: path.read_bytes() if path.is_file() else None for name, path in copies().items()}
    missing = sorted(name for name, text in texts.items() if text is None)
    assert not missing, f"no {COMMON} in loaders/{{{', '.join(missing)}}}: copy it from another loader folder"
    canonical, _ = collections.Counter(texts.values()).most_common(1)[0]
    differing = sorted(name for name, text in texts.items() if text != canonical)
    assert not differing, (
        f"loaders/{{{', '.join(differing)}}}/{COMMON} differs from the other copies: make every copy the same text"
    )


def test_every_loader_imports_it_relatively():
    # `from ._loader_common import name`: the form datasets 3.x sees and copies beside a script.
    for name in registry.names():
        text = registry.get(name).script.read_text()
        assert "from ._loader_common import " in text, name
        assert "from . import _loader_common" not in text, name


@pytest.fixture(scope="module")
def common():
    path = next(iter(copies().values()))
    spec = importlib.util.spec_from_file_location("loader_common_under_test", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_show_cuts_long_values_and_says_their_length(common):
    assert common.show("short") == "'short'"
    assert common.show("x" * 200) == "'" + "x" * 76 + "... (200 characters)"
    assert common.show(b"y" * 100) == "b'" + "y" * 75 + "... (100 bytes)"
    assert common.show(list(range(50))) == repr(list(range(50)))[:77] + "... (50 items)"
    assert common.show(10**5000) == "<int too large to show>"


@pytest.mark.parametrize("head,message", [
    (b"version https://git-lfs.github.com/spec/v1\noid sha256:00\n",
     "f: is a Git LFS pointer, not the data; fetch the real file (git lfs pull)"),
    (b"\xef\xbb\xbf{}", "f: starts with a UTF-8 byte order mark; the release files have none"),
    (b"\n  <!DOCTYPE HTML>", "f: is an HTML page, not the data (an error page saved in its place?)"),
    (b"<html lang=en>", "f: is an HTML page, not the data (an error page saved in its place?)"),
    (b"<head><title>", "f: is an HTML page, not the data (an error page saved in its place?)"),
    (b"<body>", "f: is an HTML page, not the data (an error page saved in its place?)"),
    (b"<?xml version='1.0' encoding='utf-8'?>\n<question/>", None),  # XML is data
    (b"", None),
])
def test_not_the_data(common, head, message):
    error = common.not_the_data(head, "f")
    assert (str(error) if error else None) == message


@pytest.mark.parametrize("text,message", [
    ('{"a": "\\ud83d"}', "f, line 3: field 'a': invalid value '\\ud83d' (a lone UTF-16 surrogate escape, which is not text)"),
    ('{"a": ["\\udc00 x"]}',
     "f, line 3: field 'a'[0]: invalid value '\\udc00 x' (a lone UTF-16 surrogate escape, which is not text)"),
    ('{"\\ud800": 1}', "f, line 3: field '\\ud800': a key with a lone UTF-16 surrogate escape, which is not text"),
    ('{"a": [1, {"b": 1, "b": [2]}]}', "f, line 3: field 'a'[1]['b']: repeated key in one JSON object (values 1 and [2])"),
    ('[{"b": 1, "b": 2}]', "f, line 3: field [0]['b']: repeated key in one JSON object (values 1 and 2)"),
    ('{"a": ' + "1" * 5000 + "}",
     f"f, line 3: field 'a': invalid value {'1' * 77}... (an integer of 5000 digits; Python reads at most 4300)"),
    ("-" + "2" * 4301, f"f, line 3: invalid value -{'2' * 76}... (an integer of 4301 digits; Python reads at most 4300)"),
    ("[" * 100_000 + "]" * 100_000, "f, line 3: invalid JSON (nested too deeply for Python's JSON reader)"),
    ('{"a": NaN}', "f, line 3: field 'a': invalid value NaN (not a number JSON has)"),
    ('[1, {"b": -Infinity}]', "f, line 3: field [1]['b']: invalid value -Infinity (not a number JSON has)"),
    ('{"a": 1', "f, line 3: invalid JSON (Expecting ',' delimiter: line 1 column 8 (char 7))"),
    ('{"dialogs": [{}, {"x": ["\\udc00"]}]}',
     "f, line 3, dialog 1: field 'x'[0]: invalid value '\\udc00' (a lone UTF-16 surrogate escape, which is not text)"),
])
def test_loads_locates_every_decode_error(common, text, message):
    with pytest.raises(ValueError) as caught:
        common.loads(text, "f, line 3", records=("dialogs", "dialog"))
    assert str(caught.value) == message


def test_loads_keeps_surrogate_pairs_and_escaped_backslashes(common):
    assert common.loads('{"a": "\\ud83d\\ude00", "b": "\\\\ud83d"}', "f") == {"a": "\U0001f600", "b": "\\ud83d"}


def test_utf8_names_line_and_offset(common):
    with pytest.raises(ValueError) as caught:
        common.utf8(b"ok\nab\xe9c\n", "f")
    assert str(caught.value) == "f, line 2: not UTF-8 (byte 0xe9 at offset 2 of the line: invalid continuation byte)"


def test_local_files_lists_every_missing_path_cut_to_five(common, tmp_path):
    paths = [f"d/{i}.json" for i in range(8)]
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "3.json").write_text("{}")
    with pytest.raises(FileNotFoundError) as caught:
        common.local_files(str(tmp_path), None, paths, {})
    assert str(caught.value) == (
        f"7 source file(s) missing in {tmp_path}: d/0.json, d/1.json, d/2.json, d/4.json, d/5.json and 2 more")
    (tmp_path / "one").mkdir()
    with pytest.raises(FileNotFoundError) as caught:
        common.local_files(str(tmp_path / "one"), None, ["a.csv"], {})
    assert str(caught.value) == f"1 source file(s) missing in {tmp_path / 'one'}: a.csv"
