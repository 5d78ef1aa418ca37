"""A legacy loading script (`corpora convert SOURCE`): where it is, its module imported on the
installed datasets (never through load_dataset's script loader), its builder class and configs.

SOURCE is a folder NAME/ holding NAME.py (its helper modules beside it), the path of NAME.py, or
hf://datasets/OWNER/NAME[@REVISION] (the repository's files at that revision, through
huggingface_hub; a script is code, so it runs only with --trust-remote-code).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import itertools
import sys
from dataclasses import dataclass
from pathlib import Path

from corpora.errors import CorporaError

HF_PREFIX = "hf://datasets/"
DEFAULT_CONFIG = "default"  # the config of a builder without BUILDER_CONFIGS, as datasets names it
_PACKAGES = itertools.count(1)  # each import of a script is a package of its own


@dataclass(frozen=True)
class Script:
    name: str  # NAME: the script is NAME.py
    folder: Path  # the local folder holding NAME.py, its helper modules, README.md, dummy/
    source: str  # SOURCE as given
    revision: str | None = None  # the commit an hf:// SOURCE was read at

    @property
    def path(self) -> Path:
        return self.folder / f"{self.name}.py"

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.path.read_bytes()).hexdigest()

    @property
    def base_path(self) -> str:
        """What relative URLs resolve against: the script's folder (a copy of its repository)."""
        return str(self.folder)


def resolve(source: str, trust_remote_code: bool = False, dummy: bool = False) -> Script:
    """The script SOURCE names; an hf:// one is downloaded (its dummy/ folder only for `dummy`)."""
    if source.startswith("hf://"):
        return _from_hub(source, trust_remote_code, dummy)
    path = Path(source)
    if path.suffix == ".py":
        if not path.is_file():
            raise CorporaError(f"{source}: no such file")
        return Script(path.stem, path.parent, source)
    if not path.is_dir():
        raise CorporaError(f"{source}: no such folder (expected a folder NAME/ holding NAME.py, the path of NAME.py, "
                           f"or {HF_PREFIX}OWNER/NAME[@REVISION])")
    name = path.resolve().name
    if not (path / f"{name}.py").is_file():
        raise CorporaError(f"{source}: no {name}.py in it (a loading script is named after its folder)")
    return Script(name, path, source)


def _from_hub(source: str, trust_remote_code: bool, dummy: bool) -> Script:
    repo_id, _, revision = source.removeprefix(HF_PREFIX).partition("@")
    if not source.startswith(HF_PREFIX) or repo_id.count("/") != 1 or not all(repo_id.split("/")):
        raise CorporaError(f"{source}: expected {HF_PREFIX}OWNER/NAME or {HF_PREFIX}OWNER/NAME@REVISION")
    if not trust_remote_code:
        raise CorporaError(f"{source}: a loading script is code, and converting runs it: give --trust-remote-code "
                           "to run this one from the Hub, once you have read it and trust it")
    from huggingface_hub import snapshot_download

    from corpora import hub_client
    from corpora.errors import describe_failure

    hub_client.use_time_limit()
    try:
        folder = Path(snapshot_download(repo_id, repo_type="dataset", revision=revision or None,
                                        ignore_patterns=None if dummy else ["dummy/*"]))
    except Exception as error:  # noqa: BLE001 - not found, no connection, offline: one line
        raise CorporaError(f"{source}: cannot download it: {describe_failure(error)}") from error
    name = repo_id.split("/")[1]
    if not (folder / f"{name}.py").is_file():
        raise CorporaError(f"{source}: no {name}.py in the repository (a loading script is named after it)")
    return Script(name, folder, source, revision=folder.name)  # huggingface_hub's snapshot folder: the commit


def import_module(script: Script):
    """The script's module, imported on the installed datasets as `<package>.NAME`, where the
    package is the script's folder under a name of its own: its relative imports (`from .utils
    import x`) find the helper modules beside it. Call it inside `datasets_adapter.legacy_names()`."""
    package = f"corpora_script_{next(_PACKAGES)}_{script.sha256[:12]}"
    spec = importlib.util.spec_from_loader(package, loader=None, is_package=True)
    module = importlib.util.module_from_spec(spec)
    module.__path__ = [str(script.folder.resolve())]
    sys.modules[package] = module
    writes_bytecode = sys.dont_write_bytecode
    sys.dont_write_bytecode = True  # no __pycache__ left in the user's folder (or in the Hub cache)
    try:
        return importlib.import_module(f"{package}.{script.name}")
    except ModuleNotFoundError as error:
        raise CorporaError(_missing_module(script, package, error)) from error
    except ImportError as error:
        import datasets

        raise CorporaError(f"{script.path}: {error} (datasets {datasets.__version__}; the converter has no "
                           "stand-in for it)") from error
    finally:
        sys.dont_write_bytecode = writes_bytecode


def _missing_module(script: Script, package: str, error: ModuleNotFoundError) -> str:
    missing = error.name or ""
    if missing.startswith(package + "."):
        helper = missing.removeprefix(package + ".").replace(".", "/")
        return f"{script.path}: imports its helper module {helper}.py, which is not beside it in {script.folder}"
    return (f"{script.path}: needs the Python module {missing!r}, which is not installed: install the package "
            "that provides it, then convert again")


def builder_class(module):
    """The script's builder class, chosen as datasets chose it: the first DatasetBuilder subclass
    defined in the module that is not abstract (else the last one it imports)."""
    import datasets

    found = None
    for value in vars(module).values():
        if inspect.isclass(value) and issubclass(value, datasets.DatasetBuilder) and not inspect.isabstract(value):
            if value in (datasets.DatasetBuilder, datasets.GeneratorBasedBuilder, datasets.ArrowBasedBuilder):
                continue
            found = value
            if inspect.getmodule(value) is module:
                break
    if found is None:
        raise CorporaError(f"{module.__file__}: defines no datasets.DatasetBuilder class")
    return found


def config_names(builder) -> list[str]:
    """The names of BUILDER_CONFIGS, in order, or `default` for a builder without them."""
    names = [config.name for config in builder.BUILDER_CONFIGS]
    if len(set(names)) != len(names):
        raise CorporaError(f"{builder.__name__}: BUILDER_CONFIGS names a config twice: {names}")
    return names or [DEFAULT_CONFIG]


def make_builder(script: Script, builder, config: str, cache_dir, data_dir=None, storage_options=None):
    """An instance of the builder class for `config`, with what datasets' loader gave it: the
    dataset's name, the base path for relative URLs, and `data_dir` (its manual_dir); its downloads
    with `storage_options` (fsspec's, by protocol)."""
    from corpora import datasets_adapter

    instance = builder(config_name=None if not builder.BUILDER_CONFIGS else config, cache_dir=str(cache_dir),
                       dataset_name=script.name, base_path=script.base_path,
                       data_dir=None if data_dir is None else str(data_dir), storage_options=storage_options)
    datasets_adapter.legacy_builder(instance)
    return instance
