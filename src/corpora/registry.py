"""Finds every corpus: `loaders/<name>/<name>.py` and the builder class it defines."""

from __future__ import annotations

import collections
import functools
import hashlib
import importlib.util
import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from types import ModuleType

import datasets

from corpora import datasets_adapter
from corpora.errors import CorporaError
from corpora.loader_shared.builder_base import SourceConfig

# Where an installed package (wheel or sdist) carries the repository's top-level folders
# loaders/, dataset_cards/ and dummy_data/ (see setup.py).
INSTALLED_DATA = Path(__file__).resolve().parent / "_data"


def repo_root() -> Path:
    """The folder of loaders/, dataset_cards/ and dummy_data/: $CORPORA_ROOT, this checkout, or the installed copy."""
    if os.environ.get("CORPORA_ROOT"):
        return Path(os.environ["CORPORA_ROOT"])
    here = Path(__file__).resolve()
    if here.parent.parent.name == "src" and (here.parents[2] / "loaders").is_dir():
        return here.parents[2]
    return INSTALLED_DATA


def require_checkout(what: str) -> None:
    """Refuse to rewrite a file of the installed package: the next install would undo it."""
    if repo_root() == INSTALLED_DATA:
        raise CorporaError(
            f"{what} belongs to the installed package ({INSTALLED_DATA}); run this in a clone of the "
            "repository (an editable install: pip install -e .), or point CORPORA_ROOT at one "
            "(`CORPORA_ROOT=. corpora ...` in its root)"
        )


def unchecked_folder() -> Path | None:
    """The working folder, if it holds a collection that this command does not read (it reads the installed copy)."""
    here = Path.cwd()
    if repo_root() == INSTALLED_DATA and (here / "loaders").is_dir() and (here / "dataset_cards").is_dir():
        return here
    return None


@dataclass(frozen=True)
class Corpus:
    name: str
    module: ModuleType
    builder_class: type
    root: Path  # the collection it was found in (repo_root() when it was)

    @property
    def loader_dir(self) -> Path:
        return self.root / "loaders" / self.name

    @property
    def script(self) -> Path:
        return self.loader_dir / f"{self.name}.py"

    @property
    def card_path(self) -> Path:
        return self.loader_dir / "README.md"

    @property
    def card_source(self) -> Path:
        return self.root / "dataset_cards" / f"{self.name}.yaml"

    @property
    def dummy_dir(self) -> Path:
        return self.root / "dummy_data" / self.name

    @property
    def configs(self) -> list[str]:
        """The builder's configs, the default first (as `corpora list` and the card show them)."""
        names = [config.name for config in self.builder_class.BUILDER_CONFIGS]
        default = self.builder_class.DEFAULT_CONFIG_NAME or names[0]
        return [default] + [name for name in names if name != default]

    @property
    def default_config(self) -> str:
        return self.configs[0]

    def config(self, name: str):
        """The loader's config `name`: its files per split, official split sizes, natural key and
        description (the `SourceConfig` of loader_shared/builder_base.py)."""
        for config in self.builder_class.BUILDER_CONFIGS:
            if config.name == name:
                return config
        raise CorporaError(f"{self.name} has no config {name!r}; configs: {', '.join(self.configs)}")

    @property
    def version(self) -> str:
        """The loader's version, its builder's `VERSION` ("1.0.0"): what a release is tagged with."""
        return str(self.builder_class.VERSION)

    @property
    def split_sizes(self) -> dict[str, dict[str, int | None]]:
        """Official sizes per config and split, as the loader declares them (None: not known)."""
        return {name: dict(self.config(name).split_sizes) for name in self.configs}

    def key(self, config: str) -> list[str]:
        """The columns that identify a row of `config` (`corpora diff` matches rows by them)."""
        return list(self.config(config).key)

    # The builder's texts and each config's sources, read where the toolkit needs them (the card,
    # the croissant.json, the checksums): the contract (check_contract) guarantees each.
    def info(self, config: str | None = None) -> datasets.DatasetInfo:
        """The info the builder declares for `config` (default: the default config), without a builder."""
        return _declared_info(self.builder_class, config or self.default_config)

    @property
    def description(self) -> str:
        return self.info().description

    @property
    def homepage(self) -> str:
        return self.info().homepage

    @property
    def license(self) -> str:
        """The default config's license, its identifier as the Hub knows it ("mit", "cc-by-4.0"; "unknown")."""
        return self.info().license

    def license_of(self, config: str) -> str:
        return self.info(config).license

    @property
    def citation(self) -> str:
        return self.info().citation.strip()

    @property
    def urls(self) -> Mapping[str, str]:
        """Each source path of every config -> its pinned URL (read-only)."""
        urls = {}
        for config in self.builder_class.BUILDER_CONFIGS:
            urls.update(config.urls)
        return MappingProxyType(urls)

    def count_source_records(self, config: str, split: str, paths: list[str]) -> int:
        """The records of a split's source files, counted apart from the builder's typing: rows in."""
        return self.config(config).count_source_records(split, paths)

    @property
    def checksums_path(self) -> Path:
        return self.loader_dir / "checksums.tsv"

    def source_files(self, configs=None) -> list[str]:
        """The source paths the given configs (default: all) read, in the loader's order."""
        chosen = self.configs if configs is None else configs
        return list(dict.fromkeys(path for config in chosen for path in self.config(config).paths))

    def features(self, config: str) -> datasets.Features:
        """A config's features, without a builder (which makes cache folders and, on 3.6, reads the card)."""
        return self.info(config).features.copy()  # a copy: callers may change theirs

    def expected_dummy_counts(self) -> dict[str, dict[str, int]]:
        return json.loads((self.dummy_dir / "expected_counts.json").read_text())

    def builder(self, config=None, data_dir=None, cache_dir=None, writer_batch_size=None, **config_kwargs):
        """An instance of the builder, on datasets 3.6 and 5.x alike. `config_kwargs` set
        parameters of the config (datasets then gives it its own cache folder);
        `writer_batch_size` is the rows per written batch (Parquet: per row group)."""
        config = config or self.default_config
        builder = self.builder_class(
            config_name=config,
            data_dir=str(data_dir) if data_dir is not None else None,
            cache_dir=str(cache_dir) if cache_dir is not None else None,
            dataset_name=self.name,
            hash=self._cache_hash(config, data_dir),
            writer_batch_size=writer_batch_size,
            **config_kwargs,
        )
        # datasets 3.x presets the info from the committed card, official split sizes included,
        # and would stop any other build (the dummy data, a modified copy) with its own error;
        # corpora checks the official sizes itself, in words (prepare.check_official_sizes).
        builder.info.splits = None
        return builder

    def _cache_hash(self, config: str, data_dir) -> str:
        # The cache is valid while the loader (its script and the modules beside it) and the local
        # source files are unchanged; SourceBuilder adds the hash of the shared code it imports.
        digest = hashlib.sha256()
        for module in sorted(self.loader_dir.glob("*.py")):
            digest.update(module.name.encode() + b"\0" + module.read_bytes())
        if data_dir is not None:
            for path in self.source_files([config]):
                local = Path(data_dir) / path
                stat = local.stat() if local.is_file() else None  # a config parameter may not need it
                digest.update(f"{path}:{stat and stat.st_size}:{stat and stat.st_mtime_ns}".encode())
        return digest.hexdigest()[:16]


# Read once per builder class and config: a build asks for them at every step.
_declared_info = functools.lru_cache(maxsize=None)(datasets_adapter.declared_info)


def names() -> list[str]:
    loaders = repo_root() / "loaders"
    return sorted(p.name for p in loaders.iterdir() if (p / f"{p.name}.py").is_file())


# Loaders are imported as modules of a package per loader folder, `corpora_loaders_<root>.<name>`, so a
# loader may import a module beside it as `from ._name import x`, the form a datasets 3.x loading
# script may use. Each import has a package of its own (another collection's root, or a loader
# imported again after `forget`), so an earlier import's classes stay where pickling looks for them.
LOADERS_PACKAGE = "corpora_loaders"
_IMPORTS = collections.Counter()


def _package(name: str, path: Path | None) -> ModuleType:
    """The package module `name` searching `path` (each import's names are its own: nothing to forget)."""
    package = sys.modules.get(name) or ModuleType(name)
    package.__path__ = [str(path)] if path is not None else []
    sys.modules[name] = package
    return package


def get(name: str) -> Corpus:
    """The corpus `name` of the collection at repo_root() (imported once per collection)."""
    if name not in names():
        raise CorporaError(f"unknown corpus {name!r}; known: {', '.join(names())}")
    return _load(repo_root().resolve(), name)


def known(name: str) -> Corpus | None:
    """The corpus an export records, if this collection has it (else None: an export of another collection)."""
    return get(name) if name in names() else None


def forget() -> None:
    """Import loaders again at the next `get` (a loader file was edited in place)."""
    _load.cache_clear()


@functools.cache
def _load(root: Path, name: str) -> Corpus:
    script = root / "loaders" / name / f"{name}.py"
    _IMPORTS[root, name] += 1
    top = f"{LOADERS_PACKAGE}_{hashlib.sha256(str(root).encode()).hexdigest()[:12]}_{_IMPORTS[root, name]}"
    # Bound as attributes too, as a real import does: pickling (dill, for num_proc > 1) finds a
    # class by getattr along its module path.
    folder = _package(f"{top}.{name}", script.parent)
    setattr(_package(top, None), name, folder)
    # The module's last name is the corpus name: datasets derives the builder name from it.
    module_name = f"{top}.{name}.{name}"
    spec = importlib.util.spec_from_file_location(module_name, script)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    setattr(folder, name, module)
    try:
        spec.loader.exec_module(module)
    except ValueError as error:  # a config whose facts disagree (SourceConfig checks them when made)
        raise CorporaError(f"{script.relative_to(root)}: {error}") from error
    builders = [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, datasets.DatasetBuilder)
        and value.__module__ == module_name
    ]
    if len(builders) != 1:
        raise CorporaError(f"{script.relative_to(root)}: expected one builder class, found {len(builders)}")
    check_contract(f"loaders/{name}/{name}.py", builders[0])
    return Corpus(name=name, module=module, builder_class=builders[0], root=root)


# What every loader gives (README, "Add a corpus"): the toolkit reads these, so a loader without them
# stops here rather than in the middle of a build. Its builder's `_info` gives the texts (the license
# per config); each config is a `SourceConfig` with the facts of its own sources, whose files and
# official sizes it checks itself when it is made.
INFO_TEXTS = ("description", "homepage", "license", "citation")


def check_contract(label: str, builder_class: type) -> None:
    """Raise a CorporaError naming the loader file and every missing or ill-shaped fact."""
    wrong, lacking, urls = [], {fact: [] for fact in INFO_TEXTS}, {}
    configs = [config for config in builder_class.BUILDER_CONFIGS if isinstance(config, SourceConfig)]
    for config in builder_class.BUILDER_CONFIGS:
        if config not in configs:
            wrong.append(f"config {config.name!r} must be a SourceConfig (files, url_prefix, split_sizes, key, ...)")
            continue
        prefix = _text(config.url_prefix)
        if not prefix:
            wrong.append(f"config {config.name!r} must give url_prefix, the pinned URL of its files' root")
        if not callable(config.counter):
            wrong.append(f"config {config.name!r} must give counter, a function (config, split, paths) -> records")
        # A path has one URL: the one the checksums record is the one every config downloads.
        for path, url in config.urls.items() if prefix else ():
            other, first = urls.setdefault(path, (config.name, url))
            if first != url:
                wrong.append(f"configs {other!r} and {config.name!r} give {path} different URLs")
    for config in configs:
        try:
            info = _declared_info(builder_class, config.name)
        except Exception as error:  # the loader's own code, any error: named, once
            wrong.append(f"_info failed for config {config.name!r}: {type(error).__name__}: {error}")
            break
        for fact in INFO_TEXTS:
            if not _text(getattr(info, fact)):
                lacking[fact].append(repr(config.name))
        if not isinstance(info.features, datasets.Features):
            wrong.append(f"_info must give config {config.name!r} its features (datasets.Features)")
    for fact, names in lacking.items():
        if names:
            wrong.append(f"_info must give a {fact} (a non-empty string) for config(s) {', '.join(names)}")
    if wrong:
        raise CorporaError(f"{label}: " + "; ".join(wrong) + ' (README, "Add a corpus")')


def _text(value) -> bool:
    return isinstance(value, str) and bool(value.strip())


def all_corpora() -> list[Corpus]:
    return [get(name) for name in names()]
