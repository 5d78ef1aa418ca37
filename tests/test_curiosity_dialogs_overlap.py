"""What an export holds, said of every export: the examples per split and those found in more than
one split, compared by content (every field, not a key), as figures computed from its rows; a card
built from modified sources says them beside its notice. A real curiosity_dialogs build from a copy
of its dummy data whose test file is the train file, as the earlier Hugging Face loader's dummy
files are (each split one dialog, train and test the same)."""

import shutil
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from corpora.cards import overlap
from corpora.cli import main
from helpers import REPO

NAME = "curiosity_dialogs"


def card_of(folder):
    return (folder / NAME / "README.md").read_text(encoding="utf-8")


def test_rows_are_compared_by_content_not_by_key():
    train = pa.table({"id": [1, 2, 3], "text": ["a", "b", "c"], "tags": [["x"], [], ["y", "z"]]})
    test = pa.table({"id": [1, 2, 4], "text": ["a", "B", "c"], "tags": [["x"], [], ["y", "z"]]})  # 1 equal, 2 a new text
    validation = pa.table({"id": [3, 3], "text": ["c", "c"], "tags": [["y", "z"], ["y", "z"]]})  # train's 3, twice
    found = overlap.found({"train": train, "validation": validation, "test": test})
    assert found == (2, {"train & validation": 1, "train & test": 1, "validation & test": 0})
    assert overlap.text(found) == "2 (train & validation: 1; train & test: 1)"
    assert overlap.text(overlap.found({"train": train, "test": test.slice(1)})) == "none"


@pytest.mark.other_dependencies  # DuckDB's hash and its Parquet reader, on its oldest version too
def test_splits_given_as_parquet_files_are_compared_as_their_tables(tmp_path, monkeypatch):
    # What a build compares: the files it wrote, several for a big split; only the rows whose hash another
    # split has too are compared whole, so the counts are those of every row against every other.
    train = pa.table({"id": [1, 2, 3, 5], "text": ["a", "b", "c", "e"], "score": [0.5, float("nan"), None, 2.0],
                      "tags": [["x"], [], ["y", "z"], None], "span": [{"start": 0}, {"start": 1}, None, {"start": 3}]})
    test = pa.concat_tables([train.slice(1, 1), train.slice(0, 1), train.slice(1, 1)])  # 2 (its NaN too), 1, 2
    validation = pa.concat_tables([train.slice(2, 1), train.slice(2, 1)])  # 3 (its None), twice
    tables = {"train": train, "validation": validation, "test": test}
    files = {}
    for split, table in tables.items():
        files[split] = [tmp_path / f"{split}-{part}.parquet" for part in range(2)]
        pq.write_table(table.slice(0, 1), files[split][0])
        pq.write_table(table.slice(1), files[split][1])
    expected = (3, {"train & validation": 1, "train & test": 2, "validation & test": 0})
    monkeypatch.setattr(overlap, "_found_in_python", None)  # DuckDB reads every type here: no fallback
    assert overlap.found(tables) == overlap.found(files) == expected


STOPPED_DURING_A_QUERY = """
import os, signal, threading
import pyarrow as pa
from corpora import signals
from corpora.cards import overlap
signals.handle_stops()
rows = pa.table({"n": pa.array(range(3_000_000)), "text": pa.array([str(i % 1000) for i in range(3_000_000)])})
threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    overlap.found({"train": rows, "test": rows})
except BaseException as error:
    print(type(error).__name__)
"""


@pytest.mark.other_dependencies  # how DuckDB gives back a signal that came during a query
def test_a_ctrl_c_during_the_comparison_stops_it_as_a_ctrl_c():
    # DuckDB turns the stop into RuntimeError("Query interrupted"): `corpora build` said it as an error.
    done = subprocess.run([sys.executable, "-c", STOPPED_DURING_A_QUERY], capture_output=True, text=True, timeout=120)
    assert (done.stdout, done.stderr) == ("KeyboardInterrupt\n", "")


def test_a_build_whose_train_and_test_share_a_dialog_says_so(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(REPO / "dummy_data" / NAME, data)
    folder = data / "dialog_data"
    shutil.copy(folder / f"{NAME}.train.json", folder / f"{NAME}.test.json")  # byte for byte
    out = tmp_path / "out"
    assert main(["build", NAME, "--data-dir", str(data), "--allow-modified-sources", "--out", str(out)]) == 0
    lines = card_of(out).splitlines()
    start = lines.index("> **Not the release.** This export was built from 4 source file(s) that differ from the "
                        "recorded release:")
    notice = lines[start:lines.index("## Dataset Description") - 1]
    assert notice[-3:] == [
        "> (11,221 bytes, recorded 7,774,102). Its rows, sizes and statistics are those of these files.",
        "> Examples per split of this build, `dialogs`: train 3, validation 2, test 3, test_zero 2; in more",
        "> than one split: 3 (train & test: 3).",
    ]
    table = lines.index("#### `dialogs`")
    assert lines[table + 2:table + 10] == [
        "| split | source records read | examples written |",
        "|---|---:|---:|",
        "| train | 3 | 3 |",
        "| validation | 2 | 2 |",
        "| test | 3 | 3 |",
        "| test_zero | 2 | 2 |",
        "",
        "Examples found in more than one split, compared by content (every field, not a key): 3 (train & test: 3).",
    ]


def test_the_dummy_export_says_its_splits_share_nothing(dummy_export):
    lines = card_of(dummy_export(NAME).parent).splitlines()
    assert lines[lines.index("#### `dialogs`") + 9] == (
        "Examples found in more than one split, compared by content (every field, not a key): none.")
    start = lines.index("## Dataset Description") - 3
    assert lines[start:start + 2] == [
        "> real format, partly invented), not from the corpus. Examples per split of this build, `dialogs`:",
        "> train 3, validation 2, test 2, test_zero 2; in more than one split: none.",
    ]
