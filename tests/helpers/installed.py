"""The package as a user installs it: its wheel and sdist built from what the repository tracks,
and a fresh virtual environment with the wheel installed (fixtures of tests/test_install.py and
tests/test_script_loading.py, each building its own)."""

import site
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from .collection import REPO

SHIPPED = ["loaders", "dataset_cards", "dummy_data"]


def data_files():
    """Every file of the three folders, relative to the repository (what the package carries)."""
    files = []
    for folder in SHIPPED:
        files += [p.relative_to(REPO).as_posix() for p in (REPO / folder).rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts]
    return sorted(files)


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """A copy of what the repository tracks, which setuptools builds from."""
    import shutil

    source = tmp_path_factory.mktemp("source")
    for name in ["pyproject.toml", "setup.py", "README.md"]:
        shutil.copy(REPO / name, source / name)
    for folder in ["src", *SHIPPED]:
        shutil.copytree(REPO / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    return source


def built(source: Path, hook: str, out: Path) -> Path:
    """What setuptools' `hook` (build_wheel, build_sdist) writes into `out`, in a process of its own
    (setuptools keeps state between builds)."""
    script = f"import sys; from setuptools import build_meta; print(build_meta.{hook}(sys.argv[1]))"
    result = subprocess.run([sys.executable, "-c", script, str(out)], cwd=source, capture_output=True, text=True,
                            check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    # setuptools warns of data folders it was not given as packages, and says it will stop
    # shipping them (setup.py lists every one)
    assert "absent from the `packages` configuration" not in result.stderr, result.stderr[-3000:]
    assert not (source / "build").exists()  # where `corpora build` exports by default
    return out / result.stdout.splitlines()[-1]


@pytest.fixture(scope="module")
def wheel(source, tmp_path_factory) -> Path:
    """The wheel built from the copy (the sdist is built only where a test asks for it)."""
    path = built(source, "build_wheel", tmp_path_factory.mktemp("wheel"))
    assert path.name == "corpora-0.1.0-py3-none-any.whl"
    assert (source / ".cache" / "setuptools-build").is_dir()  # where setuptools builds instead of build/
    return path


@pytest.fixture(scope="module")
def sdist(source, tmp_path_factory) -> Path:
    path = built(source, "build_sdist", tmp_path_factory.mktemp("sdist"))
    assert path.name == "corpora-0.1.0.tar.gz"
    return path


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory):
    """A fresh virtual environment with the wheel installed; returns its bin folder."""
    env = tmp_path_factory.mktemp("venv")
    venv.create(env)  # without pip of its own: this environment's pip installs into it (--python)
    python = env / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    # The dependencies: this environment's site-packages, after the fresh one's own.
    Path(purelib, "test_dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    result = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
                             "--no-index", str(wheel)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    return env / "bin"


def fresh(cwd: Path, **env) -> dict:
    """run_process's options for a command of the fresh environment, run in `cwd`: offline, its own
    Hugging Face home there, neither this run's collection (CORPORA_ROOT) nor a token; `env` added."""
    return dict(cwd=cwd, env={"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_HOME": str(cwd / "hf-home"), **env},
                without=("CORPORA_ROOT", "HF_TOKEN"))
