"""croissant.json of every export: valid for mlcroissant, every field described, and its record
sets read back the rows of the Parquet files. The generic tests run on every corpus of the
collection; the split record set is checked on the example corpus (tests/example_collection)."""

import hashlib
import io
import json

import numpy as np
import pyarrow.parquet as pq
import pytest

from corpora import cards
from corpora import registry
from corpora.cards import croissant
from corpora.cards import field_patterns
from helpers import EXAMPLE

mlc = pytest.importorskip("mlcroissant")

NAMES = registry.names()


def described_fields(fields, prefix=""):
    names = []
    for field in fields:
        names.append(field["name"])
        names += described_fields(field.get("subField", []))
    return names


def undescribed(fields, patterns):
    """Fields with no description of their own that no pattern of their record set describes."""
    found = []
    for field in fields:
        if "description" not in field and not any(field_patterns.matches(key, field["name"]) for key in patterns):
            found.append(field["name"])
        found += undescribed(field.get("subField", []), patterns)
    return found


# The largest dummy export's (of the deliberations corpus): 145,248 bytes (239,815 with a description per
# statistics field and an object per line).
MAX_CROISSANT_BYTES = 150_000


@pytest.mark.parametrize("name", NAMES)
def test_croissant_describes_every_file_and_field(name, dummy_export):
    corpus = registry.get(name)
    folder = dummy_export(name)
    assert (folder / "croissant.json").stat().st_size < MAX_CROISSANT_BYTES
    metadata = json.loads((folder / "croissant.json").read_text())
    assert metadata["conformsTo"] == croissant.CONFORMS_TO
    parquet = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.parquet"))
    objects = [d for d in metadata["distribution"] if d["@type"] == "cr:FileObject"]
    assert sorted(d["contentUrl"] for d in objects) == parquet
    assert [d["sha256"] for d in objects] == [
        hashlib.sha256((folder / d["contentUrl"]).read_bytes()).hexdigest() for d in objects
    ]
    assert [r["@id"] for r in metadata["recordSet"]] == ["splits"] + corpus.configs
    assert metadata["datePublished"] == source_date(corpus)
    assert metadata["version"] == corpus.builder_class.VERSION.version_str
    for record_set in metadata["recordSet"][1:]:
        expected = ["split"] + [name for name, _ in cards.field_rows(corpus.features(record_set["@id"]))]
        assert described_fields(record_set["field"]) == expected
    source = cards.export_source(corpus, corpus.configs)  # the card's texts, each config's parts settled
    for record_set in metadata["recordSet"][1:]:
        patterns = source["config_patterns"][record_set["@id"]]
        assert undescribed(record_set["field"], patterns) == []
        assert record_set["description"].endswith(" ".join(croissant.patterns_text(patterns)))
    for prop, key in croissant.RAI_FROM_CARD.items():
        assert metadata[prop] == " ".join(str(source[key]).split())
        assert "[More Information Needed]" not in metadata[prop]


def source_date(corpus):
    released = cards.released_for(cards.card_source(corpus), corpus.configs)["date"]
    return released.isoformat()


@pytest.mark.usefixtures("example_collection")
def test_the_split_record_set_says_what_each_split_is(dummy_export):
    metadata = json.loads((dummy_export(EXAMPLE) / "croissant.json").read_text())
    splits = metadata["recordSet"][0]
    assert splits["dataType"] == "cr:Split"
    # Every split of every config once, in the order of the configs (raters: train only).
    assert splits["data"] == [
        {"splits/name": "train", "splits/url": "cr:TrainingSplit"},
        {"splits/name": "validation", "splits/url": "cr:ValidationSplit"},
        {"splits/name": "test", "splits/url": "cr:TestSplit"},
    ]
    assert [r["@id"] for r in metadata["recordSet"]] == ["splits", "sentences", "ratings", "raters"]
    for record_set in metadata["recordSet"][1:]:
        assert record_set["field"][0]["references"] == {"field": {"@id": "splits/name"}}
    assert metadata["datePublished"] == "2026-11-30"
    # A split named otherwise is what its name starts with (the example has only the three).
    assert croissant.split_record_set(["train", "val", "test", "test_zero", "extra"])["data"] == [
        {"splits/name": "train", "splits/url": "cr:TrainingSplit"},
        {"splits/name": "val", "splits/url": "cr:ValidationSplit"},
        {"splits/name": "test", "splits/url": "cr:TestSplit"},
        {"splits/name": "test_zero", "splits/url": "cr:TestSplit"},
        {"splits/name": "extra", "splits/url": "extra"},
    ]


def plain(value):
    """mlcroissant's values as Python values: bytes are text, arrays lists."""
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, np.ndarray | list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    return value


def image_fields(record_set):
    return {field["name"] for field in record_set["field"] if field["dataType"] == "sc:ImageObject"}


def pixels(value):
    """An image as its decoded pixels: the Parquet bytes and mlcroissant's PIL image compare."""
    from PIL import Image

    if isinstance(value, dict):
        value = value["bytes"]
    if isinstance(value, bytes):
        value = Image.open(io.BytesIO(value))
    return [value.size, value.tobytes().hex()]


def readable_fields(record_set):
    """Top-level fields and their direct sub-fields: what mlcroissant 1.1 reads. (It cannot
    assemble a struct nested inside a sub-field; those are described but not compared.)"""
    readable = {}
    for field in record_set["field"][1:]:  # not the split (from the file path, not a column)
        subs = [s["name"] for s in field.get("subField", []) if "subField" not in s]
        if field.get("subField") and not subs:
            continue  # a struct of structs only (a struct whose every field is a struct): nothing it can read
        readable[field["name"]] = subs
    return readable


def parquet_rows(folder, config, readable, split="*"):
    rows = []
    for path in sorted((folder / config).glob(f"{split}-*.parquet")):
        for row in pq.read_table(path).to_pylist():
            out = {}
            for name, subs in readable.items():
                value = row[name]
                if subs:
                    keep = [s.split(".", 1)[1] for s in subs]
                    if isinstance(value, list):
                        value = [{k: item[k] for k in keep} for item in value]
                    elif value is not None:
                        value = {k: value[k] for k in keep}
                out[name] = value
            rows.append(out)
    return rows


def strip(item, config, subs):
    return {s.split(".", 1)[1]: plain(item.get(f"{config}/{s}")) for s in subs}


def croissant_rows(dataset, config, readable, split=None):
    rows = []
    for record in dataset.records(record_set=config, filters={f"{config}/split": split} if split else None):
        out = {}
        for name, subs in readable.items():
            value = record.get(f"{config}/{name}")
            if subs:
                value = [strip(item, config, subs) for item in value] if isinstance(value, list) else (
                    strip(value, config, subs) if value is not None else None
                )
            out[name] = plain(value)
        rows.append(out)
    return rows


@pytest.mark.parametrize("name", NAMES)
def test_mlcroissant_reads_the_rows_of_the_parquet_export(name, dummy_export):
    folder = dummy_export(name)
    metadata = json.loads((folder / "croissant.json").read_text())
    dataset = mlc.Dataset(jsonld=str(folder / "croissant.json"))
    for record_set in metadata["recordSet"][1:]:
        config = record_set["@id"]
        readable = readable_fields(record_set)
        expected = parquet_rows(folder, config, readable)
        actual = croissant_rows(dataset, config, readable)
        for name in image_fields(record_set):
            for row in expected + actual:
                row[name] = pixels(row[name])
        assert len(actual) == len(expected) == sum(
            pq.ParquetFile(p).metadata.num_rows for p in (folder / config).glob("*.parquet")
        )

        def key(row):
            return json.dumps(row, sort_keys=True, default=str)

        assert sorted(map(key, actual)) == sorted(map(key, expected)), config


@pytest.mark.parametrize("name", NAMES)
def test_mlcroissant_reads_each_split_alone(name, dummy_export):
    """Filtered on the split field, mlcroissant reads exactly that split's Parquet rows (a fresh
    Dataset per split: mlcroissant keeps a filter in the Dataset it was applied to)."""
    folder = dummy_export(name)
    metadata = json.loads((folder / "croissant.json").read_text())
    expected_counts = registry.get(name).expected_dummy_counts()
    for record_set in metadata["recordSet"][1:]:
        config = record_set["@id"]
        readable = {k: v for k, v in readable_fields(record_set).items() if k not in image_fields(record_set)}
        for split, count in expected_counts[config].items():
            dataset = mlc.Dataset(jsonld=str(folder / "croissant.json"))
            records = list(dataset.records(record_set=config, filters={f"{config}/split": split}))
            assert [plain(r[f"{config}/split"]) for r in records] == [split] * count, (config, split)
            actual = [{n: plain(r.get(f"{config}/{n}")) for n, subs in readable.items() if not subs} for r in records]
            expected = [{n: v for n, v in row.items() if not readable[n]} for row in parquet_rows(folder, config, readable, split)]

            def key(row):
                return json.dumps(row, sort_keys=True, default=str)

            assert sorted(map(key, actual)) == sorted(map(key, expected)), (config, split)
