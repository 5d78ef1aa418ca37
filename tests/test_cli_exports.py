"""`corpora build` and `corpora validate PATH` on the export folder: its card describes what was
built (some configs, modified sources), and validate names what is wrong in a folder on disk, on
the example corpus (tests/example_collection)."""

import json
import shutil

import pytest

from helpers import EXAMPLE
from helpers import EXAMPLE_URL
from helpers import corpora_here
from helpers import cut_last_line
from helpers import rename_config

pytestmark = pytest.mark.usefixtures("example_collection")

NAME = EXAMPLE
URL = EXAMPLE_URL


# --- an export's card is its own -----------------------------------------------------------------


def exported_card(folder):
    import yaml

    text = (folder / "README.md").read_text()
    header = yaml.safe_load(text.split("---\n")[1])
    return text, header


def test_the_card_of_a_build_of_some_configs_describes_those_only(capsys, tmp_path):
    assert corpora_here("build", NAME, "--dummy", "--config", "ratings", "--out", str(tmp_path))[0] == 0
    text, header = exported_card(tmp_path / NAME)
    assert [c["config_name"] for c in header["configs"]] == ["ratings"]
    info = header["dataset_info"]
    assert (info["config_name"], [s["num_examples"] for s in info["splits"]]) == ("ratings", [10, 5, 6])
    assert header["size_categories"] == ["n<1K"]
    assert "`sentences`" not in text and "`raters`" not in text  # neither their rows, fields nor splits
    assert 'load_dataset("' + str(tmp_path / NAME) not in text  # the card says how to load it where it is read
    assert 'ds = load_dataset("path/to/example_ratings", "ratings")' in text
    assert "loaders/example_ratings\"" not in text and 'load_dataset("loaders/' not in text
    croissant = json.loads((tmp_path / NAME / "croissant.json").read_text())
    assert sorted({d["@id"].split("/")[0] for d in croissant["distribution"] if d["@type"] == "cr:FileObject"}) == [
        "ratings"]


def test_a_build_from_modified_sources_says_so_at_the_top_of_its_card_and_in_croissant(capsys, tmp_path, example_release):
    cut_last_line(example_release / "data" / "test.jsonl")
    argv = ["build", NAME, "--data-dir", str(example_release), "--allow-modified-sources", "--out", str(tmp_path)]
    assert corpora_here(*argv)[0] == 0
    text, _ = exported_card(tmp_path / NAME)
    notice = (f"This export was built from 1 source file(s) that differ from the recorded release: {URL}data/test.jsonl "
              "(443 bytes, recorded 589). Its rows, sizes and statistics are those of these files.")
    body = text.split("---\n", 2)[2]
    title, quote = body.split("\n\n")[1:3]
    assert title == "# Example Ratings"
    held = ("Examples per split of this build, `sentences`: train 12, validation 3, test 3; in more than one split: "
            "none; `ratings`: train 30, validation 7, test 8; in more than one split: none; `raters`: train 5.")
    assert " ".join(line.removeprefix("> ") for line in quote.splitlines()) == f"**Not the release.** {notice} {held}"
    croissant = json.loads((tmp_path / NAME / "croissant.json").read_text())
    assert croissant["description"].startswith(notice + " ")


# --- corpora validate PATH: an export folder on disk ---------------------------------------------


def test_validate_an_export_folder_on_disk(capsys, tmp_path):
    assert corpora_here("build", NAME, "--dummy", "--out", str(tmp_path))[0] == 0
    folder = tmp_path / NAME
    checks = ["mark", "card", "files", "croissant.json", "parquet files", "reload sentences", "reload ratings",
              "reload raters"]
    assert corpora_here("validate", str(folder)) == (0, "".join(f"{folder}: {check}: ok\n" for check in checks), "")
    shard = folder / "ratings" / "test-00000-of-00001.parquet"
    shard.write_bytes(shard.read_bytes() + b"x")  # no longer ends with Parquet's magic bytes
    code, out, err = corpora_here("validate", str(folder))
    assert (code, err) == (1, "")
    magic = "Parquet magic bytes not found in footer. Either the file is corrupted or this is not a parquet file."
    assert out.splitlines() == [
        f"{folder}: mark: ok",
        f"{folder}: card: FAILED: its files cannot be read: ArrowInvalid: {magic}",
        f"{folder}: files: ok",
        f"{folder}: croissant.json: FAILED: ratings/test-00000-of-00001.parquet: its sha256 is not the one described",
        f"{folder}: parquet files: FAILED: ratings/test-00000-of-00001.parquet: cannot be read: ArrowInvalid: {magic}",
        f"{folder}: reload sentences: ok",
        f"{folder}: reload ratings: FAILED: load_dataset fails: ArrowInvalid: Could not open Parquet input source "
        f"'<Buffer>': {magic}",
        f"{folder}: reload raters: ok",
    ]
    (folder / ".corpora-export.json").unlink()
    assert corpora_here("validate", str(folder)) == (
        1, f"{folder}: mark: FAILED: {folder} is not an export of a corpus of this collection (no .corpora-export.json "
           "naming one)\n", "")


def test_validate_a_path_that_does_not_exist_says_so(capsys, tmp_path):
    missing, file = tmp_path / "build" / NAME, tmp_path / "file"
    file.write_text("not an export")
    assert corpora_here("validate", str(missing)) == (1, f"{missing}: mark: FAILED: {missing} does not exist\n", "")
    assert corpora_here("validate", str(file)) == (1, f"{file}: mark: FAILED: {file} is not a folder\n", "")


@pytest.mark.parametrize("mark_lists_files", [True, False])
def test_validate_names_a_file_that_is_not_part_of_the_export(capsys, tmp_path, mark_lists_files):
    assert corpora_here("build", NAME, "--dummy", "--out", str(tmp_path))[0] == 0
    folder = tmp_path / NAME
    if not mark_lists_files:  # an export of corpora 0.1.0's first version: the card says what is the export's
        mark = json.loads((folder / ".corpora-export.json").read_text())
        del mark["files"]
        (folder / ".corpora-export.json").write_text(json.dumps(mark, indent=2) + "\n")
    # An upload of the folder publishes whatever is in it: notes, an editor's backup, a .DS_Store.
    (folder / "ratings" / "notes.txt").write_text("to do\n")
    (folder / ".DS_Store").write_bytes(b"\0")
    # A shard the build did not write, which the card's `ratings/train-*` names all the same.
    shutil.copy(folder / "ratings" / "train-00000-of-00001.parquet", folder / "ratings" / "train-copy.parquet")
    code, out, _ = corpora_here("validate", str(folder))
    assert code == 1
    stray = ".DS_Store, ratings/notes.txt, ratings/train-copy.parquet" if mark_lists_files else (
        ".DS_Store, ratings/notes.txt")  # the copy: the card and croissant.json checks name it
    assert [line for line in out.splitlines() if line.startswith(f"{folder}: files: ")] == [
        f"{folder}: files: FAILED: not part of the export, and an upload would publish them: {stray}"
    ]
    assert f"{folder}: croissant.json: FAILED: ratings/train-copy.parquet is not described" in out.splitlines()


def test_validate_an_export_of_a_config_the_loader_no_longer_has(capsys, tmp_path):
    assert corpora_here("build", NAME, "--dummy", "--out", str(tmp_path))[0] == 0
    folder = tmp_path / NAME
    rename_config(folder, "ratings", "ratings_v0")
    checks = ["mark", "card", "files", "croissant.json", "parquet files", "reload sentences"]
    assert corpora_here("validate", str(folder)) == (1, "".join(f"{folder}: {check}: ok\n" for check in checks) + (
        f"{folder}: reload ratings_v0: FAILED: {NAME} has no config 'ratings_v0'; configs: sentences, ratings, "
        f"raters; `corpora build {NAME} --out {tmp_path} --drop-other-configs` replaces the export without it\n"
        f"{folder}: reload raters: ok\n"
    ), "")
