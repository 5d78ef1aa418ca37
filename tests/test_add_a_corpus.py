"""Adding a corpus is its three folders (README, "Add a corpus"): a renamed copy of an existing
corpus (its loader folder, module and class, card source and dummy data), added to a copy of the
collection with no other edit, gets its card from `corpora card` and passes every generic test,
exactly the ones the original gets."""

import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from corpora import registry
from helpers import COLLECTION
from helpers import DATASETS_MAJOR
from helpers import LEG
from helpers import add_renamed_copy
from helpers import declared
from helpers import generated_id
from helpers import not_the_data
from helpers import one_of_each_kind
from helpers import own_test_file
from helpers import quickest_corpus
from helpers import run_process

# The corpus with the smallest dummy data (the quickest to test), and a new name for its copy
# (its first word and "_copy") that no test id of another corpus contains.
ORIGINAL = quickest_corpus()
COPY = ORIGINAL.split("_")[0] + "_copy"
CLASSES = registry.get(ORIGINAL).builder_class.__name__, "".join(word.title() for word in COPY.split("_"))
TESTS = Path(__file__).resolve().parent
CHECKOUT = TESTS.parent


def renamed(text: str) -> str:
    return text.replace(ORIGINAL, COPY).replace(*CLASSES)


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    """The collection's three folders, plus the copy in each; nothing else."""
    root = tmp_path_factory.mktemp("collection")
    for folder in ("loaders", "dataset_cards", "dummy_data"):
        shutil.copytree(COLLECTION / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__"))
    add_renamed_copy(COLLECTION, root, ORIGINAL, COPY, CLASSES)
    return root


def generic_test_files(root):
    """Every test file but the per-corpus ones (tests/test_<name>.py, tests/test_<name>_*.py)
    and this one."""
    names = os.listdir(root / "loaders")
    return sorted(
        str(path) for path in TESTS.glob("test_*.py")
        if path.name != Path(__file__).name and not any(own_test_file(name, path.name) for name in names)
    )


@pytest.mark.both_legs  # the copy is built, streamed and (datasets 3.x) loaded as a script
@pytest.mark.skipif(LEG == "datasets4", reason="the copy is the original renamed: on datasets 4.x it runs the "
                    "original's code, which this leg tests; names are checked in the main leg, scripts in the minimum one")
def test_a_renamed_copy_gets_its_card_and_passes_the_generic_tests(collection, tmp_path):
    assert not any(COPY in name or name in COPY for name in registry.names())
    assert sorted(p.name for p in collection.iterdir()) == ["dataset_cards", "dummy_data", "loaders"]
    card = run_process([sys.executable, "-m", "corpora.cli", "card", COPY], cwd=CHECKOUT,
                       env={"CORPORA_ROOT": str(collection), "HF_HOME": str(tmp_path / "hf-home")})
    assert card.returncode == 0, card.stderr
    assert (collection / "loaders" / COPY / "README.md").read_text().startswith("---\n")

    collected = tmp_path / "collected.txt"  # every test of this leg, written by conftest before -k
    # --basetemp: its exit would delete other runs' folders among pytest's shared numbered ones
    result = run_process(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--basetemp", str(tmp_path / "tmp"), "-v", "-k", COPY,
         *generic_test_files(collection)],
        cwd=CHECKOUT, env={"CORPORA_ROOT": str(collection), "HF_HOME": str(tmp_path / "hf-home"),
                           "CORPORA_COLLECTED_TESTS": str(collected)})
    assert result.returncode == 0, result.stdout[-3000:]
    expected = sorted(
        renamed(test) for test in generic_over_every_corpus(collected.read_text())
        if ORIGINAL in test and not any(f"[{ORIGINAL}-{case}]" in test for case in own_bad_input_cases() + own_files_not_the_data())
    )
    outcomes = dict(re.findall(r"^(\S+::\S+) (PASSED|SKIPPED|FAILED|ERROR)", result.stdout, re.MULTILINE))
    assert sorted(outcomes) == expected
    # Script loading is skipped in the datasets 5.x leg (it cannot run scripts); nothing else is.
    script_loading = DATASETS_MAJOR >= 4 and "test_script_loading.py"
    assert [test for test, outcome in outcomes.items() if outcome != "PASSED"] == [
        test for test in outcomes if test.split("::")[0].endswith(str(script_loading))
    ]
    assert list(outcomes.values()).count("PASSED") >= 2 * len(registry.get(ORIGINAL).configs)  # real work


def own_bad_input_cases() -> list[str]:
    """The bad inputs the original declares in its own tests/test_<name>.py (README, "Add a
    corpus"): that file is optional and not part of the copy, so neither are these cases."""
    return [bad.case for bad in declared(ORIGINAL, "BAD_INPUT", [])]


def own_files_not_the_data() -> list[str]:
    """The generated not-the-data cases (tests/test_bad_input.py) the original has only because
    its own table changes that file: the copy has no table, so not these either."""
    return [generated_id(bad) for bad in not_the_data(ORIGINAL)
            if bad.file not in one_of_each_kind(ORIGINAL, bad.config)]


def generic_over_every_corpus(collected: str) -> list[str]:
    """The collected tests of functions parametrized over every corpus of this checkout."""
    tests = collected.splitlines()
    functions = {}
    for test in tests:
        functions.setdefault(test.split("[")[0], []).append(test)
    names = registry.names()
    return [
        test
        for variants in functions.values()
        if all(any(name in variant for variant in variants) for name in names)
        for test in variants
    ]
