"""`corpora convert --reference-python`: the command converts, then proves its own export against the
minimum venv's datasets 3.6 (the Makefile makes it before the main leg); and the table of
`make conformance`, from the command's outcomes."""

import shutil
import zipfile

from corpora.convert import conformance
from fault_server import FaultServer
from helpers import corpora_here
from helpers.reference import REFERENCE_PYTHON
from helpers.reference import SCRIPTS
from helpers.reference import VERSIONED
from helpers.reference import write_sources


def test_convert_proves_its_export(tmp_path):
    sources = write_sources(tmp_path / "sources")
    code, out, err = corpora_here("convert", SCRIPTS / "reference_rows", "--out", tmp_path / "out",
                                  "--data-dir", sources, "--reference-python", REFERENCE_PYTHON)
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == "identical: 6 rows in 3 splits"


def test_convert_proves_its_export_on_the_same_downloads(tmp_path, monkeypatch, online):
    """Neither --dummy nor --data-dir: both sides download the script's URLs, here from the tests'
    server; the reference process is online too."""
    for variable in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        monkeypatch.delenv(variable)
    server = FaultServer(write_sources(tmp_path / "served"))
    try:
        folder = shutil.copytree(SCRIPTS / "served", tmp_path / "scripts" / "served")
        script = folder / "served.py"
        script.write_text(script.read_text(encoding="utf-8").replace("http://127.0.0.1:0/", server.base))
        code, out, err = corpora_here("convert", folder, "--out", tmp_path / "out", "--reference-python",
                                      REFERENCE_PYTHON)
    finally:
        server.close()
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == "identical: 4 rows in 2 splits"
    assert server.requests == {"lines.zip": 4, "images/a.png": 4}  # each side: a GET for its size, one for the file


def test_rows_that_differ_exit_1_and_an_error_2(tmp_path):
    """As `corpora diff`: 1 is "different", 2 an error (the reference cannot run the script)."""
    import datasets

    (tmp_path / "versioned").mkdir()
    (tmp_path / "versioned" / "versioned.py").write_text(VERSIONED)
    code, out, err = corpora_here("convert", tmp_path / "versioned", "--out", tmp_path / "out",
                                  "--reference-python", REFERENCE_PYTHON)
    assert (code, err) == (1, "")
    major = datasets.__version__.split(".")[0]
    assert out.splitlines() == [
        f"exported to {tmp_path}/out/:",
        "script     config   split  examples generated  rows written",
        "versioned  default  train                   3             3",
        "old: reference (datasets 3.6.0)",
        f"new: {tmp_path}/out/versioned",
        "config default (rows matched by position):",
        "  train: 3 -> 3 rows: 0 added, 0 removed, 1 changed, 2 unchanged",
        "    major: 1 row changed",
        f"      row 1: '3' -> '{major}'",
        "the exports differ",
    ]
    code, out, err = corpora_here("convert", tmp_path / "versioned", "--out", tmp_path / "out",
                                  "--reference-python", tmp_path / "no-python")
    assert (code, err) == (2, f"corpora convert: error: --reference-python {tmp_path}/no-python: cannot run it: "
                              "No such file or directory\n")


DUMMY_FOLDER = "dummy_data"  # the folder a dummy_data.zip holds
ROWS = '''import csv

import datasets


class Rows(datasets.GeneratorBasedBuilder):
    VERSION = datasets.Version("1.0.0")

    def _info(self):
        return datasets.DatasetInfo(features=datasets.Features({"word": datasets.Value("string")}))

    def _split_generators(self, dl_manager):
        path = dl_manager.download_and_extract("https://example.invalid/data/rows.csv")
        return [datasets.SplitGenerator(name=datasets.Split.TRAIN, gen_kwargs={"path": path})]

    def _generate_examples(self, path):
        with open(path, encoding="utf-8") as rows:
            for index, row in enumerate(csv.reader(rows)):
                yield index, {"word": row[0]}
'''


def test_conformance_says_what_each_script_gave(tmp_path, capsys):
    """Two scripts: one without dummy data (the converter refuses it), one with it, converted,
    which the 3.6 reference refuses (no MockDownloadManager); each refusal is its one line."""
    for name in ("with_dummy", "without_dummy"):
        (tmp_path / "legacy" / name).mkdir(parents=True)
        (tmp_path / "legacy" / name / f"{name}.py").write_text(ROWS.replace("class Rows", f"class {name.title()}"))
    (tmp_path / "legacy" / "with_dummy" / "dummy" / "1.0.0").mkdir(parents=True)
    with zipfile.ZipFile(tmp_path / "legacy" / "with_dummy" / "dummy" / "1.0.0" / "dummy_data.zip", "w") as archive:
        archive.writestr(f"{DUMMY_FOLDER}/rows.csv", "a\nb\n")
    status = conformance.main([str(tmp_path / "legacy"), "--reference-python", str(REFERENCE_PYTHON)])
    printed = capsys.readouterr().out
    assert status == 0
    assert printed.splitlines() == [
        "0 identical, 0 differs, 2 refused of 2",
        "",
        "| script | outcome | rows, or the line said | corpora validate |",
        "|---|---|---|---|",
        "| with_dummy | refused | corpora convert: error: reference (datasets 3.6.0) cannot run with_dummy.py: datasets "
        "3.6.0 has no MockDownloadManager (removed in 3.0): --dummy needs --reference 2.21; a datasets 3.x reference runs "
        "only scripts and sources it runs unchanged |  |",
        f"| without_dummy | refused | corpora convert: error: {tmp_path}/legacy/without_dummy/without_dummy.py: no dummy "
        "data for any config (dummy/<version>/dummy_data.zip, or its dummy_data/ folder); convert the release, "
        "without --dummy |  |",
    ]
