"""src/corpora/loader_shared: the code every loader imports from the installed package (no loader
folder holds a copy of it), and its loader_common and strict_json."""

import ast
from pathlib import Path

import pytest

from corpora import loader_shared
from corpora import registry
from corpora.loader_shared import loader_common
from corpora.loader_shared import strict_json
from helpers import EXAMPLE
from helpers import EXAMPLE_COLLECTION

SHARED = sorted(path.stem for path in Path(loader_shared.__file__).parent.glob("*.py") if path.stem != "__init__")


def loader_folders():
    """Every loader folder: the collection's, and the example corpus's of the toolkit tests."""
    found = {name: registry.get(name).loader_dir for name in registry.names()}
    return dict(found, **{f"tests/example_collection: {EXAMPLE}": EXAMPLE_COLLECTION / "loaders" / EXAMPLE})


def test_a_loader_folder_holds_no_copy_of_the_shared_code():
    assert SHARED == ["builder_base", "fields", "loader_common", "strict_json"]
    for name, folder in loader_folders().items():
        assert {path.stem.lstrip("_") for path in folder.glob("*.py")} & set(SHARED) == set(), name


def test_every_loader_imports_the_shared_code_from_the_package_and_its_own_modules_relatively():
    for name, folder in loader_folders().items():
        shared, own = set(), set()
        for module in sorted(folder.glob("*.py")):
            for node in ast.walk(ast.parse(module.read_text())):
                if isinstance(node, ast.ImportFrom) and node.level:
                    own.add(node.module)
                elif isinstance(node, ast.ImportFrom) and node.module.startswith("corpora."):
                    shared.add(node.module)
        # a relative import is of a module beside the loader, the form datasets 3.6 copies with a script
        assert all((folder / f"{module}.py").is_file() for module in own), name
        assert "corpora.loader_shared.builder_base" in shared, name
        assert shared <= {f"corpora.loader_shared.{module}" for module in SHARED}, name


@pytest.fixture(scope="module")
def common():
    return loader_common


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
    (b"", "f: is empty (expected an XML file)"),
])
def test_check_is_data(common, head, message):
    if message is None:
        common.check_is_data(head, "f", "an XML file")
        return
    with pytest.raises(ValueError) as caught:
        common.check_is_data(head, "f", "an XML file")
    assert str(caught.value) == message


@pytest.mark.parametrize("text,message", [
    ('{"a": "\\ud83d"}', "f, line 3: field 'a': invalid value '\\ud83d' (expected text; a lone UTF-16 surrogate escape is not text)"),
    ('{"a": ["\\udc00 x"]}',
     "f, line 3: field 'a'[0]: invalid value '\\udc00 x' (expected text; a lone UTF-16 surrogate escape is not text)"),
    ('{"\\ud800": 1}', "f, line 3: field '\\ud800': a key with a lone UTF-16 surrogate escape, which is not text"),
    ('{"a": [1, {"b": 1, "b": [2]}]}', "f, line 3: field 'a'[1]['b']: repeated key in one JSON object (values 1 and [2])"),
    ('[{"b": 1, "b": 2}]', "f, line 3: field [0]['b']: repeated key in one JSON object (values 1 and 2)"),
    ('{"a": ' + "1" * 5000 + "}",
     f"f, line 3: field 'a': invalid value {'1' * 77}... (expected an integer of at most 4300 digits; this one has 5000)"),
    ("-" + "2" * 4301, f"f, line 3: invalid value -{'2' * 76}... (expected an integer of at most 4300 digits; this one has 4301)"),
    ("[" * 100_000 + "]" * 100_000, "f, line 3: invalid JSON (nested too deeply for Python's JSON reader)"),
    ('{"a": NaN}', "f, line 3: field 'a': invalid value NaN (expected a number JSON has; NaN and Infinity are not JSON)"),
    ('[1, {"b": -Infinity}]', "f, line 3: field [1]['b']: invalid value -Infinity (expected a number JSON has; NaN and Infinity are not JSON)"),
    ('{"a": 1', "f, line 3: invalid JSON (Expecting ',' delimiter: line 1 column 8 (char 7))"),
    ('{"dialogs": [{}, {"x": ["\\udc00"]}]}',
     "f, line 3, dialog 1: field 'x'[0]: invalid value '\\udc00' (expected text; a lone UTF-16 surrogate escape is not text)"),
])
def test_loads_locates_every_decode_error(text, message):
    with pytest.raises(ValueError) as caught:
        strict_json.loads(text, "f, line 3", records=("dialogs", "dialog"))
    assert str(caught.value) == message


def test_loads_keeps_surrogate_pairs_and_escaped_backslashes():
    assert strict_json.loads('{"a": "\\ud83d\\ude00", "b": "\\\\ud83d"}', "f") == {"a": "\U0001f600", "b": "\\ud83d"}


def test_utf8_names_line_and_offset(common):
    with pytest.raises(ValueError) as caught:
        common.utf8(b"ok\nab\xe9c\n", "f")
    assert str(caught.value) == "f, line 2: not UTF-8 (byte 0xe9 at offset 2 of the line: invalid continuation byte)"


def test_the_toolkit_and_the_loaders_cut_a_listing_by_one_rule():
    from corpora import errors

    assert errors.shorten is loader_common.shorten
    assert loader_common.shorten(range(7)) == "0, 1, 2, 3, 4, and 2 more"
    assert loader_common.shorten(range(6)) == "0, 1, 2, 3, 4, 5"


def test_local_files_lists_every_missing_path_cut_to_five(common, tmp_path):
    paths = [f"d/{i}.json" for i in range(8)]
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "3.json").write_text("{}")
    with pytest.raises(FileNotFoundError) as caught:
        common.local_files(str(tmp_path), None, paths, {})
    assert str(caught.value) == (
        f"7 source file(s) missing in {tmp_path}: d/0.json, d/1.json, d/2.json, d/4.json, d/5.json, and 2 more")
    with pytest.raises(FileNotFoundError) as caught:  # one more is shown, not counted (errors.shorten's rule)
        common.local_files(str(tmp_path), None, paths[:7], {})
    assert str(caught.value) == (
        f"6 source file(s) missing in {tmp_path}: d/0.json, d/1.json, d/2.json, d/4.json, d/5.json, d/6.json")
    (tmp_path / "one").mkdir()
    with pytest.raises(FileNotFoundError) as caught:
        common.local_files(str(tmp_path / "one"), None, ["a.csv"], {})
    assert str(caught.value) == f"1 source file(s) missing in {tmp_path / 'one'}: a.csv"


@pytest.mark.parametrize("field,shown", [("label", "'label'"), (("messages", 3, "text"), "'messages'[3]['text']"),
                                         ((0, "b"), "[0]['b']")])
def test_invalid_has_the_one_shape_of_a_bad_value(common, field, shown):
    error = common.invalid("f.csv, record 7", field, "x" * 100, "a number")
    assert str(error) == f"f.csv, record 7: field {shown}: invalid value '{'x' * 76}... (100 characters) (expected a number)"


def test_check_fields_names_missing_and_unknown_fields_in_order():
    with pytest.raises(ValueError) as caught:
        strict_json.check_fields({"b": 1, "z": 2, "a": 3}, ["a", "b", "c"], "f, line 2")
    assert str(caught.value) == "f, line 2: field(s) missing ['c'], unknown ['z']"
    with pytest.raises(ValueError) as caught:
        strict_json.check_fields([1], ["a"], "f, line 2")
    assert str(caught.value) == "f, line 2: expected a JSON object, got list"
