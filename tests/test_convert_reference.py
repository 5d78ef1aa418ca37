"""`corpora convert --reference`: the rows of an export compared with what the same script gives on
another datasets. The reference is the minimum venv's datasets 3.6 (made by the Makefile before the
main leg), run on tests/legacy_scripts/reference_rows, which 3.6 runs unchanged, with --data-dir
sources; the export is that script's builder run on this leg's datasets (helpers/reference.py), so
nothing is checked against itself."""

import shutil
import sys
import threading
from pathlib import Path

import pyarrow
import pyarrow.parquet
import pytest

from corpora.convert import reference
from corpora.convert import reference_rows
from corpora.errors import CorporaError
from helpers.reference import REFERENCE_PYTHON
from helpers.reference import SCRIPTS
from helpers.reference import VERSIONED
from helpers.reference import export_here
from helpers.reference import png
from helpers.reference import write_sources

SCRIPT = SCRIPTS / "reference_rows" / "reference_rows.py"


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """(sources, an export of reference_rows made from them): copied by each test that edits it."""
    root = tmp_path_factory.mktemp("reference")
    sources = write_sources(root / "sources")
    return sources, export_here("reference_rows", root / "out", sources, root / "cache")


def prove(export, sources, script=SCRIPT, **options):
    said = []
    status = reference.prove(export, script, python=REFERENCE_PYTHON, data_dir=sources, say=said.append, **options)
    return status, "\n".join(said)


def test_the_reference_is_the_minimum_venv():
    """Not the datasets that made the export: the Makefile makes this venv before the main leg."""
    import subprocess

    done = subprocess.run([REFERENCE_PYTHON, "-c", "import datasets; print(datasets.__version__)"],
                          capture_output=True, text=True, check=True)
    assert done.stdout == "3.6.0\n"


def test_identical_rows(made):
    sources, export = made
    assert prove(export, sources) == (0, "identical: 6 rows in 3 splits")
    # the export's paths are where this leg unpacked the zip, not where datasets 3.6 did
    file = pyarrow.parquet.read_table(export / "lines" / "test-00000-of-00001.parquet")["file"][0].as_py()
    assert file.startswith(str(export.parents[1] / "cache" / "lines" / "downloads" / "extracted") + "/")


def test_only_the_configs_asked(made):
    sources, export = made
    assert prove(export, sources, configs=["media"]) == (0, "identical: 2 rows in 1 splits")


def rewrite(path: Path, column: str, row: int, value) -> None:
    table = pyarrow.parquet.read_table(path)
    values = table[column].to_pylist()
    values[row] = value
    index = table.schema.get_field_index(column)
    table = table.set_column(index, table.schema.field(index), pyarrow.array(values, table.schema.field(index).type))
    pyarrow.parquet.write_table(table, path)


def test_differing_rows_are_printed_and_exit_1(made, tmp_path):
    sources, export = made
    edited = shutil.copytree(export, tmp_path / "reference_rows")
    rewrite(edited / "lines" / "train-00000-of-00001.parquet", "text", 1, "rain again and again")
    rewrite(edited / "lines" / "train-00000-of-00001.parquet", "label", 2, 0)
    rewrite(edited / "media" / "train-00000-of-00001.parquet", "image", 0, {"bytes": png(7), "path": "a.png"})
    status, said = prove(edited, sources)
    assert status == 1
    assert said.splitlines() == [
        "old: reference (datasets 3.6.0)",
        f"new: {edited}",
        "config lines (rows matched by position):",
        "  test: identical (1 rows)",
        "  train: 3 -> 3 rows: 0 added, 0 removed, 2 changed, 1 unchanged",
        "    text: 1 row changed",
        "      row 1: 'rain again' -> 'rain again and again'",
        "    label: 1 row changed",
        "      row 2: 1 -> 0",
        "config media (rows matched by position):",
        "  train: 2 -> 2 rows: 0 added, 0 removed, 1 changed, 1 unchanged",
        "    image: 1 row changed",
        f"      row 0: {{bytes: <{len(png(100)):,} bytes>, path: None}} -> {{bytes: <{len(png(7)):,} bytes>, path: None}}",
        "the exports differ",
    ]


def test_a_missing_row_is_said(made, tmp_path):
    sources, export = made
    edited = shutil.copytree(export, tmp_path / "reference_rows")
    path = edited / "lines" / "train-00000-of-00001.parquet"
    pyarrow.parquet.write_table(pyarrow.parquet.read_table(path).slice(0, 2), path)
    status, said = prove(edited, sources, configs=["lines"])
    assert status == 1
    assert said.splitlines()[2:] == [
        "config lines (rows matched by position):",
        "  test: identical (1 rows)",
        "  train: 3 -> 2 rows: 0 added, 1 removed, 0 changed, 2 unchanged",
        "    removed: row 2",
        "the exports differ",
    ]


def test_a_script_that_gives_other_rows_on_another_datasets(tmp_path):
    import datasets

    folder = tmp_path / "versioned"
    folder.mkdir()
    (folder / "versioned.py").write_text(VERSIONED)
    (tmp_path / "out" / "versioned" / "default").mkdir(parents=True)
    rows = [{"n": n, "major": datasets.__version__.split(".")[0] if n == 1 else "same"} for n in range(3)]
    pyarrow.parquet.write_table(pyarrow.Table.from_pylist(rows), tmp_path / "out/versioned/default/train-00000-of-00001.parquet")
    status, said = prove(tmp_path / "out" / "versioned", None, script=folder / "versioned.py")
    assert status == 1
    assert said.splitlines()[2:] == [
        "config default (rows matched by position):",
        "  train: 3 -> 3 rows: 0 added, 0 removed, 1 changed, 2 unchanged",
        "    major: 1 row changed",
        f"      row 1: '3' -> '{datasets.__version__.split('.')[0]}'",
        "the exports differ",
    ]


TASKS = '''import datasets
from datasets.tasks import TextClassification


class Tasks(datasets.GeneratorBasedBuilder):
    def _info(self):
        return datasets.DatasetInfo(features=datasets.Features({"text": datasets.Value("string")}),
                                    task_templates=[TextClassification(text_column="text", label_column="label")])

    def _split_generators(self, dl_manager):
        return [datasets.SplitGenerator(name=datasets.Split.TRAIN)]

    def _generate_examples(self):
        yield 0, {"text": "a"}
'''


def test_a_3_6_reference_refuses_what_3_6_does_not_run(made, tmp_path):
    sources, export = made
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "tasks.py").write_text(TASKS)
    with pytest.raises(CorporaError) as raised:
        prove(export, None, script=tmp_path / "tasks" / "tasks.py")
    assert str(raised.value) == ("reference (datasets 3.6.0) cannot run tasks.py: ModuleNotFoundError: No module named "
                                 "'datasets.tasks'; a datasets 3.x reference runs only scripts and sources it runs unchanged")
    with pytest.raises(CorporaError) as raised:
        reference.prove(export, SCRIPT, python=REFERENCE_PYTHON, dummy=True)
    assert str(raised.value) == ("reference (datasets 3.6.0) cannot run reference_rows.py: datasets 3.6.0 has no "
                                 "MockDownloadManager (removed in 3.0): --dummy needs --reference 2.21; a datasets 3.x "
                                 "reference runs only scripts and sources it runs unchanged")
    with pytest.raises(CorporaError) as raised:
        reference.prove(export, SCRIPT, version="3.6", dummy=True)
    assert str(raised.value) == ("--reference 3.6 --dummy: datasets 3.6 has no MockDownloadManager (removed in 3.0), "
                                 "which ran a script on its dummy data; use --reference 2.21")
    with pytest.raises(CorporaError) as raised:
        reference.prove(export, SCRIPT, version="2.20")
    assert str(raised.value) == "--reference 2.20: expected one of 2.21, 3.6, or --reference-python PYTHON for another interpreter"


FAKE_UV = '''#!/bin/sh
# uv as the reference sees it: `venv ... FOLDER` links this Python there, `pip install` is recorded
echo "$*" >> "$UV_CALLS"
sleep 1
if [ "$2" = venv ]; then eval "folder=\\${$#}"; mkdir -p "$folder/bin" && ln -sf PYTHON "$folder/bin/python"; fi
'''


def test_the_venv_is_made_once_and_cached(tmp_path, monkeypatch):
    """Two commands at once: one makes the venv while the other waits on the lock, then uses it."""
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "uv").write_text(FAKE_UV.replace("PYTHON", sys.executable))
    (tmp_path / "bin" / "uv").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:/usr/bin:/bin")
    monkeypatch.setenv("UV_CALLS", str(tmp_path / "calls"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    found = []
    threads = [threading.Thread(target=lambda: found.append(reference.reference_python("2.21"))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    folder = tmp_path / "cache" / "corpora" / "reference" / "datasets-2.21.0"
    assert found == [folder / "bin" / "python"] * 2
    assert reference.reference_python("2.21") == folder / "bin" / "python"
    assert (tmp_path / "calls").read_text().splitlines() == [
        f"--quiet venv --clear --python {sys.executable} {folder}",
        f"--quiet pip install --python {folder / 'bin' / 'python'} datasets[vision]==2.21.0",
    ]
    # a package a script imports goes into the made venv, which is not made again
    assert reference.reference_python("2.21", ("faiss-cpu",)) == folder / "bin" / "python"
    assert (tmp_path / "calls").read_text().splitlines()[2:] == [
        f"--quiet pip install --python {folder / 'bin' / 'python'} faiss-cpu"]


def test_without_uv_the_refusal_says_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setitem(sys.modules, "uv", None)
    with pytest.raises(CorporaError) as raised:
        reference.reference_python("3.6")
    assert str(raised.value) == ("--reference makes its venv with uv, which is not installed: pip install uv, "
                                 "or name an interpreter with datasets installed with --reference-python PYTHON")


def test_paths_are_compared_by_their_part_inside_the_sources(tmp_path):
    rules = reference_rows.path_rules(dummy=True, data_dir=tmp_path / "data")
    image = pyarrow.struct([("bytes", pyarrow.binary()), ("path", pyarrow.string())])
    table = pyarrow.table({
        "file": [f"{tmp_path}/data/a/b.txt", "/x/downloads/extracted/" + "0f" * 32 + "/train.jsonl",
                 "/c/raw/downloads/extracted/" + "ab" * 32 + "/dummy_data/dummy_data/t.csv", "/tmp/other/dummy_data",
                 "/r/downloads/" + "9" * 64 + ".3c", "not/a/path", None],
        "nested": pyarrow.array([[{"p": "/q/downloads/extracted/" + "1" * 64}]] * 7,
                                pyarrow.list_(pyarrow.struct([("p", pyarrow.string())]))),
        "image": pyarrow.array([{"bytes": b"x", "path": "/a/b.png"}, {"bytes": None, "path": "/a/dummy_data/c.png"},
                                None, None, None, None, None], image),
    })
    compared = reference_rows.compared(table, rules)
    assert compared["file"].to_pylist() == [
        "<data-dir>/a/b.txt", "<extracted>/train.jsonl", "<dummy_data>/t.csv", "<dummy_data>",
        "<downloads>/" + "9" * 64 + ".3c", "not/a/path", None]
    assert compared["nested"].to_pylist() == [[{"p": "<extracted>"}]] * 7
    assert compared["image"].to_pylist() == [{"bytes": b"x", "path": None}, {"bytes": None, "path": "<dummy_data>/c.png"},
                                             None, None, None, None, None]


def test_the_conformance_table():
    from corpora.convert.conformance import Outcome
    from corpora.convert.conformance import table

    outcomes = [Outcome("anli", "identical", "27 rows in 9 splits", "passes"),
                Outcome("odd", "differs", "train: 3 -> 3 rows: 0 added, 0 removed, 1 changed, 2 unchanged", "passes"),
                Outcome("bigbench", "refused", "corpora convert: error: a | b")]
    assert table(outcomes).splitlines() == [
        "1 identical, 1 differs, 1 refused of 3",
        "",
        "| script | outcome | rows, or the line said | corpora validate |",
        "|---|---|---|---|",
        "| anli | identical | 27 rows in 9 splits | passes |",
        "| odd | differs | train: 3 -> 3 rows: 0 added, 0 removed, 1 changed, 2 unchanged | passes |",
        "| bigbench | refused | corpora convert: error: a \\| b |  |",
    ]


BROKEN = '''import datasets


class Broken(datasets.GeneratorBasedBuilder):
    def _info(self):
        return datasets.DatasetInfo(features=datasets.Features({"n": datasets.Value("int64")}))

    def _split_generators(self, dl_manager):
        return [datasets.SplitGenerator(name=datasets.Split.TRAIN)]

    def _generate_examples(self):
        yield 0, {"n": 0}
        raise ValueError("row 1 of the source is cut short")
'''


def test_what_the_script_raised_is_said_through_datasets_wrapping(made, tmp_path):
    sources, export = made
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "broken.py").write_text(BROKEN)
    with pytest.raises(CorporaError) as raised:
        prove(export, None, script=tmp_path / "broken" / "broken.py")
    assert str(raised.value) == (
        "reference (datasets 3.6.0) cannot run broken.py: DatasetGenerationError: An error occurred while generating "
        "the dataset: ValueError: row 1 of the source is cut short; a datasets 3.x reference runs only scripts and "
        "sources it runs unchanged")
