"""`corpora new NAME` (README, "Add a corpus"): the skeleton it writes into a copy of the checkout
passes, as it is, every generic test and its own tests/test_<name>.py, bad inputs included; it
refuses a name that is not one or is taken, and then writes nothing."""

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import COLLECTION
from helpers import DATASETS_MAJOR
from helpers import LEG
from helpers import corpora_here
from helpers import namespace_with_tmpfs
from helpers import run_process

# Built from two parts: shared code may not name a corpus, and `corpora new` refuses a word it uses.
NAME = "scaffolded" + "_corpus"
CHECKOUT = Path(__file__).resolve().parents[1]
PATHS = [f"loaders/{NAME}/{NAME}.py", f"loaders/{NAME}/FORMAT.md", f"dataset_cards/{NAME}.yaml",
         f"dummy_data/{NAME}/data/train.jsonl", f"dummy_data/{NAME}/data/test.jsonl", f"tests/test_{NAME}.py",
         f"dummy_data/{NAME}/expected_counts.json",
         f"loaders/{NAME}/checksums.tsv", f"loaders/{NAME}/README.md"]


@pytest.fixture
def checkout(tmp_path):
    """A copy of this checkout's files (the package itself is the one installed), its collection
    being the one under test."""
    root = tmp_path / "checkout"
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=CHECKOUT,
                            capture_output=True, text=True, check=True).stdout.splitlines()
    for path in listed:
        if (CHECKOUT / path).is_file() and not path.startswith(("loaders/", "dataset_cards/", "dummy_data/")):
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(CHECKOUT / path, root / path)
    for folder in ("loaders", "dataset_cards", "dummy_data"):
        shutil.copytree(COLLECTION / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def in_checkout(checkout, tmp_path) -> dict:
    """run_process's options for a command run in the checkout, reading its collection."""
    return dict(cwd=checkout, env={"CORPORA_ROOT": str(checkout), "HF_HOME": str(tmp_path / "hf-home")})


@pytest.fixture
def new(checkout, monkeypatch):
    """new(NAME): `corpora new NAME` in this process, on the checkout; (exit status, stderr)."""
    monkeypatch.setenv("CORPORA_ROOT", str(checkout))
    monkeypatch.chdir(checkout)

    def run_new(name):
        made = corpora_here("new", name)
        return made.returncode, made.stderr

    return run_new


@pytest.mark.both_legs  # the skeleton is built, streamed and (datasets 3.x) loaded as a script
def test_the_skeleton_passes_the_generic_tests_and_its_own(checkout, tmp_path):
    made = run_process([sys.executable, "-m", "corpora.cli", "new", NAME], **in_checkout(checkout, tmp_path))
    assert made.returncode == 0, made.stderr
    assert made.stdout.splitlines()[: len(PATHS)] == [f"wrote {path}" for path in PATHS]
    assert all((checkout / path).is_file() for path in PATHS)
    # the loader folder holds the loader alone: the shared code is imported from corpora.loader_shared
    # (and Python's bytecode cache of it, which git ignores, where the environment lets Python write one)
    assert sorted(path.name for path in (checkout / "loaders" / NAME).iterdir() if path.name != "__pycache__") == [
        "FORMAT.md", "README.md", "checksums.tsv", f"{NAME}.py"]
    assert (checkout / "loaders" / NAME / "checksums.tsv").read_text() == (
        f"https://example.org/{NAME}/v1/data/test.jsonl\t-\t-\nhttps://example.org/{NAME}/v1/data/train.jsonl\t-\t-\n"
    )
    # One pytest: the skeleton's tests and, on the leg that runs every test, all of tests/test_repository.py
    # (no shared code names it, every path resolves). --basetemp: its exit would delete other runs' folders
    # among pytest's shared numbered ones. --assert=plain: the outcomes are what this reads, and rewriting the
    # asserts of every test file of the copy (which has no bytecode cache) was 3 s of CPU, half of its collection.
    selected = NAME if LEG else f"{NAME} or test_repository.py"
    result = run_process([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--assert=plain", "--basetemp",
                          str(tmp_path / "tmp"), "-v", "-k", selected, "tests"], **in_checkout(checkout, tmp_path))
    assert result.returncode == 0, result.stdout[-3000:]
    outcomes = dict(re.findall(r"^(\S+::.+?) (PASSED|SKIPPED|FAILED|ERROR)", result.stdout, re.MULTILINE))
    assert [test for test, outcome in outcomes.items() if outcome not in ("PASSED", "SKIPPED")] == []
    assert outcomes[f"tests/test_generic.py::test_streaming_yields_the_prepared_rows[{NAME}-default]"] == "PASSED"
    if not LEG:  # the leg that runs every test: the bad inputs, the corpus's own, the repository's checks
        repository = {test: outcome for test, outcome in outcomes.items() if test.startswith("tests/test_repository.py::")}
        module = ast.parse((checkout / "tests" / "test_repository.py").read_text(encoding="utf-8"))
        functions = [node.name for node in module.body if isinstance(node, ast.FunctionDef) and node.name.startswith("test")]
        assert sorted({test.split("::")[1].split("[")[0] for test in repository}) == sorted(functions)  # each one ran
        assert set(repository.values()) == {"PASSED"}
        bad_inputs = [test for test in outcomes if test.startswith("tests/test_bad_input.py::") and NAME in test]
        assert all(outcomes[test] == "PASSED" for test in bad_inputs)
        own = [test for test in bad_inputs if "::test_bad_input_stops_with_one_clear_line[" in test]
        not_the_data = [test for test in bad_inputs if "::test_a_file_that_is_not_the_data_is_named_as_such[" in test]
        assert (len(own), len(not_the_data), len(bad_inputs)) == (10, 2 * 3, 16)  # 2 files, 3 cases each
        assert outcomes[f"tests/test_declared.py::test_quirks_have_their_exact_values[{NAME}]"] == "PASSED"
        assert list(outcomes.values()).count("PASSED") >= 40
    if DATASETS_MAJOR < 4:  # the skeleton also loads as a script
        script = f"tests/test_script_loading.py::test_load_dataset_runs_the_loader_script[{NAME}-default]"
        assert outcomes[script] == "PASSED"


def test_the_skeleton_card_declares_a_figure_its_card_defines(checkout, new):
    """The card source has `figures:` (docs/cards.md), with one figure on the skeleton's fields, which the
    loader's card defines under Statistics."""
    import yaml

    assert new(NAME) == (0, "")
    source = yaml.safe_load((checkout / "dataset_cards" / f"{NAME}.yaml").read_text(encoding="utf-8"))
    assert source["figures"] == {"distinct_texts": {"what": "distinct `text` values", "distinct": "text"}}
    card = (checkout / "loaders" / NAME / "README.md").read_text(encoding="utf-8").splitlines()
    assert [line for line in card if line.startswith("| distinct `text` values |")] == [
        "| distinct `text` values | `default` | distinct values of `text` (missing values not counted) |"]


@pytest.mark.parametrize("name,message", [
    ("MyCorpus", "corpora new: error: 'MyCorpus' is not a corpus name: lower-case words joined by _ (a Python module name)"),
    ("my-corpus", "corpora new: error: 'my-corpus' is not a corpus name: lower-case words joined by _ (a Python module name)"),
    ("global", "corpora new: error: 'global' is not a corpus name: it is a Python keyword, which cannot name a module"),
    ("async", "corpora new: error: 'async' is not a corpus name: it is a Python keyword, which cannot name a module"),
])
def test_a_name_that_is_not_a_module_name_is_refused(new, name, message):
    status, stderr = new(name)
    assert (status, stderr.strip()) == (1, message)


def test_a_taken_name_is_refused_and_nothing_is_written(checkout, new):
    (checkout / "dataset_cards" / f"{NAME}.yaml").write_text("# someone's own\n")
    before = sorted(p.relative_to(checkout).as_posix() for p in checkout.rglob("*"))
    status, stderr = new(NAME)
    assert (status, stderr.strip()) == (
        1, f"corpora new: error: {NAME}: dataset_cards/{NAME}.yaml already exist(s); choose another name"
    )
    assert sorted(p.relative_to(checkout).as_posix() for p in checkout.rglob("*")) == before
    assert (checkout / "dataset_cards" / f"{NAME}.yaml").read_text() == "# someone's own\n"


def test_a_word_the_shared_code_uses_is_refused_as_a_name(checkout, new):
    status, stderr = new("sentences")
    assert status == 1
    assert re.fullmatch(r"corpora new: error: sentences: the shared code already uses this word "
                        r"\(\S+:\d+, \S+:\d+, \S+:\d+ and \d+ more\); choose another name\n", stderr)
    assert not (checkout / "loaders" / "sentences").exists()


@pytest.mark.parametrize("full", ["loaders", "dataset_cards"])  # the first file written, and a later one
def test_a_full_disk_names_the_file_and_leaves_nothing(checkout, tmp_path, full):
    """The checkout's `full` folder on a tmpfs its files then fill (in a mount namespace of the
    command): the file `corpora new` writes there fails when its buffer is flushed."""
    folder = checkout / full
    kept = tmp_path / "kept"
    shutil.copytree(folder, kept)
    pages = sum(-(-p.stat().st_size // 4096) for p in kept.rglob("*") if p.is_file())
    prefix = namespace_with_tmpfs(folder, f"size={(pages + 64) * 4}k")
    argv = [sys.executable, "-m", "corpora.cli", "new", NAME]
    # Filled by dd up to ENOSPC; listed inside the namespace, before its tmpfs is gone.
    script = (f'cp -a "{kept}/." "{folder}" && {{ dd if=/dev/zero of="{folder}/.filler" bs=4096 2>/dev/null; true; }} '
              f'&& "$@"; code=$?; ls -A "{folder}"; exit $code')
    env = dict(os.environ, CORPORA_ROOT=str(checkout), HF_HOME=str(tmp_path / "hf-home"))
    result = subprocess.run([*prefix, "sh", "-c", script, "sh", *argv], cwd=checkout, env=env, capture_output=True,
                            text=True, check=False)
    file = {"loaders": f"loaders/{NAME}/{NAME}.py", "dataset_cards": f"dataset_cards/{NAME}.yaml"}[full]
    assert (result.returncode, result.stderr) == (1, f"corpora new: error: {checkout / file}: No space left on device\n")
    assert sorted(result.stdout.split()) == sorted([".filler", *os.listdir(kept)])
    assert not (checkout / "loaders" / NAME).exists() and not (checkout / "dummy_data" / NAME).exists()
