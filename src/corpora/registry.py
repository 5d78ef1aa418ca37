"""Finds every corpus: `loaders/<name>/<name>.py` and the builder class it defines."""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import datasets

from corpora.errors import CorporaError


def repo_root() -> Path:
    """The checkout that holds `loaders/`: $CORPORA_ROOT, else the one this package lives in."""
    if os.environ.get("CORPORA_ROOT"):
        return Path(os.environ["CORPORA_ROOT"])
    return Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Corpus:
    name: str
    module: ModuleType
    builder_class: type

    @property
    def loader_dir(self) -> Path:
        return repo_root() / "loaders" / self.name

    @property
    def script(self) -> Path:
        return self.loader_dir / f"{self.name}.py"

    @property
    def card_path(self) -> Path:
        return self.loader_dir / "README.md"

    @property
    def card_source(self) -> Path:
        return repo_root() / "dataset_cards" / f"{self.name}.yaml"

    @property
    def dummy_dir(self) -> Path:
        return repo_root() / "dummy_data" / self.name

    @property
    def configs(self) -> list[str]:
        return [config.name for config in self.builder_class.BUILDER_CONFIGS]

    @property
    def default_config(self) -> str:
        return self.builder_class.DEFAULT_CONFIG_NAME or self.configs[0]

    @property
    def split_sizes(self) -> dict[str, dict[str, int]]:
        """Official sizes per config and split, as the loader declares them."""
        return self.module._SPLIT_SIZES

    @property
    def source_files(self) -> list[str]:
        """Paths, relative to the upstream repository root, of every file the loader reads."""
        files = self.module._FILES
        paths = []
        for value in files.values():
            if isinstance(value, str):  # flat: {split: path}
                paths.append(value)
            else:  # nested: {config: {split: [path, ...]}}
                paths += [path for split_paths in value.values() for path in split_paths]
        return list(dict.fromkeys(paths))

    def features(self, config: str) -> datasets.Features:
        """The declared features of a config, without instantiating the builder (which would
        create cache folders and, on datasets 3.6, read the generated card)."""
        builder = self.builder_class.__new__(self.builder_class)
        builder.config = next(c for c in self.builder_class.BUILDER_CONFIGS if c.name == config)
        return builder._info().features

    def expected_dummy_counts(self) -> dict[str, dict[str, int]]:
        return json.loads((self.dummy_dir / "expected_counts.json").read_text())

    def builder(self, config: str | None = None, data_dir: str | os.PathLike | None = None, cache_dir=None,
                **config_kwargs):
        """An instance of the builder, on datasets 3.6 and 5.x alike."""
        return self.builder_class(
            **config_kwargs,
            config_name=config or self.default_config,
            data_dir=str(data_dir) if data_dir is not None else None,
            cache_dir=str(cache_dir) if cache_dir is not None else None,
            dataset_name=self.name,
            hash=self._cache_hash(data_dir),
        )

    def _cache_hash(self, data_dir) -> str:
        # The cache is valid while the loader and the local source files are unchanged.
        digest = hashlib.sha256(self.script.read_bytes())
        if data_dir is not None:
            for path in self.source_files:
                stat = (Path(data_dir) / path).stat()
                digest.update(f"{path}:{stat.st_size}:{stat.st_mtime_ns}".encode())
        return digest.hexdigest()[:16]


def names() -> list[str]:
    loaders = repo_root() / "loaders"
    return sorted(p.name for p in loaders.iterdir() if (p / f"{p.name}.py").is_file())


@functools.cache
def get(name: str) -> Corpus:
    if name not in names():
        raise CorporaError(f"unknown corpus {name!r}; known: {', '.join(names())}")
    script = repo_root() / "loaders" / name / f"{name}.py"
    # Registered under the corpus name: datasets derives the builder name from the module name
    # and patches `open` in that module for streaming.
    spec = importlib.util.spec_from_file_location(name, script)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    builders = [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, datasets.DatasetBuilder)
        and value.__module__ == name
    ]
    if len(builders) != 1:
        raise CorporaError(f"{script.relative_to(repo_root())}: expected one builder class, found {len(builders)}")
    return Corpus(name=name, module=module, builder_class=builders[0])


def all_corpora() -> list[Corpus]:
    return [get(name) for name in names()]
