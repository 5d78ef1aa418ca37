"""What `corpora validate OUT/NAME` checks of a converted export: what it checks of any export, the card as
the Hub reads it, and each config as load_dataset reads it back. What a converter cannot know (a licence,
a task, a citation the maintainers never wrote) is a warning that says how to supply it, not a failure."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import datasets
import pyarrow.parquet

from corpora import exports
from corpora import validate
from corpora.cards import header
from corpora.errors import loader_error
from corpora.errors import typed

# The card review's lines that a converted export turns into the warnings below.
NO_TASK = "task_categories: missing from the YAML header"
NO_CITATION = "citation: no BibTeX entry under '### Citation Information'"

UNKNOWN_LICENSE = (
    "`license: unknown`: neither the script, its dataset_infos.json nor its README.md states a licence (the Hub "
    "accepts it, but users cannot tell what they may do with the data); once the maintainers state one, put it in "
    "the script repository's README.md (`license:`) and convert again"
)
MISSING_TASK = (
    "none in the card's YAML header: neither the script nor its README.md states a task; give one with `corpora "
    "convert SOURCE --task-category CATEGORY` (repeatable; one of the Hub's task categories)"
)
MISSING_CITATION = (
    "no BibTeX entry: neither the script (its _CITATION) nor its README.md states one; the card says so"
)


def checks(folder: Path, mark: exports.Mark) -> Iterator[tuple[str, str | None]]:
    """Yield (check, None, a validate.Warned or what is wrong) for the converted export in `folder`."""
    yield "mark", None
    try:
        problems = validate.export_problems(None, folder)
    except Exception as error:  # noqa: BLE001 - a file that is not Parquet: reported, the other checks still run
        problems = [f"its files cannot be read: {typed(error)}"]
    yield "card", "; ".join(p for p in problems if p not in (NO_TASK, NO_CITATION)) or None
    metadata = header.read_metadata(folder / "README.md")
    if metadata.get("license") == "unknown":
        yield "license", validate.Warned(UNKNOWN_LICENSE)
    if NO_TASK in problems:
        yield "task_categories", validate.Warned(MISSING_TASK)
    if NO_CITATION in problems:
        yield "citation", validate.Warned(MISSING_CITATION)
    yield from validate.folder_checks(folder, mark)
    with tempfile.TemporaryDirectory(prefix="corpora-validate-") as cache:
        for config in mark.configs:
            yield f"reload {config}", reload_problem(folder, config, cache)


def reload_problem(folder: Path, config: str, cache: str) -> str | None:
    """What differs between what load_dataset reads of a config (on this datasets version) and its Parquet files."""
    verbosity = datasets.logging.get_verbosity()
    datasets.logging.set_verbosity(datasets.logging.CRITICAL)  # the failure is said below, once
    try:
        reloaded = datasets.load_dataset(str(folder), config, cache_dir=cache)
    except Exception as error:  # noqa: BLE001 - reported, not raised: the other configs are still checked
        return f"load_dataset fails: {typed(loader_error(error))}"
    finally:
        datasets.logging.set_verbosity(verbosity)
    for split, dataset in reloaded.items():
        stored = pyarrow.parquet.read_schema(sorted((folder / config).glob(f"{split}-*.parquet"))[0])
        loaded = dataset.data.schema
        differing = [f"{name}: {loaded.field(name).type} != {stored.field(name).type}" for name in stored.names
                     if name not in loaded.names
                     or as_parquet_stores(loaded.field(name).type) != stored.field(name).type]
        if differing or loaded.names != stored.names:
            return (f"{split}: load_dataset reads other types than the Parquet files hold: "
                    f"{'; '.join(differing) or f'columns {loaded.names} != {stored.names}'}")
    return None


def as_parquet_stores(type_: pyarrow.DataType) -> pyarrow.DataType:
    """The type a Parquet file stores for an Arrow type: Parquet has no timestamp in seconds (written in
    milliseconds, read back as such) and no date64 (written as date32); load_dataset casts back to the card's."""
    if pyarrow.types.is_timestamp(type_) and type_.unit == "s":
        return pyarrow.timestamp("ms", type_.tz)
    if pyarrow.types.is_date64(type_):
        return pyarrow.date32()
    if pyarrow.types.is_struct(type_):
        return pyarrow.struct([field.with_type(as_parquet_stores(field.type)) for field in type_])
    if pyarrow.types.is_fixed_size_list(type_):
        return pyarrow.list_(type_.value_field.with_type(as_parquet_stores(type_.value_type)), type_.list_size)
    if pyarrow.types.is_large_list(type_):
        return pyarrow.large_list(type_.value_field.with_type(as_parquet_stores(type_.value_type)))
    if pyarrow.types.is_list(type_):
        return pyarrow.list_(type_.value_field.with_type(as_parquet_stores(type_.value_type)))
    return type_
