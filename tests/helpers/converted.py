"""A converted export made in the test process from a script of tests/legacy_scripts/ (or a folder
of a test's own), by what `corpora convert` runs (corpora.convert.export.convert): its builder on
the files beside it (relative URLs) or on its dummy data, every config, with the stand-ins for
removed names in place while it runs."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from corpora import datasets_adapter
from corpora.convert import export
from corpora.convert import script

LEGACY_SCRIPTS = Path(__file__).parent.parent / "legacy_scripts"


def convert_here(name: str, out: Path, script_folder: Path | None = None, asked_tasks=(), repo_id=None,
                 source: str | None = None, dummy: bool = False, data_dir: Path | None = None) -> Path:
    """OUT/NAME: the export of every config of tests/legacy_scripts/NAME (or `script_folder`);
    `source`: the card says the script was read there (an hf:// SOURCE@COMMIT), `dummy`: from its
    dummy data, `data_dir`: its manual folder."""
    with datasets_adapter.legacy_names():
        found = script.resolve(str(script_folder or LEGACY_SCRIPTS / name))
        if source is not None:
            found = dataclasses.replace(found, source=source)
        builder = script.builder_class(script.import_module(found))
        export.convert(found, builder, script.config_names(builder), out, dummy_data=dummy, data_dir=data_dir,
                       asked_tasks=asked_tasks, repo_id=repo_id)
    return Path(out) / found.name


def builder_class(folder: Path):
    """The builder class of the script in `folder`, imported as `corpora convert` imports it."""
    return script.builder_class(script.import_module(script.resolve(str(folder))))


def convert_dummy(folder: Path, out: Path) -> Path:
    """OUT/NAME: the export of a script folder (helpers.legacy.legacy_script) on its dummy data."""
    return convert_here(Path(folder).name, out, script_folder=folder, dummy=True)
