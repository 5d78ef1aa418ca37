"""The reference side of `corpora convert --reference`: run by the reference interpreter (its own
datasets, 2.21 or 3.6), never imported by the corpora package, and importing nothing of it. It runs
a loading script through that version's own script loader, as the datasets of its time did, and
writes each config's splits, in order, to OUT/<config>/<split>-00000-of-00001.parquet, with
OUT/reference.json saying what it wrote. A failure is one line on stderr and exit status 3.

    python -I reference_runner.py SCRIPT OUT --config C [--config C]... [--dummy | --data-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from pathlib import Path

FAILED = 3
BATCH_ROWS = 10_000


class Refused(Exception):
    """What the reference cannot run, in one line."""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("script")
    parser.add_argument("out")
    parser.add_argument("--config", action="append", dest="configs", default=[])
    parser.add_argument("--dummy", action="store_true")
    parser.add_argument("--data-dir")
    args = parser.parse_args(argv)
    try:
        written = run(Path(args.script).resolve(), Path(args.out), args.configs, args.dummy, args.data_dir)
    except Exception as error:  # noqa: BLE001 - whatever the script or datasets raised: one line to the caller
        traceback.print_exc(file=sys.stderr)
        print(f"REFERENCE-FAILED {version()} {one_line(error)}", file=sys.stderr)
        return FAILED
    summary = {"datasets": version(), "configs": written}
    (Path(args.out) / "reference.json").write_text(json.dumps(summary), encoding="utf-8")
    return 0


def version() -> str:
    try:
        import datasets

        return datasets.__version__
    except Exception:  # noqa: BLE001 - no datasets at all: said as the version
        return "none"


def one_line(error: BaseException) -> str:
    if isinstance(error, Refused):
        return str(error)
    said = _first_line(error)
    cause = error.__cause__  # datasets wraps what the script raised: its cause is what says why
    while cause is not None and cause.__cause__ is not None:
        cause = cause.__cause__
    return said if cause is None else f"{said}: {_first_line(cause)}"


def _first_line(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return f"{type(error).__name__}: {lines[0] if lines else ''}".rstrip(": ")


def run(script: Path, out: Path, configs: list, dummy: bool, data_dir) -> dict:
    import datasets

    if dummy:
        try:
            from datasets.download.mock_download_manager import MockDownloadManager  # noqa: F401
        except ImportError:
            raise Refused(f"datasets {datasets.__version__} has no MockDownloadManager (removed in 3.0): "
                          "--dummy needs --reference 2.21") from None
    cache = out / ".cache"
    written = {}
    for config in configs:
        builder = make_builder(script, config, cache, data_dir)
        if dummy:
            prepare_on_dummy_data(builder, script, cache)
        else:
            builder.download_and_prepare(verification_mode="no_checks")
        written[config] = write_splits(builder, out / config)
    return written


def make_builder(script: Path, config: str, cache: Path, data_dir):
    """The builder of `config`, made by this version's own script loader (as load_dataset made it)."""
    import datasets

    options = {"name": config, "cache_dir": str(cache / "datasets"), "trust_remote_code": True}
    if data_dir is not None:
        options["data_dir"] = str(Path(data_dir).resolve())
    try:
        return datasets.load_dataset_builder(str(script), **options)
    except ValueError as error:
        # a script without BUILDER_CONFIGS has the one config "default", which older versions do not name
        if config != "default" or "BuilderConfig" not in str(error):
            raise
        options.pop("name")
        return datasets.load_dataset_builder(str(script), **options)


def prepare_on_dummy_data(builder, script: Path, cache: Path) -> None:
    """As datasets 2.x's own tests ran a script on its dummy data: MockDownloadManager, the config's
    dummy folder (dummy/<config>/<version>/, or dummy/<version>/ without BUILDER_CONFIGS), no
    verification, and the free-disk check off."""
    from unittest import mock

    import datasets.builder
    from datasets.download.mock_download_manager import MockDownloadManager

    has_configs = bool(getattr(type(builder), "BUILDER_CONFIGS", None))
    version = builder.config.version if has_configs else (builder.config.version or builder.VERSION)
    manager = MockDownloadManager(
        dataset_name=script.parent.name,
        config=builder.config if has_configs else None,
        version=version or "0.0.0",
        cache_dir=str(cache / "raw"),
        use_local_dummy_data=True,
    )
    # MockDownloadManager finds dummy data under datasets/<name>/, relative to the working folder:
    # the folder holding the script's folder stands for it
    manager.datasets_scripts_dir = str(script.parent.parent)
    zip_path = Path(manager.local_path_to_dummy_data)
    if not zip_path.is_file() and zip_path.with_name("dummy_data").is_dir():
        # the dummy data unzipped: zipped as datasets' dummy_data command zipped it, beside the cache
        manager.datasets_scripts_dir = str(cache / "zipped")
        zip_folder(zip_path.with_name("dummy_data"), Path(manager.local_path_to_dummy_data))
    with mock.patch.object(datasets.builder, "has_sufficient_disk_space", lambda *args, **kwargs: True):
        builder.download_and_prepare(dl_manager=manager, download_mode="force_redownload",
                                     verification_mode="no_checks")


def zip_folder(folder: Path, zip_path: Path) -> None:
    """A zip of `folder` (its members start with the folder's name), in the order the converter reads
    a dummy_data/ folder (corpora.convert.dummy.folder_members): each folder, then its files and
    subfolders in sorted order, depth first."""
    import zipfile

    zip_path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(zip_path, "w") as archive:
        for where, subfolders, files in os.walk(folder):
            subfolders.sort()
            for path in [Path(where), *(Path(where) / name for name in sorted(files))]:
                archive.write(path, path.relative_to(folder.parent).as_posix())


def write_splits(builder, folder: Path) -> dict:
    """Each split's rows, in order, media embedded (as an export holds them): {split: rows}."""
    import pyarrow.parquet
    from datasets.table import embed_table_storage

    folder.mkdir(parents=True, exist_ok=True)
    splits = builder.as_dataset(verification_mode="no_checks")
    rows = {}
    for split, dataset in splits.items():
        table = dataset.data.table
        schema = dataset.features.arrow_schema
        path = folder / f"{split}-00000-of-00001.parquet"
        with pyarrow.parquet.ParquetWriter(str(path), schema) as writer:
            for start in range(0, table.num_rows, BATCH_ROWS):
                piece = table.slice(start, BATCH_ROWS).cast(schema)
                writer.write_table(embed_table_storage(piece))
        rows[str(split)] = table.num_rows
    return rows


if __name__ == "__main__":
    os.environ.setdefault("HF_DATASETS_DISABLE_PROGRESS_BARS", "1")
    sys.exit(main())
