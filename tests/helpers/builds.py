"""A real `corpora build` process of the example corpus, as the tests of exports start one
(tests/test_export_safety.py and tests/test_export_stops.py): its command, with a test's hooks where
asked; its environment; and every one a test started killed after it."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .collection import EXAMPLE as NAME

HOOKED = Path(__file__).parents[1] / "hooked_corpora.py"


def command(out, *extra, source=("--dummy",), pause=None, interrupt=None, exchange=True):
    """`corpora build` of the example corpus; with `pause`, `interrupt` or without `exchange`, with a test's hooks."""
    hooks = [*(["--pause-at", pause] if pause else []), *(["--interrupt-at", interrupt] if interrupt else []),
             *([] if exchange else ["--no-exchange"])]
    start = [str(HOOKED), *hooks] if hooks else ["-m", "corpora.cli"]
    return [sys.executable, *start, "build", NAME, *source, "--out", str(out), *extra]


# Added to the environment of the moment (CORPORA_ROOT: the example collection, set by its fixture).
QUIET = {"HF_DATASETS_DISABLE_PROGRESS_BARS": "1"}


def environment(**extra):
    """The environment of the moment, quiet, for a process started with popen."""
    return dict(os.environ, **QUIET, **extra)


STARTED = []  # every build a test starts, killed after the test whatever its outcome


@pytest.fixture(autouse=True)
def no_build_outlives_its_test():
    yield
    while STARTED:
        process = STARTED.pop()
        if process.poll() is None:
            process.kill()
            process.wait()


def popen(argv, **kwargs):
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)
    STARTED.append(process)
    return process


def wait_for_line(process, expected: str) -> str:
    """Read stderr until a line matching `expected` (a regex); returns it."""
    seen = []
    while True:
        line = process.stderr.readline()
        assert line, f"the build ended before {expected!r}: {''.join(seen)}"
        if re.fullmatch(expected, line.rstrip("\n")):
            return line
        seen.append(line)
