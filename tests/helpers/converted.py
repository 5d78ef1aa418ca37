"""A converted export made in the test process from a script of tests/legacy_scripts/: the script's builder
imported from its folder (helper modules beside it), run with download_and_prepare on the files beside it,
its splits written as Parquet, and its card written by corpora.convert.card."""

from __future__ import annotations

import hashlib
import importlib
import inspect
import itertools
import sys
import types
from pathlib import Path

import datasets

from corpora import exports
from corpora.cards import figures
from corpora.convert import card
from corpora.export_folder import first_example
from corpora.export_folder import write_parquet

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


def convert_here(name: str, out: Path, downloads: list[str], script_folder: Path | None = None, asked_tasks=(),
                 repo_id=None, **options) -> Path:
    """OUT/NAME: the export of every config of tests/legacy_scripts/NAME (or `script_folder`), marked as
    exports.transaction marks one."""
    folder = Path(script_folder or LEGACY_SCRIPTS / name)
    cls = builder_class(folder)
    configs = [config.name for config in cls.BUILDER_CONFIGS] or ["default"]
    target = Path(out) / name
    infos, report, descriptions = {}, {}, {}
    for config in configs:
        kwargs = {"config_name": config} if cls.BUILDER_CONFIGS else {}
        builder = cls(cache_dir=str(Path(out) / f".cache-{name}"), base_path=str(folder), **kwargs)
        builder.download_and_prepare()
        statistics, example = {}, None
        for split, dataset in builder.as_dataset().items():
            table = dataset.with_format("arrow")[:]
            write_parquet(dataset, target / config, split)
            statistics[split] = figures.split_statistics(dataset.features, [table])
            example = example or first_example(table)
        infos[config] = builder.info
        descriptions[config] = builder.config.description
        report[config] = figures.ConfigReport(read={s: x.examples for s, x in statistics.items()},
                                              statistics=statistics, example=example)
    card.write(target, name, infos, report, provenance(folder, downloads, **options), card.original_of(folder),
               descriptions,
               getattr(cls, "DEFAULT_CONFIG_NAME", None), asked_tasks, repo_id)

    class Sources:
        kind = "dummy" if options.get("dummy") else "release"
        differing = ()

    exports._write_mark(target, name, configs, Sources())
    return target
