"""`corpora convert SOURCE --out OUT` (corpora/commands/convert.py): a legacy-style script of
tests/legacy_scripts/ written as an export through the shared pipeline, from its dummy data, the
files given with --data-dir, its own repository's files, or the Hub (only with --trust-remote-code)."""

import shutil
import sys
import zipfile

import datasets
import pyarrow.parquet as pq
import pytest

from helpers import corpora_here
from helpers.hub import corpora_at
from helpers.legacy import LEGACY_SCRIPTS
from helpers.legacy import legacy_script
from helpers.reference import SCRIPTS
from helpers.reference import write_sources

pytestmark = pytest.mark.both_legs
DUMMY_FOLDER = "dummy_data"  # the folder a dummy_data.zip holds


def parquet_rows(folder, config, split):
    return pq.read_table(folder / config / f"{split}-00000-of-00001.parquet").to_pylist()


def test_a_script_converted_from_its_dummy_data(tmp_path):
    folder = legacy_script("spans", tmp_path / "scripts")
    code, out, err = corpora_here("convert", folder, "--dummy", "--out", tmp_path / "out")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        f"exported to {tmp_path}/out/:",
        "script  config  split  examples generated  rows written",
        "spans   dicts   train                   3             3",
        "spans   lists   train                   3             3",
    ]
    export = tmp_path / "out" / "spans"
    assert sorted(p.relative_to(export).as_posix() for p in export.rglob("*") if p.is_file()) == [
        ".corpora-export.json", "README.md", "croissant.json", "dicts/train-00000-of-00001.parquet",
        "lists/train-00000-of-00001.parquet"]
    schema = pq.read_schema(export / "dicts" / "train-00000-of-00001.parquet")
    assert str(schema.field("spans").type) == "struct<offsets: list<element: list<element: int32>>>"
    assert parquet_rows(export, "lists", "train")[2] == {
        "id": "s3", "spans": {"offsets": [[]]}, "entities": {"label": [1], "offsets": [[]]},
        "sentences": [{"word": []}]}
    assert corpora_here("validate", export).returncode == 0
    # the stand-ins are gone once the command has ended
    assert ("datasets.tasks" in sys.modules, hasattr(datasets, "TextClassification")) == (False, False)


def test_a_script_without_configs_is_the_config_default(tmp_path):
    folder = legacy_script("tasks_classlabel", tmp_path / "scripts")
    code, out, err = corpora_here("convert", folder / "tasks_classlabel.py", "--dummy", "--out", tmp_path / "out")
    assert (code, err) == (0, "")
    export = tmp_path / "out" / "tasks_classlabel"
    assert parquet_rows(export, "default", "test") == [{"text": "Never again", "label": 0}]
    assert "task_categories:\n- text-classification\n" in (export / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("processes", [[], ["--num-proc", "2"]], ids=["one process", "two processes"])
def test_relative_urls_read_the_scripts_own_files(tmp_path, processes):
    folder = legacy_script("relative", tmp_path / "scripts")
    code, out, err = corpora_here("convert", folder, "--out", tmp_path / "out", "--config", "lines", *processes)
    assert (code, err) == (0, "")
    assert parquet_rows(tmp_path / "out" / "relative", "lines", "train") == [
        {"number": 1, "line": "one"}, {"number": 2, "line": "two"}, {"number": 3, "line": "three"}]


def test_a_manual_download_is_read_from_the_data_dir(tmp_path):
    folder = legacy_script("manual", tmp_path / "scripts")
    given = tmp_path / "given"
    given.mkdir()
    (given / "records.tsv").write_text("cy\t1\ndi\t2\n", encoding="utf-8")
    code, out, err = corpora_here("convert", folder, "--data-dir", given, "--out", tmp_path / "out")
    assert (code, err) == (0, "")
    assert parquet_rows(tmp_path / "out" / "manual", "default", "train") == [
        {"name": "cy", "count": 1}, {"name": "di", "count": 2}]
    code, out, err = corpora_here("convert", folder, "--out", tmp_path / "out2")
    assert (code, out) == (2, "")
    assert err == ("corpora convert: error: manual: the script reads files downloaded by hand, from a folder given "
                   "with --data-dir DIR; its instructions: Download records.tsv from https://example.org/records "
                   "(after signing in) into a folder.\n")


def test_an_unknown_config_is_one_line(tmp_path):
    folder = legacy_script("spans", tmp_path / "scripts")
    code, out, err = corpora_here("convert", folder, "--dummy", "--config", "sets", "--out", tmp_path / "out")
    assert (code, out) == (2, "")
    assert err == f"corpora convert: error: {folder}/spans.py: no config 'sets'; its configs: dicts, lists\n"
    assert not (tmp_path / "out").exists()


def test_a_script_of_the_hub_runs_only_with_trust_remote_code(tmp_path, hub):
    files = {path.relative_to(folder).as_posix(): path.read_bytes() for folder in [legacy_script(
        "relative", tmp_path / "scripts")] for path in folder.rglob("*") if path.is_file()}
    commit = hub.put("someone/relative", files, "Add the loading script")
    source = "hf://datasets/someone/relative@main"
    code, out, err = corpora_at(hub.endpoint, "convert", source, "--out", tmp_path / "out", home=tmp_path / "home")
    assert (code, out) == (2, "")
    assert err == (f"corpora convert: error: {source}: a loading script is code, and converting runs it: give "
                   "--trust-remote-code to run this one from the Hub, once you have read it and trust it\n")
    code, out, err = corpora_at(hub.endpoint, "convert", source, "--trust-remote-code", "--out", tmp_path / "out",
                                home=tmp_path / "home")
    assert (code, err) == (0, "")
    export = tmp_path / "out" / "relative"
    assert parquet_rows(export, "lines", "train") == [
        {"number": 1, "line": "one"}, {"number": 2, "line": "two"}, {"number": 3, "line": "three"}]
    assert f"    source: hf://datasets/someone/relative@{commit}\n" in (export / "README.md").read_text(encoding="utf-8")


def test_the_images_a_script_names_are_in_the_export(tmp_path):
    from PIL import Image

    given = tmp_path / "images"
    given.mkdir()
    Image.new("RGB", (2, 1), "red").save(given / "a.png")
    code, out, err = corpora_here("convert", LEGACY_SCRIPTS / "image_bytes", "--data-dir", given,
                                  "--out", tmp_path / "out")
    assert (code, err) == (0, "")
    assert parquet_rows(tmp_path / "out" / "image_bytes", "default", "train") == [
        {"name": "a.png", "image": {"bytes": (given / "a.png").read_bytes(), "path": "a.png"}}]


def files_of(folder):
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in folder.rglob("*") if path.is_file()}


def test_a_config_whose_dummy_data_lacks_its_file_is_named_and_the_export_left(tmp_path):
    """As a config that fails stops `corpora build`: nothing written, the export made before left as it
    was. The line names the config and the download the dummy data lacks, not the workspace's path."""
    folder = legacy_script("spans", tmp_path / "scripts")
    assert corpora_here("convert", folder, "--dummy", "--out", tmp_path / "out").returncode == 0
    before = files_of(tmp_path / "out" / "spans")
    (folder / "dummy" / "lists" / "1.0.0" / DUMMY_FOLDER / "annotations.jsonl").unlink()
    code, out, err = corpora_here("convert", folder, "--dummy", "--out", tmp_path / "out")
    assert (code, out) == (2, "")
    assert err == (f"corpora convert: error: spans/lists: {folder}/dummy/lists/1.0.0/{DUMMY_FOLDER} (standing for "
                   f"https://example.org/spans/annotations.jsonl: the dummy data holds no {DUMMY_FOLDER}/annotations.jsonl): "
                   "Is a directory\n")
    assert files_of(tmp_path / "out" / "spans") == before
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == [".spans.lock", "spans"]


def test_a_file_a_dummy_zip_lacks_is_named_inside_it(tmp_path):
    folder = legacy_script("tasks_classlabel", tmp_path / "scripts")
    data = folder / "dummy" / "1.2.0" / DUMMY_FOLDER
    (data / "train.csv").unlink()
    with zipfile.ZipFile(data.with_name("dummy_data.zip"), "w") as archive:
        for path in [data, *sorted(data.rglob("*"))]:
            archive.write(path, path.relative_to(data.parent).as_posix())
    shutil.rmtree(data)
    code, out, err = corpora_here("convert", folder, "--dummy", "--out", tmp_path / "out")
    assert (code, out) == (2, "")
    assert err == (f"corpora convert: error: tasks_classlabel/default: {data.with_name('dummy_data.zip')}: "
                   f"{DUMMY_FOLDER}/train.csv: No such file or directory\n")


def test_a_file_an_archive_lacks_is_named_inside_it(tmp_path):
    given = write_sources(tmp_path / "given")
    with zipfile.ZipFile(given / "lines.zip", "w") as archive:
        archive.writestr("train.jsonl", "")
    code, out, err = corpora_here("convert", SCRIPTS / "reference_rows", "--data-dir", given, "--out", tmp_path / "out")
    assert (code, out) == (2, "")
    assert err == (f"corpora convert: error: reference_rows/lines: {given}/lines.zip, extracted: test.jsonl: "
                   "No such file or directory\n")
