"""The GitHub Action (action.yml) and the pre-commit hook (.pre-commit-hooks.yaml) of
docs/validating_in_ci.md, run as written in a fresh clone of this repository.

The clone is of the commit checked out, with the working tree's changes copied over (what `git
status` shows: a test of what you have, not of the last commit). Each `run:` step of the action
runs with bash as GitHub runs a composite step (`bash --noprofile --norc -eo pipefail`), after the
`${{ ... }}` expressions the file uses are replaced as Actions replaces them (any other expression
fails the test). Its Python is a fresh virtual environment that finds this environment's packages
through a .pth file: the action's `pip install` builds and installs the clone without the network
(PIP_NO_INDEX, no build isolation), and nothing of this checkout is on its path. One leg is enough
(the action and the hook are the same on every datasets version)."""

import os
import re
import shlex
import shutil
import site
import subprocess
import sys
import venv
from pathlib import Path

import pytest
import yaml

from corpora import registry
from helpers import REPO
from helpers import quickest_corpus

pytestmark = pytest.mark.datasets5

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
ACTION = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
HOOKS = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))


BROKEN = quickest_corpus()  # the corpus whose card source a test breaks: the quickest to build


def fresh_clone(target: Path) -> Path:
    """A `git clone` of this repository with the working tree's changes (added, changed, deleted) copied in."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(target)], check=True)
    def listed(*argv):
        return filter(None, subprocess.run(["git", *argv, "-z"], cwd=REPO, capture_output=True,
                                           check=True).stdout.decode().split("\0"))

    # changed since the commit (staged or not, deleted too), and new files git would add
    for path in [*listed("diff", "--name-only", "HEAD"), *listed("ls-files", "--others", "--exclude-standard")]:
        if (REPO / path).is_file():
            (target / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / path, target / path)
        else:
            (target / path).unlink(missing_ok=True)
    return target


def substitute(text: str, values: dict[str, str]) -> str:
    """`text` with each `${{ name }}` replaced by values[name], as Actions does before a step runs."""
    def value(match):
        assert match.group(1) in values, f"an expression this test does not replace: {match.group(0)}"
        return values[match.group(1)]

    return EXPRESSION.sub(value, text)


def environment(python_bin: Path, tmp_path: Path) -> dict[str, str]:
    """The runner's environment: the fresh Python first on PATH (what actions/setup-python does),
    no network for pip, a Hugging Face home of the test's own."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("CORPORA_ROOT", "HF_TOKEN", "VIRTUAL_ENV", "PYTHONPATH")}
    env.update(PATH=f"{python_bin}{os.pathsep}{env['PATH']}", HF_HOME=str(tmp_path / "hf-home"), PIP_NO_INDEX="1",
               PIP_NO_BUILD_ISOLATION="0")  # pip reads this variable inverted: "0" turns isolation off
    return env


def expressions(action_path: Path, with_=None) -> dict[str, str]:
    """The values of the expressions of a job's `uses: <action_path>` with `with_`: its inputs, their defaults."""
    inputs = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    assert set(with_ or {}) <= set(inputs), f"inputs the action does not take: {set(with_) - set(inputs)}"
    inputs.update(with_ or {})
    return {"github.action_path": str(action_path), **{f"inputs.{name}": value for name, value in inputs.items()}}


def python_asked(with_=None) -> str:
    """The Python version the action's actions/setup-python step asks for."""
    (setup,) = [step for step in ACTION["runs"]["steps"] if "uses" in step]
    assert setup["uses"].startswith("actions/setup-python@"), setup
    return substitute(str(setup["with"]["python-version"]), expressions(Path("."), with_))


def run_action(action_path: Path, workspace: Path, env: dict[str, str], with_=None, steps=None):
    """Run the action's steps (all, or the `steps` named) as a job would: `uses: <action_path>`
    with `with_`, in `workspace`. Returns the last step's CompletedProcess (Actions stops at the first failure)."""
    values = expressions(action_path, with_)
    result = None
    for step in ACTION["runs"]["steps"]:
        if "uses" in step:
            # actions/setup-python: puts the Python asked on PATH; here that is the fresh virtual environment.
            found = subprocess.run(["python", "-c", "import sys; print('%d.%d' % sys.version_info[:2])"], env=env,
                                   capture_output=True, text=True, check=True).stdout.strip()
            assert found == python_asked(with_), f"the job's Python is {found}, the step asks for {python_asked(with_)}"
            continue
        if steps is not None and step["name"] not in steps:
            continue
        assert step["shell"] == "bash", step
        script = workspace.parent / f"step-{os.getpid()}.sh"
        script.write_text(substitute(step["run"], values))
        step_env = {**env, **{key: substitute(str(value), values) for key, value in step.get("env", {}).items()}}
        result = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=workspace,
                                env=step_env, capture_output=True, text=True, check=False, timeout=300)
        if result.returncode:
            break
    return result


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    """A job using the action on a clean clone of this repository (`uses: ./`, its defaults: every
    corpus): the fresh Python, the clone, and the result of the action's steps."""
    root = tmp_path_factory.mktemp("job")
    python = root / "python"
    venv.create(python, with_pip=False)  # pip and setuptools are this environment's, through the .pth file
    purelib = subprocess.run([str(python / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "test_dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    clone = fresh_clone(root / "corpora")
    env = environment(python / "bin", root)
    # The Python that stands for setup-python's is this one: the version the job asks for.
    return python / "bin", clone, env, run_action(clone, clone, env, {"python-version": THIS_PYTHON})


THIS_PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"


def test_the_action_validates_every_corpus_of_a_clean_clone(job):
    python_bin, clone, _, result = job
    assert result.returncode == 0, result.stderr
    expected = []
    for name in registry.names():
        corpus = registry.get(name)
        expected += [f"{name}: dummy build {config}: ok" for config in corpus.configs]
        expected += [f"{name}: card: ok", f"{name}: export round trip: ok"]
    assert result.stdout.splitlines() == expected
    # It ran the corpora the action installed, not this checkout's.
    where = subprocess.run([str(python_bin / "python"), "-c", "import corpora; print(corpora.__file__)"],
                           capture_output=True, text=True, check=True).stdout
    assert where.startswith(str(python_bin.parent)), where


def break_a_card(clone: Path) -> None:
    """dataset_cards/<BROKEN>.yaml with another pretty_name, its README.md not regenerated (no `make cards`)."""
    source = clone / "dataset_cards" / f"{BROKEN}.yaml"
    text = source.read_text(encoding="utf-8")
    assert text.count("\npretty_name: ") == 1
    source.write_text(re.sub(r"\npretty_name: .*", "\npretty_name: Renamed", text), encoding="utf-8")


def test_a_broken_card_in_the_repository_fails_the_step(job, tmp_path):
    """The repository of the job is another clone (a maintainer's fork) with a card out of date; the
    action, at its own clean checkout, checks the repository it runs in, not the copy it installed."""
    python_bin, action_clone, env, _ = job
    fork = fresh_clone(tmp_path / "fork")
    passed = run_action(action_clone, fork, env, {"corpora": BROKEN}, steps=["corpora validate"])
    assert (passed.returncode, passed.stderr) == (0, ""), passed.stderr
    builds = [f"{BROKEN}: dummy build {config}: ok" for config in registry.get(BROKEN).configs]
    assert passed.stdout.splitlines() == [*builds, f"{BROKEN}: card: ok", f"{BROKEN}: export round trip: ok"]
    break_a_card(fork)
    failed = run_action(action_clone, fork, env, {"corpora": BROKEN}, steps=["corpora validate"])
    assert (failed.returncode, failed.stderr) == (1, "")
    assert failed.stdout.splitlines() == [
        *builds,
        f"{BROKEN}: card: FAILED: loaders/{BROKEN}/README.md is out of date: run `corpora card {BROKEN}`",
        f"{BROKEN}: export round trip: ok",
    ]


def test_the_action_validates_an_export_folder(job, tmp_path):
    from corpora.cli import main

    _, action_clone, env, _ = job
    workspace = tmp_path / "exports"
    workspace.mkdir()
    assert main(["build", BROKEN, "--dummy", "--out", str(workspace / "build")]) == 0
    result = run_action(action_clone, workspace, env, {"corpora": f"build/{BROKEN}"}, steps=["corpora validate"])
    assert (result.returncode, result.stderr) == (0, ""), result.stderr
    checks = ["mark", "card", "files", "croissant.json", "parquet files", *(f"reload {c}" for c in registry.get(BROKEN).configs)]
    assert result.stdout.splitlines() == [f"build/{BROKEN}: {check}: ok" for check in checks]
    (workspace / "build" / BROKEN / "notes.txt").write_text("not part of the export\n")
    refused = run_action(action_clone, workspace, env, {"corpora": f"build/{BROKEN}"}, steps=["corpora validate"])
    assert (refused.returncode, refused.stderr) == (1, "")
    stray = "FAILED: not part of the export, and an upload would publish them: notes.txt"
    assert refused.stdout.splitlines() == [f"build/{BROKEN}: {check}: {stray if check == 'files' else 'ok'}" for check in checks]


def test_the_action_sets_up_the_python_version_asked(job):
    assert (python_asked(), python_asked({"python-version": "3.12"})) == ("3.11", "3.12")
    # The job above ran on this Python because it asked for it: another version is not what runs here.
    _, clone, env, _ = job
    with pytest.raises(AssertionError, match=re.escape(f"the job's Python is {THIS_PYTHON}, the step asks for 3.9")):
        run_action(clone, clone, env, {"python-version": "3.9"}, steps=[])


def test_an_expression_the_test_does_not_know_fails():
    with pytest.raises(AssertionError, match=re.escape("${{ secrets.HF_TOKEN }}")):
        substitute("echo ${{ secrets.HF_TOKEN }}", {"inputs.corpora": "--all"})


def run_hook(python_bin: Path, clone: Path, env: dict[str, str]):
    """The hook's entry and args, in the repository's root, as pre-commit runs them (pass_filenames: false)."""
    (hook,) = HOOKS
    argv = shlex.split(hook["entry"]) + list(hook.get("args", []))
    return subprocess.run(argv, cwd=clone, env=env, capture_output=True, text=True, check=False, timeout=300)


def test_the_pre_commit_hook_checks_the_cards_of_the_repository(job, tmp_path):
    python_bin, _, env, _ = job
    (hook,) = HOOKS
    assert (hook["id"], hook["language"], hook["pass_filenames"], hook["args"]) == (
        "corpora-card-check", "python", False, ["--all"])
    runs_on = re.compile(hook["files"])
    assert [path for path in [f"dataset_cards/{BROKEN}.yaml", f"loaders/{BROKEN}/{BROKEN}.py", f"dummy_data/{BROKEN}/expected_counts.json",
                              "src/corpora/cli.py", "README.md"] if runs_on.search(path)] == [
        f"dataset_cards/{BROKEN}.yaml", f"loaders/{BROKEN}/{BROKEN}.py", f"dummy_data/{BROKEN}/expected_counts.json"]
    # pre-commit installs the hook's repository (a normal install, as the action's step did) and runs it in the root.
    clone = fresh_clone(tmp_path / "repository")
    clean = run_hook(python_bin, clone, env)
    assert (clean.returncode, clean.stderr) == (0, ""), clean.stderr
    assert clean.stdout.splitlines() == [f"{name}: card up to date" for name in registry.names()]
    break_a_card(clone)
    stale = run_hook(python_bin, clone, env)
    assert stale.returncode == 1
    assert stale.stderr == f"README.md of {BROKEN} is out of date: run `corpora card {BROKEN}`\n"
    assert "+pretty_name: Renamed" in stale.stdout


def test_the_docs_paste_the_action_and_the_hook_as_they_are():
    """docs/validating_in_ci.md: the step that uses the action passes inputs it takes, and the
    pre-commit entry names the hook this repository defines."""
    page = (REPO / "docs" / "validating_in_ci.md").read_text(encoding="utf-8")
    documents = [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", page, flags=re.S)]
    steps = [step for document in documents for job in document.get("jobs", {}).values() for step in job["steps"]]
    (uses,) = [step for step in steps if step.get("uses", "").startswith("<owner>/corpora@")]
    assert (sorted(uses), uses["uses"], uses["with"]["datasets-version"]) == (["uses", "with"], "<owner>/corpora@<tag>",
                                                                             ">=4,<5")
    assert uses["with"]["corpora"] in registry.names()  # a corpus of the collection (this file names none)
    assert set(uses["with"]) == set(ACTION["inputs"])
    assert ACTION["inputs"]["datasets-version"]["default"] == ">=5,<6"  # the page says so
    assert (uses["with"]["python-version"], ACTION["inputs"]["python-version"]["default"]) == ("3.12", "3.11")
    (config,) = [document for document in documents if "repos" in document]
    assert config == {"repos": [{"repo": "https://github.com/<owner>/corpora", "rev": "<tag>",
                                 "hooks": [{"id": HOOKS[0]["id"]}]}]}
    assert f"`{HOOKS[0]['entry']} {' '.join(HOOKS[0]['args'])}`" in page.replace("\n", " ")
