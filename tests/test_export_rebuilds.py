"""A build never removes what it did not make: a folder at OUT/NAME that is not an export, the
users' files inside an export, the configs a build of some configs leaves; and the mark says what
the build made. Builds of the example corpus's dummy data in this process (tests/example_collection)."""

import json
import shutil

import pytest

from corpora import export_folder
from corpora import exports
from corpora import prepare
from corpora import registry
from helpers import EXAMPLE
from helpers import rename_config
from helpers.exports import DUMMY_COUNTS
from helpers.exports import build_here
from helpers.exports import check_export
from helpers.exports import files_of
from helpers.exports import only_the_export

NAME = EXAMPLE
pytestmark = pytest.mark.usefixtures("example_collection")
RATINGS_COUNTS = {"ratings": DUMMY_COUNTS["ratings"]}


@pytest.mark.parametrize("kind", ["folder", "file", "symlink", "other corpus"])
def test_a_folder_at_out_name_that_is_not_an_export_is_refused_before_any_work(tmp_path, kind):
    out = tmp_path / "out"
    out.mkdir()
    target = out / NAME
    if kind == "folder":  # the user's notes, or a clone of the upstream files
        target.mkdir()
        (target / "notes.txt").write_text("mine")
    elif kind == "file":
        target.write_text("mine")
    elif kind == "symlink":
        (tmp_path / "elsewhere").mkdir()
        target.symlink_to(tmp_path / "elsewhere")
    else:  # an export of another corpus, renamed
        export_folder.export(prepare.Request(registry.get(NAME), dummy=True), tmp_path / "other")
        mark = json.loads((tmp_path / "other" / NAME / exports.MARK).read_text())
        shutil.copytree(tmp_path / "other" / NAME, target)
        (target / exports.MARK).write_text(json.dumps(dict(mark, corpus="another_corpus")))
    before = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*"))
    result = build_here(out)
    assert (result.returncode, result.stdout) == (1, "")
    if kind == "symlink":
        assert result.stderr == (
            f"corpora build: error: {target} is a symbolic link (to {tmp_path / 'elsewhere'}), which a build would "
            "replace, and is left as it is: pass the folder that holds the export it points to as --out, or move the "
            "link away\n"
        )
    else:
        assert result.stderr == (
            f"corpora build: error: {target} is not an export of corpora (no {exports.MARK} of {NAME} in it) and is left "
            "as it is: move it away, or choose another --out\n"
        )
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == before


def test_files_of_the_users_inside_an_export_stop_its_rebuild(tmp_path):
    out = tmp_path / "out"
    export_folder.export(prepare.Request(registry.get(NAME), dummy=True), out)
    (out / NAME / "my_notes.txt").write_text("mine")
    (out / NAME / "ratings" / "mine.parquet").write_bytes(b"mine")
    before = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*"))
    result = build_here(out)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        f"corpora build: error: {out / NAME} holds file(s) this tool did not write, which the build would delete "
        "with the export it replaces: my_notes.txt, ratings/mine.parquet; move them out of it first, or choose "
        "another --out\n"
    )
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == before
    (out / NAME / "my_notes.txt").unlink()
    (out / NAME / "ratings" / "mine.parquet").unlink()
    assert build_here(out).returncode == 0  # the export alone is replaced as before


def test_a_folder_named_like_a_workspace_that_holds_files_of_the_users_stays(tmp_path):
    out = tmp_path / "out"
    mine = out / f".{NAME}.partial-99999-deadbeef"
    mine.mkdir(parents=True)
    (mine / "important.txt").write_text("mine")
    left = out / f".{NAME}.partial-99998-0123abcd"  # what a killed build leaves: removed
    (left / "cache").mkdir(parents=True)
    assert build_here(out).returncode == 0
    assert (mine / "important.txt").read_text() == "mine"
    assert sorted(p.name for p in out.glob(f".{NAME}.partial-*")) == [mine.name]


def test_a_build_of_some_configs_never_drops_the_others(tmp_path):
    out = tmp_path / "out"
    export_folder.export(prepare.Request(registry.get(NAME), dummy=True), out)
    before = files_of(out / NAME)
    result = build_here(out, "--config", "ratings")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        f"corpora build: error: {out / NAME} holds config(s) sentences, raters that this build of ratings would "
        "drop: build them together (--config ratings --config sentences --config raters, or no --config for every "
        "config), replace the export with this config only (--drop-other-configs), or choose another --out\n"
    )
    assert files_of(out / NAME) == before
    # A build of more configs than the export holds replaces it.
    export_folder.export(prepare.Request(registry.get(NAME), configs=["ratings"], dummy=True), tmp_path / "small")
    result = build_here(tmp_path / "small")
    assert (result.returncode, result.stderr) == (0, "")
    assert check_export(tmp_path / "small" / NAME, tmp_path / "cache") == DUMMY_COUNTS


def test_an_export_of_a_config_the_loader_renamed_is_replaced_with_drop_other_configs(tmp_path):
    out = tmp_path / "out"
    export_folder.export(prepare.Request(registry.get(NAME), dummy=True), out)
    rename_config(out / NAME, "ratings", "ratings_v0")  # built by an older loader
    before = files_of(out / NAME)
    refused = (f"corpora build: error: {out / NAME} holds config(s) ratings_v0 that {NAME} no longer has (renamed or "
               "removed), so no build can make them again: to replace the export without them, build with {}"
               "--drop-other-configs, or choose another --out\n")
    result = build_here(out)
    assert (result.returncode, result.stdout, result.stderr) == (1, "", refused.format(""))
    # A build of some configs names the others the loader still has, to keep them.
    result = build_here(out, "--config", "sentences")
    assert (result.returncode, result.stderr) == (1, refused.format("--config sentences --config raters "))
    assert files_of(out / NAME) == before
    # The advice, as given, works: the export is replaced, without ratings_v0.
    result = build_here(out, "--config", "sentences", "--config", "raters", "--drop-other-configs")
    assert (result.returncode, result.stderr) == (0, "")
    assert check_export(out / NAME, tmp_path / "cache") == {config: DUMMY_COUNTS[config] for config in ("sentences", "raters")}
    assert exports.read_mark(out / NAME).configs == ("sentences", "raters")
    only_the_export(out)


def test_drop_other_configs_replaces_an_export_of_more_configs(tmp_path):
    out = tmp_path / "out"
    export_folder.export(prepare.Request(registry.get(NAME), dummy=True), out)
    result = build_here(out, "--config", "ratings", "--drop-other-configs")
    assert (result.returncode, result.stderr) == (0, "")
    assert check_export(out / NAME, tmp_path / "cache") == RATINGS_COUNTS


def test_the_mark_says_what_the_build_made(tmp_path):
    from corpora import __version__

    out = tmp_path / "out"
    export_folder.export(prepare.Request(registry.get(NAME), dummy=True), out)
    written = tuple(sorted(p.relative_to(out / NAME).as_posix() for p in (out / NAME).rglob("*.parquet")))
    assert exports.read_mark(out / NAME) == exports.Mark(
        corpus=NAME, configs=("sentences", "ratings", "raters"), sources="dummy", differing=(),
        files=("README.md", "croissant.json", *written), version=__version__)
    assert len(written) == 7
    path = out / NAME / exports.MARK
    mark = json.loads(path.read_text())
    path.write_text(json.dumps({key: value for key, value in mark.items() if key != "files"}))
    assert exports.read_mark(out / NAME).files is None  # corpora 0.1.0's first marks list no files
    # Not a mark of this tool: none at all, another tool's, or a field of the wrong type.
    for wrong in (None, dict(mark, tool="other"), dict(mark, corpus=1), dict(mark, configs="ratings"),
                  dict(mark, files=[1]), [mark]):
        if wrong is None:
            path.unlink()
        else:
            path.write_text(json.dumps(wrong))
        assert exports.read_mark(out / NAME) is None, wrong


def test_the_same_config_twice_is_built_once(tmp_path):
    result = build_here(tmp_path / "out", "--config", "ratings", "--config", "ratings")
    assert (result.returncode, result.stderr) == (0, "")
    assert check_export(tmp_path / "out" / NAME, tmp_path / "cache") == RATINGS_COUNTS
    assert exports.read_mark(tmp_path / "out" / NAME).configs == ("ratings",)


def test_compare_to_reports_the_configs_a_build_would_not_have(tmp_path):
    export_folder.export(prepare.Request(registry.get(NAME), dummy=True), tmp_path / "old")
    result = build_here(tmp_path / "new", "--config", "ratings", "--compare-to", str(tmp_path / "old"))
    assert (result.returncode, result.stderr) == (0, "")
    lines = result.stdout.splitlines()
    assert lines[2:5] == ["config raters: removed: train (3 rows)",
                          "config sentences: removed: train (4 rows), validation (2 rows), test (2 rows)",
                          "config ratings (rows matched by sentence_id, rater):"]


