"""What the datasets 5.x venv writes (CORPORA_DATASETS5_PYTHON, set by the Makefile for the other legs), for
the tests that read it back on their own leg: every such export made by one process of that venv, once
per session. Each was a process of its own: a start of Python with datasets and corpora imported is
seconds of CPU, in two legs."""

import os
import subprocess
from pathlib import Path

import pytest

from .collection import DATASETS_MAJOR

TESTS = Path(__file__).resolve().parents[1]

# Run by the datasets 5.x Python, with OUT and BUILD as its arguments: with BUILD "build", `corpora build
# --all --dummy` into OUT/build; tests/legacy_scripts/card_notes converted into OUT/card_notes, and spans
# converted from its dummy data into OUT/spans (its script folder copied into OUT/scripts).
WRITE = f"""
import sys
from pathlib import Path
sys.path.insert(0, {str(TESTS)!r})
from corpora import cli
from helpers.converted import convert_dummy
from helpers.converted import convert_here
from helpers.legacy import legacy_script
out = Path(sys.argv[1])
if sys.argv[2] == "build":
    assert cli.main(["build", "--all", "--dummy", "--out", str(out / "build")]) == 0
convert_here("card_notes", out)
convert_dummy(legacy_script("spans", out / "scripts"), out)
"""


@pytest.fixture(scope="session")
def written_by_datasets5(tmp_path_factory) -> Path:
    """OUT with card_notes/ and spans/ (converted) and, on a leg whose datasets runs scripts, build/ (every
    corpus's dummy export, which tests/test_script_loading.py alone reads), all written by datasets 5.x."""
    out = tmp_path_factory.mktemp("datasets5")
    build = "build" if DATASETS_MAJOR < 4 else "no build"
    result = subprocess.run([os.environ["CORPORA_DATASETS5_PYTHON"], "-c", WRITE, str(out), build], capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0, result.stderr
    return out
