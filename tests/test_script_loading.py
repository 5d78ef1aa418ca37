"""Leg 2 (datasets 3.6): the loader files work alone as loading scripts, and an export written
by datasets 5.x loads here. Skipped in the datasets 5.x leg, which cannot run scripts.

The committed card beside each script holds the official split sizes, which datasets 3.x checks
every build against: the dummy data, whose sizes are not the official ones, loads with
verification_mode="no_checks" (test_load.py shows the check refusing it otherwise)."""

import json
import os
from pathlib import Path

import datasets
import pytest

from corpora import registry
from corpora import validate
from helpers import CASES
from helpers import COLLECTION
from helpers import run_process
from helpers.installed import fresh

pytestmark = pytest.mark.datasets3


@pytest.mark.parametrize("name,config", CASES, ids=[f"{n}-{c}" for n, c in CASES])
def test_load_dataset_runs_the_loader_script(name, config, dummy_build, tmp_path, monkeypatch):
    monkeypatch.chdir(COLLECTION)  # the relative paths a user types
    # The default config is loaded without naming it, as a user would.
    named = None if config == registry.get(name).default_config else config
    loaded = datasets.load_dataset(
        f"loaders/{name}", named, data_dir=f"dummy_data/{name}", trust_remote_code=True, cache_dir=str(tmp_path),
        verification_mode="no_checks",
    )
    assert validate.compare(dummy_build(name, config), loaded) is None
    expected = registry.get(name).expected_dummy_counts()[config]
    assert {split: loaded[split].num_rows for split in loaded} == expected
    # the modules the loader imports relatively were copied beside the script
    copied = Path(datasets.config.HF_MODULES_CACHE).glob(f"datasets_modules/datasets/{name}/*/*.py")
    assert {path.name for path in registry.get(name).loader_dir.glob("*.py")} <= {path.name for path in copied}


def test_load_dataset_runs_a_loader_of_the_installed_wheel(installed, dummy_build, tmp_path):
    # The loader that the wheel carries imports the shared code from the package installed with it.
    name = registry.names()[0]  # any corpus of the collection will do
    script = (
        "import json, corpora, datasets\n"
        "from pathlib import Path\n"
        "data = Path(corpora.__file__).parent / '_data'\n"
        f"loaded = datasets.load_dataset(str(data / 'loaders' / {name!r}), data_dir=str(data / 'dummy_data' / {name!r}), "
        "trust_remote_code=True, verification_mode='no_checks')\n"
        "print(json.dumps([corpora.__file__, {split: loaded[split].to_list() for split in loaded}], default=str))\n"
    )
    result = run_process([installed / "python", "-c", script], **fresh(tmp_path))
    assert result.returncode == 0, result.stderr[-3000:]
    module, rows = json.loads(result.stdout.splitlines()[-1])
    assert module.startswith(str(installed.parent))  # the installed copy
    built = dummy_build(name, registry.get(name).default_config)
    assert rows == json.loads(json.dumps({split: built[split].to_list() for split in built}, default=str))


@pytest.mark.parametrize("name", sorted({name for name, _ in CASES}))
def test_the_script_s_main_class_is_its_builder(name, tmp_path, monkeypatch):
    # datasets 3.6's import_main_class takes the first DatasetBuilder subclass of the script's
    # module that the module defines: the shared base SourceBuilder is a mixin, not a builder,
    # and SourceConfig a config, so neither can be taken for the loader's builder.
    from datasets.load import dataset_module_factory
    from datasets.load import import_main_class

    monkeypatch.chdir(COLLECTION)
    module = dataset_module_factory(f"loaders/{name}", trust_remote_code=True, cache_dir=str(tmp_path))
    builder_class = import_main_class(module.module_path)
    corpus = registry.get(name)
    assert builder_class.__name__ == corpus.builder_class.__name__
    assert builder_class.__module__ == module.module_path
    assert [c.name for c in builder_class.BUILDER_CONFIGS] == [c.name for c in corpus.builder_class.BUILDER_CONFIGS]
    assert [(dict(c.files), dict(c.split_sizes), c.key) for c in builder_class.BUILDER_CONFIGS] == [
        (dict(corpus.config(c).files), corpus.split_sizes[c], tuple(corpus.key(c))) for c in [c.name for c in corpus.builder_class.BUILDER_CONFIGS]
    ]


@pytest.mark.parametrize("name,config", CASES, ids=[f"{n}-{c}" for n, c in CASES])
def test_load_dataset_script_streaming(name, config, dummy_build, monkeypatch):
    monkeypatch.chdir(COLLECTION)
    streamed = datasets.load_dataset(
        f"loaders/{name}", config, data_dir=f"dummy_data/{name}", trust_remote_code=True, streaming=True
    )
    for split, prepared in dummy_build(name, config).items():
        assert list(streamed[split]) == prepared.to_list(), split


@pytest.mark.skipif("CORPORA_DATASETS5_PYTHON" not in os.environ, reason="needs the datasets 5.x venv (make test)")
@pytest.mark.parametrize("name", registry.names())
def test_export_written_by_datasets5_loads_here(name, dummy_build, written_by_datasets5, tmp_path):
    for config in registry.get(name).configs:
        reloaded = datasets.load_dataset(str(written_by_datasets5 / "build" / name), config, cache_dir=str(tmp_path / "cache"))
        assert validate.compare(dummy_build(name, config), reloaded) is None
