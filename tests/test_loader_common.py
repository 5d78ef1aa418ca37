"""src/corpora/loader_shared: the modules every loader folder carries a generated copy of."""

import os
import shutil
import subprocess
import sys

import pytest

from conftest import EXAMPLE
from conftest import EXAMPLE_COLLECTION
from corpora import loader_shared
from corpora import registry
from corpora.loader_shared import _loader_common
from corpora.loader_shared import _strict_json


def loader_folders():
    """Every loader folder: the collection's, and the example corpus's of the toolkit tests."""
    found = {name: (registry.get(name).loader_dir, registry.get(name).script) for name in registry.names()}
    folder = EXAMPLE_COLLECTION / "loaders" / EXAMPLE
    return dict(found, **{f"tests/example_collection: {EXAMPLE}": (folder, folder / f"{EXAMPLE}.py")})


def test_every_loader_folder_holds_the_shared_modules_it_imports_as_generated():
    stale = {name: loader_shared.stale_copies(*paths) for name, paths in loader_folders().items()}
    assert {name: names for name, names in stale.items() if names} == {}, "run `make cards`"
    for name, (folder, script) in loader_folders().items():
        assert (folder / "_loader_common.py").is_file(), name
        assert (folder / "_strict_json.py").is_file() == ("from ._strict_json import " in script.read_text()), name


def test_card_check_names_a_stale_copy_and_the_generator_writes_it_back(tmp_path):
    collection = tmp_path / "collection"
    shutil.copytree(EXAMPLE_COLLECTION, collection)
    copy = collection / "loaders" / EXAMPLE / "_loader_common.py"
    copy.write_text(copy.read_text() + "# edited by hand\n")
    (collection / "loaders" / EXAMPLE / "_strict_json.py").unlink()
    env = {**os.environ, "CORPORA_ROOT": str(collection)}
    command = [sys.executable, "-m", "corpora.cli", "card"]
    checked = subprocess.run(command + [EXAMPLE, "--check"], env=env, capture_output=True, text=True)
    assert checked.returncode == 1
    assert checked.stderr.splitlines()[0] == (
        f"loaders/{EXAMPLE}/_loader_common.py, loaders/{EXAMPLE}/_strict_json.py: not as generated from "
        f"src/corpora/loader_shared/: run `python -m corpora.loader_shared loaders/{EXAMPLE}`"
    )
    refused = subprocess.run(command + [EXAMPLE], env=env, capture_output=True, text=True)  # writing a card, too
    assert (refused.returncode, refused.stderr.splitlines()[0]) == (1, checked.stderr.splitlines()[0])
    generate = [sys.executable, "-m", "corpora.loader_shared"]
    written = subprocess.run(generate + [f"loaders/{EXAMPLE}"], cwd=collection, capture_output=True, text=True)
    assert written.returncode == 0, written.stderr
    assert written.stdout.splitlines()[:2] == [
        f"wrote loaders/{EXAMPLE}/_loader_common.py", f"wrote loaders/{EXAMPLE}/_strict_json.py"
    ]
    assert subprocess.run(command + [EXAMPLE, "--check"], env=env, capture_output=True).returncode == 0
    unneeded = collection / "loaders" / EXAMPLE / "_strict_json.py"
    script = collection / "loaders" / EXAMPLE / f"{EXAMPLE}.py"
    script.write_text(script.read_text().replace("from ._strict_json import check_fields\n", "")
                      .replace("from ._strict_json import loads\n", "from json import loads\n"))
    assert loader_shared.stale_copies(unneeded.parent, script) == ["_strict_json.py"]
    assert loader_shared.write_copies(unneeded.parent, script) == ["_strict_json.py"]
    assert not unneeded.exists()


def test_every_loader_imports_the_shared_modules_relatively():
    # `from ._loader_common import name`: the form datasets 3.x sees and copies beside a script.
    for name, (_, script) in loader_folders().items():
        text = script.read_text()
        assert "from ._loader_common import " in text, name
        assert "from . import _" not in text, name


@pytest.fixture(scope="module")
def common():
    return _loader_common


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
        _strict_json.loads(text, "f, line 3", records=("dialogs", "dialog"))
    assert str(caught.value) == message


def test_loads_keeps_surrogate_pairs_and_escaped_backslashes():
    assert _strict_json.loads('{"a": "\\ud83d\\ude00", "b": "\\\\ud83d"}', "f") == {"a": "\U0001f600", "b": "\\ud83d"}


def test_utf8_names_line_and_offset(common):
    with pytest.raises(ValueError) as caught:
        common.utf8(b"ok\nab\xe9c\n", "f")
    assert str(caught.value) == "f, line 2: not UTF-8 (byte 0xe9 at offset 2 of the line: invalid continuation byte)"


def test_the_toolkit_and_the_loaders_cut_a_listing_by_one_rule():
    from corpora import errors
    from corpora.loader_shared import _loader_common

    assert errors.shorten is _loader_common.shorten
    assert _loader_common.shorten(range(7)) == "0, 1, 2, 3, 4, and 2 more"
    assert _loader_common.shorten(range(6)) == "0, 1, 2, 3, 4, 5"


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
        _strict_json.check_fields({"b": 1, "z": 2, "a": 3}, ["a", "b", "c"], "f, line 2")
    assert str(caught.value) == "f, line 2: field(s) missing ['c'], unknown ['z']"
    with pytest.raises(ValueError) as caught:
        _strict_json.check_fields([1], ["a"], "f, line 2")
    assert str(caught.value) == "f, line 2: expected a JSON object, got list"
