"""The loaders import the shared code (corpora.loader_shared) from the installed package, so it is
no part of the loader's own hash; SourceBuilder adds its hash to the cache folder of a build, and a
datasets cache made before a change of it is never served after it. Shown for real: a load, then a
check added to a copy of the installed package, then the same load with the same cache. Each load
runs in a process of its own, which imports that copy (first on its path): the process is what
stands for the next session after an upgrade."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import corpora
from helpers import EXAMPLE
from helpers import EXAMPLE_COLLECTION

DUMMY = EXAMPLE_COLLECTION / "dummy_data" / EXAMPLE
# The dummy test split of the example's ratings config (data/test.jsonl; language: de 0, en 1).
ROWS = [
    {"sentence_id": sentence, "language": language, "rater": rater, "score": score}
    for sentence, language, rater, score in [
        ("s16", 0, "ana", 1), ("s16", 0, "ben", 3), ("s16", 0, "chen", 5),
        ("s18", 1, "chen", 2), ("s18", 1, "dara", 4), ("s18", 1, "emil", 1),
    ]
]
# Appended to the copy's loader_common.py: its check_is_data, which every loader imports, now also
# refuses a file that starts with a JSON object (as every file of the example does).
ADDED_CHECK = '''

_check_is_data = check_is_data


def check_is_data(head, source, expected):
    if head.startswith(b"{"):
        raise ValueError(f"{source}: starts with a JSON object, which the changed check refuses")
    _check_is_data(head, source, expected)
'''
REFUSED = "data/train-1.jsonl: starts with a JSON object, which the changed check refuses"


@pytest.fixture
def installed_copy(tmp_path):
    """A folder holding a copy of the installed corpora package."""
    site = tmp_path / "site"
    shutil.copytree(Path(corpora.__file__).parent, site / "corpora", ignore=shutil.ignore_patterns("__pycache__"))
    return site


def load_with(site: Path, load: str):
    """The rows of the Dataset that the Python expression `load` gives in a process importing
    corpora from `site`, or the loader's error."""
    script = (
        "import json, corpora, datasets\n"
        "from corpora.errors import loader_error\n"
        f"try:\n    answer = ({load}).to_list()\n"
        "except Exception as error:\n    answer = str(loader_error(error))\n"
        "print(json.dumps([corpora.__file__, answer]))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(site), CORPORA_ROOT=str(EXAMPLE_COLLECTION))
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    module, answer = json.loads(result.stdout.splitlines()[-1])
    assert module == str(site / "corpora" / "__init__.py")  # the copy, not the package the tests run
    return answer


def change_a_shared_check(site: Path) -> None:
    with open(site / "corpora" / "loader_shared" / "loader_common.py", "a", encoding="utf-8") as file:
        file.write(ADDED_CHECK)


@pytest.mark.both_legs
def test_corpora_load_applies_a_changed_shared_check_rather_than_its_cache(installed_copy, tmp_path):
    load = f"corpora.load({EXAMPLE!r}, 'ratings', split='test', dummy=True, cache_dir={str(tmp_path / 'cache')!r})"
    assert load_with(installed_copy, load) == ROWS
    change_a_shared_check(installed_copy)
    assert load_with(installed_copy, load) == REFUSED


@pytest.mark.datasets3
def test_the_loading_script_applies_a_changed_shared_check_rather_than_its_cache(installed_copy, tmp_path):
    load = (f"datasets.load_dataset({str(EXAMPLE_COLLECTION / 'loaders' / EXAMPLE)!r}, 'ratings', split='test', "
            f"data_dir={str(DUMMY)!r}, trust_remote_code=True, cache_dir={str(tmp_path / 'cache')!r}, "
            "verification_mode='no_checks')")
    assert load_with(installed_copy, load) == ROWS
    change_a_shared_check(installed_copy)
    assert load_with(installed_copy, load) == REFUSED
