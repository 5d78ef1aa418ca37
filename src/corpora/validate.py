"""`corpora validate`: a corpus's checks for CI, and an export folder's before it is published."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import datasets
import pyarrow.parquet
import yaml

from corpora import export_folder
from corpora import exports
from corpora import parquet_files
from corpora import prepare
from corpora import registry
from corpora import sources
from corpora.cards import header
from corpora.cards import readme
from corpora.cards import review
from corpora.cards import source
from corpora.errors import CorporaError
from corpora.errors import loader_error
from corpora.errors import shorten
from corpora.errors import typed


def validate(corpus: registry.Corpus) -> Iterator[tuple[str, str | None]]:
    """Yield (check, None if it passed else what is wrong) for one corpus."""
    with tempfile.TemporaryDirectory(prefix="corpora-validate-") as tmp:
        prepared = {}
        for config in corpus.configs:
            try:
                prepared[config] = prepare.dummy_build(corpus, config, f"{tmp}/cache-{config}")
            except Exception as error:  # noqa: BLE001 - reported, not raised: the other checks still run
                yield f"dummy build {config}", typed(error)
                continue
            yield f"dummy build {config}", _count_problem(corpus, config, prepared[config])
        if len(prepared) == len(corpus.configs):
            yield "card", _card_problem(corpus, prepared)
            yield "export round trip", _round_trip_problem(corpus, prepared, tmp)


def _card_problem(corpus, prepared: dict[str, datasets.DatasetDict]) -> str | None:
    # The card shows the first example of each config's dummy build (training split if any).
    examples = {}
    for config, dataset_dict in prepared.items():
        split = "train" if "train" in dataset_dict else list(dataset_dict)[0]
        examples[config] = dataset_dict[split].data.slice(0, 1).to_pylist()[0]
    try:
        diff = readme.check(corpus, examples)
    except CorporaError as error:
        return str(error)
    if diff is not None:
        return f"loaders/{corpus.name}/README.md is out of date: run `corpora card {corpus.name}`"
    reviewed = review.problems(corpus.card_path)  # the committed card, as the Hub reads it
    return f"loaders/{corpus.name}/README.md: " + "; ".join(reviewed) if reviewed else None


def _count_problem(corpus, config, dataset_dict) -> str | None:
    expected = corpus.expected_dummy_counts()[config]
    actual = {split: dataset_dict[split].num_rows for split in dataset_dict}
    return None if actual == expected else f"rows {actual}, dummy_data declares {expected}"


def _round_trip_problem(corpus, prepared: dict[str, datasets.DatasetDict], tmp: str) -> str | None:
    export_folder.export(prepare.Request(corpus, dummy=True), f"{tmp}/export")
    for config, dataset_dict in prepared.items():
        reloaded = datasets.load_dataset(f"{tmp}/export/{corpus.name}", config, cache_dir=f"{tmp}/reload")
        problem = compare(dataset_dict, reloaded)
        if problem:
            return f"{config}: {problem}"
    problems = export_problems(corpus, Path(tmp) / "export" / corpus.name)
    if problems:
        return "export card: " + "; ".join(problems)
    problems = parquet_problems(Path(tmp) / "export" / corpus.name)
    return "export Parquet files: " + "; ".join(problems) if problems else None


def compare(expected: datasets.DatasetDict, actual: datasets.DatasetDict) -> str | None:
    """What differs between two DatasetDicts (splits, features, rows), or None."""
    if sorted(expected) != sorted(actual):
        return f"splits {sorted(actual)} != {sorted(expected)}"
    for split in expected:
        if actual[split].features != expected[split].features:
            return f"{split}: features {actual[split].features} != {expected[split].features}"
        if actual[split].to_list() != expected[split].to_list():
            return f"{split}: rows differ"
    return None


class Warned(str):
    """What a check that passes has to say (`corpora validate` prints it as a warning, not a failure)."""


def export_problems(corpus: registry.Corpus | None, folder: Path) -> list[str]:
    """What is wrong with an export's card, as the Hub reads it, against its Parquet files (`corpus`: the
    corpus whose licence it must state; None: a converted export, whose card states the script's)."""
    card = folder / "README.md"
    if not card.is_file():
        return ["README.md is missing"]
    text = card.read_text(encoding="utf-8")
    found = [f"the card still says {readme.PLACEHOLDER!r}"] if readme.PLACEHOLDER in text else []
    try:
        metadata = header.read_metadata(card)
    except yaml.YAMLError:
        metadata = None
    if not isinstance(metadata, dict):  # not YAML, or not a mapping: cards.review says how huggingface_hub reads it
        return found + review.problems(card, folder)
    if not metadata:
        return found + ["README.md has no YAML header"]
    vocab = source.vocabularies()
    license = metadata.get("license")
    if license is not None:  # a missing one is the card review's line
        if any(name not in vocab["licenses"] for name in (license if isinstance(license, list) else [license])):
            found.append(f"license {license!r} is not in the Hub's licenses vocabulary")
        held = [c.get("config_name", "default") for c in metadata.get("configs") or []]
        expected = source.license_value(corpus, held or None) if corpus is not None else license
        if license != expected:
            found.append(f"license {license!r}, the loader says {expected!r}")
    dataset_info = metadata.get("dataset_info") or []
    if isinstance(dataset_info, dict):  # one config: a mapping, not a list
        dataset_info = [dataset_info]
    # The Hub's convention: an entry without config_name is the config named "default".
    infos = {info.get("config_name", "default"): info for info in dataset_info if isinstance(info, dict)}
    shaped = not review.config_problems(metadata, None)  # else the sizes cannot be read: it says why
    for config in (metadata.get("configs") or []) if shaped else []:
        name = config.get("config_name", "default")
        if name not in infos:
            found.append(f"{name}: the YAML header's dataset_info has no entry for this config")
            continue
        info = infos[name]
        declared = {s["name"]: s["num_examples"] for s in info.get("splits") or []}
        all_files = set()
        for data_files in config.get("data_files") if isinstance(config.get("data_files"), list) else []:
            if not isinstance(data_files, dict):
                continue  # a path without a split has no size to check
            split, paths = data_files["split"], data_files["path"]
            files = sorted({f for path in ([paths] if isinstance(paths, str) else paths) for f in folder.glob(path)})
            all_files.update(files)
            if not files:  # cards.review names the path
                continue
            rows = sum(pyarrow.parquet.ParquetFile(f).metadata.num_rows for f in files)
            if declared.get(split) != rows:
                found.append(f"{name}/{split}: dataset_info says {declared.get(split)} rows, the files hold {rows}")
        size = sum(f.stat().st_size for f in all_files)
        if all_files and info.get("download_size") != size:
            declared_size = info.get("download_size")
            found.append(f"{name}: dataset_info says download_size {declared_size}, its files hold {size} bytes")
    if not metadata.get("configs"):
        found.append("no configs: in the YAML header")
    return found + review.problems(card, folder)


def validate_export(folder: Path) -> Iterator[tuple[str, str | None]]:
    """Yield (check, None or what is wrong) for an export folder on disk."""
    folder = Path(folder)
    if not folder.is_dir():  # a typo is not "an export without a mark"
        what = "is not a folder" if os.path.lexists(folder) else "does not exist"
        yield "mark", f"{folder} {what}"
        return
    mark = exports.read_mark(folder)
    corpus = registry.known(mark.corpus) if mark is not None else None
    if corpus is None:
        yield "mark", f"{folder} is not an export of a corpus of this collection (no {exports.MARK} naming one)"
        return
    yield "mark", None
    try:
        yield "card", "; ".join(export_problems(corpus, folder)) or None
    except Exception as error:  # noqa: BLE001 - a file that is not Parquet: reported, the other checks still run
        yield "card", f"its files cannot be read: {typed(error)}"
    yield from folder_checks(folder, mark)
    with tempfile.TemporaryDirectory(prefix="corpora-validate-") as cache:
        for config in mark.configs:
            try:
                corpus.config(config)
            except CorporaError as error:  # an export of an older loader (a config since renamed)
                yield f"reload {config}", (
                    f"{error}; `corpora build {corpus.name} --out {folder.parent} --drop-other-configs` replaces "
                    "the export without it"
                )
                continue
            yield f"reload {config}", _reload_problem(corpus, folder, config, cache)


def folder_checks(folder: Path, mark: exports.Mark) -> Iterator[tuple[str, str | None]]:
    """The checks of any export's files: none not the export's, croissant.json's sha256s, the Parquet settings."""
    yield "files", _stray_problem(folder, mark)
    yield "croissant.json", _croissant_problem(folder)
    yield "parquet files", "; ".join(parquet_problems(folder)) or None


def converted_card(folder: Path) -> dict | None:
    """What the card of a converted export says of its conversion (its header's `corpora: converted:`), else None."""
    try:
        converted = (header.read_metadata(folder / "README.md").get("corpora") or {}).get("converted")
    except Exception:  # noqa: BLE001 - no card, or not YAML: not a converted export's
        return None
    return converted if isinstance(converted, dict) else None


def _stray_problem(folder: Path, mark: exports.Mark) -> str | None:
    """Files an upload would publish that the export's mark does not list (an old mark: its card's)."""
    if mark.files is not None:
        kept = {folder / path for path in mark.files}
    else:
        kept = {folder / "README.md", folder / "croissant.json"}
        try:
            metadata = header.read_metadata(folder / "README.md")
        except Exception:  # noqa: BLE001 - no card, or not YAML: the card check says so
            metadata = {}
        for config in metadata.get("configs") or []:
            for data_files in config.get("data_files") or []:
                pattern = data_files.get("path") if isinstance(data_files, dict) else None
                if isinstance(pattern, str) and pattern:  # any other shape: the card check names it
                    kept.update(folder.glob(pattern))
    kept.add(folder / exports.MARK)
    stray = [p.relative_to(folder).as_posix() for p in sorted(folder.rglob("*")) if not p.is_dir() and p not in kept]
    return f"not part of the export, and an upload would publish them: {shorten(stray)}" if stray else None


def parquet_problems(folder: Path) -> list[str]:
    """What in the export's Parquet files breaks the export's settings, each file named."""
    found = []
    for path in sorted(folder.rglob("*.parquet")):
        name = path.relative_to(folder).as_posix()
        try:
            found += parquet_files.problems(path, name)
        except Exception as error:  # noqa: BLE001 - a file that is not Parquet: named, the others still checked
            found.append(f"{name}: cannot be read: {typed(error)}")
    return found


def _croissant_problem(folder: Path) -> str | None:
    import json

    try:
        described = json.loads((folder / "croissant.json").read_text())["distribution"]
    except (OSError, ValueError, KeyError) as error:
        return f"croissant.json cannot be read: {error}"
    files = {d["contentUrl"]: d for d in described if d.get("@type") == "cr:FileObject"}
    parquet = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.parquet"))
    wrong = [f"{path} is not described" for path in parquet if path not in files]
    for path, entry in files.items():
        if not (folder / path).is_file():
            wrong.append(f"{path} is described but missing")
        elif sources.measure(folder / path).sha256 != entry.get("sha256"):
            wrong.append(f"{path}: its sha256 is not the one described")
    return "; ".join(wrong) or None


def _reload_problem(corpus, folder: Path, config: str, cache: str) -> str | None:
    verbosity = datasets.logging.get_verbosity()
    datasets.logging.set_verbosity(datasets.logging.CRITICAL)  # the failure is said below, once
    try:
        reloaded = datasets.load_dataset(str(folder), config, cache_dir=cache)
    except Exception as error:  # noqa: BLE001 - reported, not raised: the other configs are still checked
        error = loader_error(error)
        return f"load_dataset fails: {typed(error)}"
    finally:
        datasets.logging.set_verbosity(verbosity)
    declared = corpus.features(config)
    for split, dataset in reloaded.items():
        if dataset.features != declared:
            return f"{split}: the features are not the loader's"
    return None
