"""The legacy-style scripts of tests/legacy_scripts/ as a maintainer has them: a copy, its
dummy/.../dummy_data/ folders as they are (--dummy reads them) or zipped into the dummy_data.zip
beside each; and the rows a script gives, converted here at the builder level."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import datasets

from corpora import datasets_adapter
from corpora.convert import dummy
from corpora.convert import script

LEGACY_SCRIPTS = Path(__file__).parent.parent / "legacy_scripts"


def legacy_script(name: str, where: Path, zipped: bool = False) -> Path:
    """A copy of tests/legacy_scripts/NAME in `where`; `zipped`: each dummy_data/ folder zipped,
    members `dummy_data/` then its folders and files in sorted order, or the order a zip_order.txt
    beside it lists (paths inside dummy_data/<the one folder in it>/)."""
    target = Path(where) / name
    shutil.copytree(LEGACY_SCRIPTS / name, target, ignore=shutil.ignore_patterns("__pycache__"))
    for folder in sorted(target.glob("dummy/**/dummy_data")) if zipped else []:
        order = folder.parent / "zip_order.txt"
        members = sorted(folder.rglob("*"))
        if order.is_file():
            (inner,) = folder.iterdir()
            listed = [inner / line for line in order.read_text().splitlines()]
            members = [inner] + sorted({p.parent for p in listed if p.parent != inner}) + listed
            order.unlink()
        with zipfile.ZipFile(folder.parent / "dummy_data.zip", "w") as archive:
            for path in [folder, *members]:
                archive.write(path, path.relative_to(folder.parent).as_posix())
        shutil.rmtree(folder)
    return target


def dummy_rows(folder: Path, cache: Path, data_dir: Path | None = None, dummy_data: bool = True):
    """{config: {split: rows}} and {config: {split: Arrow schema}} of every config of the script
    in `folder`, on its dummy data (or, `dummy_data` False, its real downloads), with the stand-ins in place."""
    rows, schemas = {}, {}
    with datasets_adapter.legacy_names():
        found = script.resolve(str(folder))
        builder_class = script.builder_class(script.import_module(found))
        for config in script.config_names(builder_class):
            builder = script.make_builder(found, builder_class, config, cache / config / "cache", data_dir)
            manager = None
            if dummy_data:
                source = dummy.dummy_data(found.folder, config if builder_class.BUILDER_CONFIGS else None,
                                          builder.config.version)
                manager = dummy.DummyDownloadManager(source, cache / config / "dummy")
                dummy.forget_release_sizes(builder)
            builder.download_and_prepare(dl_manager=manager, verification_mode=datasets.VerificationMode.NO_CHECKS)
            splits = builder.as_dataset()
            rows[config] = {split: dataset.to_list() for split, dataset in splits.items()}
            schemas[config] = {split: dataset.data.schema.remove_metadata() for split, dataset in splits.items()}
    return rows, schemas
