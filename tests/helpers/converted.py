"""A converted export made in the test process from a script of tests/legacy_scripts/: the script's builder
imported from its folder (helper modules beside it), run with download_and_prepare on the files beside it,
exported by the shared pipeline (corpora.pipeline) with the card of corpora.convert.card: what `corpora convert`
does, before its command lands."""

from __future__ import annotations

import hashlib
import importlib
import inspect
import itertools
import sys
import types
from pathlib import Path

import datasets

from corpora import datasets_adapter
from corpora import pipeline
from corpora.convert import card
from corpora.convert import dummy
from corpora.convert import script

LEGACY_SCRIPTS = Path(__file__).parent.parent / "legacy_scripts"
_imported = itertools.count()


def builder_class(folder: Path) -> type[datasets.DatasetBuilder]:
    """The builder class of NAME/NAME.py, imported as a package of its own (its helper modules beside it)."""
    package = types.ModuleType(f"legacy_script_{folder.name}_{next(_imported)}")
    package.__path__ = [str(folder)]
    sys.modules[package.__name__] = package
    module = importlib.import_module(f"{package.__name__}.{folder.name}")
    return next(value for value in vars(module).values() if inspect.isclass(value)
                and issubclass(value, datasets.DatasetBuilder) and value.__module__ == module.__name__)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def provenance(folder: Path, downloads: list[str], **options) -> card.Provenance:
    name = folder.name
    return card.Provenance(
        name=name, source=options.pop("source", card.source_of(str(folder), name)),
        files=card.files_read(folder, name), datasets_version=datasets.__version__,
        downloads={url: sha256(folder / url) for url in downloads}, **options)


class ScriptParts(pipeline.Parts):
    """A legacy script's export through the shared pipeline: its builder on the files beside it, the converted card."""

    def __init__(self, folder: Path, cls, downloads: list[str], asked_tasks, options: dict):
        self.folder, self.cls, self.downloads, self.asked_tasks, self.options = folder, cls, downloads, asked_tasks, options

    def find_sources(self):
        return pipeline.FoundSources("dummy" if self.options.get("dummy") else "release")

    def make_builder(self, config, sources, cache_dir):
        kwargs = {"config_name": config} if self.cls.BUILDER_CONFIGS else {}
        return self.cls(cache_dir=str(cache_dir), base_path=str(self.folder), **kwargs)

    def write_card(self, folder, infos, report, sources, repo_id, export_path):
        descriptions = {config.name: config.description for config in self.cls.BUILDER_CONFIGS}
        card.write(folder, self.folder.name, infos, report, provenance(self.folder, self.downloads, **self.options),
                   card.original_of(self.folder), descriptions, getattr(self.cls, "DEFAULT_CONFIG_NAME", None),
                   self.asked_tasks, repo_id, export_path)


def convert_here(name: str, out: Path, downloads: list[str], script_folder: Path | None = None, asked_tasks=(),
                 repo_id=None, **options) -> Path:
    """OUT/NAME: the export of every config of tests/legacy_scripts/NAME (or `script_folder`) by the pipeline."""
    folder = Path(script_folder or LEGACY_SCRIPTS / name)
    cls = builder_class(folder)
    configs = tuple(config.name for config in cls.BUILDER_CONFIGS) or ("default",)
    parts = ScriptParts(folder, cls, downloads, asked_tasks, dict(options))
    pipeline.run(pipeline.Export(name, configs, parts), out, repo_id=repo_id)
    return Path(out) / name


class DummyParts(ScriptParts):
    """A script run on its own dummy data (corpora.convert.dummy), its builder made as `corpora convert` makes it."""

    def __init__(self, found, cls, cache: Path, asked_tasks=()):
        super().__init__(found.folder, cls, [], asked_tasks, {"dummy": True})
        self.found, self.cache = found, cache

    def make_builder(self, config, sources, cache_dir):
        return script.make_builder(self.found, self.cls, config, cache_dir)

    def generate(self, builder, config, sources, num_proc):
        source = dummy.dummy_data(self.found.folder, config if self.cls.BUILDER_CONFIGS else None,
                                  builder.config.version)
        manager = dummy.DummyDownloadManager(source, self.cache / config)
        dummy.forget_release_sizes(builder)
        builder.download_and_prepare(dl_manager=manager, verification_mode=datasets.VerificationMode.NO_CHECKS)
        return {split: info.num_examples for split, info in builder.info.splits.items()}


def convert_dummy(folder: Path, out: Path) -> Path:
    """OUT/NAME: the export of a script folder (helpers.legacy.legacy_script) on its dummy
    data, with the stand-ins for removed names in place while it runs."""
    with datasets_adapter.legacy_names():
        found = script.resolve(str(folder))
        cls = script.builder_class(script.import_module(found))
        parts = DummyParts(found, cls, Path(out) / f".dummy-{found.name}")
        pipeline.run(pipeline.Export(found.name, tuple(script.config_names(cls)), parts), out)
    return Path(out) / found.name
