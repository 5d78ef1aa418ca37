"""The checks datasets 4.x and 5.x dropped, restored for `corpora convert` (corpora/convert/checks.py):
recorded split sizes and download checksums, duplicate keys across a whole split, media embedded.
The builders are the legacy-style scripts of tests/legacy_scripts/, run by their class."""

import hashlib
import json
import shutil
from pathlib import Path

import datasets
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from corpora.convert import checks
from corpora.convert.checks import Duplicate
from corpora.convert.checks import Recorded
from corpora.errors import CorporaError
from corpora.errors import ending
from fault_server import FaultServer
from helpers.converted import LEGACY_SCRIPTS
from helpers.converted import builder_class
from helpers.converted import convert_here

MODIFIED = "to convert the sources as they are, use --allow-modified-sources"


def checked_builder(folder: Path, cache: Path, name: str, data_dir: Path | None = None):
    """The script's builder with the converter's checks attached, on real sources (convert.checks.Checks)."""
    builder = builder_class(folder)(cache_dir=str(cache), data_dir=None if data_dir is None else str(data_dir))
    checks.Checks.of(name, folder, dummy=False, allow_modified_sources=False).attach(builder, builder.config.name, cache)
    return builder


def legacy_copy(name: str, into: Path, replace: dict[str, str]) -> Path:
    """A copy of the script's folder in `into`, each text of `replace` replaced in the script (a URL's port)."""
    folder = Path(shutil.copytree(LEGACY_SCRIPTS / name, into / name))
    script = folder / f"{name}.py"
    text = script.read_text(encoding="utf-8")
    for old, new in replace.items():
        assert old in text
        text = text.replace(old, new)
    script.write_text(text, encoding="utf-8")
    return folder


def lines(folder: Path, **files) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, rows in files.items():
        (folder / f"{name}.txt").write_text("".join(f"{row}\n" for row in rows), encoding="utf-8")
    return folder


# --- what the repository recorded ------------------------------------------------------------------

def test_recorded_sizes_are_read_from_dataset_infos_json():
    assert checks.read_recorded(LEGACY_SCRIPTS / "size_mismatch") == {
        "default": Recorded({"train": 5, "test": 2}, {}, "dataset_infos.json")}


def test_recorded_checksums_are_those_with_a_sha256(tmp_path):
    (tmp_path / "dataset_infos.json").write_text(json.dumps({
        "a": {"splits": {"train": {"name": "train", "num_examples": 7}},
              "download_checksums": {"http://x/1.zip": {"num_bytes": 3, "checksum": "ab" * 32},
                                     "http://x/2.zip": {"num_bytes": 4, "checksum": None}}},
        "b": {"splits": {}, "download_checksums": {}},
    }))
    assert checks.read_recorded(tmp_path) == {
        "a": Recorded({"train": 7}, {"http://x/1.zip": "ab" * 32}, "dataset_infos.json"),
        "b": Recorded({}, {}, "dataset_infos.json"),
    }


README_ONE = """---
license: mit
dataset_info:
  features:
  - name: text
    dtype: string
  splits:
  - name: train
    num_bytes: 10
    num_examples: 4
  - name: test
    num_bytes: 3
    num_examples: 1
  download_size: 12
---
# A card
"""

README_LIST = """---
dataset_info:
- config_name: first
  splits:
  - name: train
    num_examples: 4
- config_name: second
  splits:
  - name: validation
    num_examples: 9
---
"""


@pytest.mark.parametrize("card, expected", [
    (README_ONE, {"default": Recorded({"train": 4, "test": 1}, {}, "the dataset_info of README.md")}),
    (README_LIST, {"first": Recorded({"train": 4}, {}, "the dataset_info of README.md"),
                   "second": Recorded({"validation": 9}, {}, "the dataset_info of README.md")}),
    ("---\nlicense: mit\n---\n# No infos\n", {}),
])
def test_recorded_sizes_are_read_from_the_readme_without_dataset_infos_json(tmp_path, card, expected):
    (tmp_path / "README.md").write_text(card, encoding="utf-8")
    assert checks.read_recorded(tmp_path) == expected


def test_dataset_infos_json_comes_before_the_readme(tmp_path):
    shutil.copy(LEGACY_SCRIPTS / "size_mismatch" / "dataset_infos.json", tmp_path)
    (tmp_path / "README.md").write_text(README_ONE, encoding="utf-8")
    assert checks.read_recorded(tmp_path) == {"default": Recorded({"train": 5, "test": 2}, {}, "dataset_infos.json")}


def test_a_broken_dataset_infos_json_is_one_line(tmp_path):
    (tmp_path / "dataset_infos.json").write_text("{", encoding="utf-8")
    with pytest.raises(CorporaError) as raised:
        checks.read_recorded(tmp_path)
    assert str(raised.value) == (f"{tmp_path / 'dataset_infos.json'}: not JSON "
                                 "(Expecting property name enclosed in double quotes: line 1 column 2 (char 1))")


# --- split sizes ----------------------------------------------------------------------------------

@pytest.mark.both_legs
def test_a_split_size_differing_from_the_recorded_one_is_one_line(tmp_path):
    data = lines(tmp_path / "data", train=["one", "two", "three"], test=["four", "five"])
    builder = checked_builder(LEGACY_SCRIPTS / "size_mismatch", tmp_path / "cache", "size_mismatch", data)
    builder.download_and_prepare()  # datasets 3.6 reads the recorded sizes too: its own check is off
    with pytest.raises(CorporaError) as raised:
        checks.Checks.of("size_mismatch", LEGACY_SCRIPTS / "size_mismatch", False, False).check_sizes(
            "default", builder.info)
    assert str(raised.value) == ("size_mismatch: split sizes differ from those dataset_infos.json records: "
                                 f"default/train: recorded 5 examples, got 3; {MODIFIED}")


def test_a_split_missing_or_unrecorded_is_named():
    info = datasets.DatasetInfo(splits=datasets.SplitDict())
    info.splits.add(datasets.SplitInfo("train", num_examples=5))
    info.splits.add(datasets.SplitInfo("extra", num_examples=1_234))
    recorded = Recorded({"train": 5, "test": 2})
    assert checks.split_size_differences("c", recorded, info) == [
        "c/test: recorded 2 examples, got no such split", "c/extra: recorded no such split, got 1,234"]
    checks.check_split_sizes("n", {"other": recorded}, {"c": info})  # nothing recorded for c: nothing to check


@pytest.mark.both_legs
@pytest.mark.parametrize("dummy, allow_modified_sources", [(True, False), (False, True)])
def test_dummy_data_and_modified_sources_are_not_compared_with_the_records(tmp_path, dummy, allow_modified_sources):
    """The dummy data is not the release, and --allow-modified-sources takes what the sources hold;
    keys are checked all the same."""
    folder = LEGACY_SCRIPTS / "size_mismatch"
    conversion = checks.Checks.of("size_mismatch", folder, dummy, allow_modified_sources)
    assert conversion == checks.Checks("size_mismatch", checks.read_recorded(folder), compare_recorded=False)
    data = lines(tmp_path / "data", train=["one"], test=[])
    builder = builder_class(folder)(cache_dir=str(tmp_path / "cache"), data_dir=str(data))
    conversion.attach(builder, "default", tmp_path / "cache")
    builder.download_and_prepare()
    conversion.check_sizes("default", builder.info)
    assert {name: split.num_examples for name, split in builder.info.splits.items()} == {"train": 1, "test": 0}
    assert sorted(path.name for path in (tmp_path / "cache" / "keys" / "default").iterdir()) == ["test", "train"]


@pytest.mark.datasets3
def test_datasets_3_6_raises_its_own_size_error_unless_its_checks_are_off(tmp_path):
    """datasets 3.6 reads dataset_infos.json beside the script: its error comes first, in its words."""
    data = lines(tmp_path / "data", train=["one", "two", "three"], test=["four", "five"])
    builder = builder_class(LEGACY_SCRIPTS / "size_mismatch")(cache_dir=str(tmp_path / "a"), data_dir=str(data))
    with pytest.raises(datasets.exceptions.NonMatchingSplitsSizesError):
        builder.download_and_prepare()
    builder = checked_builder(LEGACY_SCRIPTS / "size_mismatch", tmp_path / "b", "size_mismatch", data)
    builder.download_and_prepare()
    with pytest.raises(CorporaError) as raised:
        checks.check_split_sizes("size_mismatch", checks.read_recorded(LEGACY_SCRIPTS / "size_mismatch"),
                                 {"default": builder.info})
    assert ending(raised.value) == (f"error: size_mismatch: split sizes differ from those dataset_infos.json records: "
                                    f"default/train: recorded 5 examples, got 3; {MODIFIED}", 1)


# --- download checksums ---------------------------------------------------------------------------

@pytest.fixture
def word_server(tmp_path):
    served = lines(tmp_path / "served", words=["alpha", "gamma"])
    server = FaultServer(served)
    yield server
    server.close()


@pytest.mark.both_legs
def test_a_download_differing_from_its_recorded_sha256_names_both(tmp_path, word_server, online):
    url = f"{word_server.base}words.txt"
    folder = legacy_copy("checksum_mismatch", tmp_path, {"http://127.0.0.1:0/": word_server.base})
    recorded_sha = hashlib.sha256(b"alpha\nbeta\n").hexdigest()  # the file when the script was written
    (folder / "dataset_infos.json").write_text(json.dumps({"default": {
        "splits": {"train": {"name": "train", "num_examples": 2}},
        "download_checksums": {url: {"num_bytes": 11, "checksum": recorded_sha}}}}))
    builder = checked_builder(folder, tmp_path / "cache", "checksum_mismatch")
    with pytest.raises(CorporaError) as raised:
        builder.download_and_prepare()
    served_sha = hashlib.sha256(b"alpha\ngamma\n").hexdigest()
    assert ending(raised.value) == (
        f"error: checksum_mismatch: downloads differ from those dataset_infos.json records: "
        f"{url}: sha256 {served_sha}, recorded {recorded_sha}; {MODIFIED}", 1)


def test_only_urls_recorded_and_downloaded_are_compared(tmp_path):
    (tmp_path / "a").write_bytes(b"a")
    sha_a = hashlib.sha256(b"a").hexdigest()
    recorded = {"http://h/a": sha_a, "http://h/gone": "00" * 32}
    assert checks.checksum_differences(recorded, {"http://h/a": tmp_path / "a", "http://h/new": tmp_path / "a"}) == []
    assert checks.checksum_differences({"http://h/a": "11" * 32}, {"http://h/a": str(tmp_path / "a")}) == [
        f"http://h/a: sha256 {sha_a}, recorded {'11' * 32}"]


# --- duplicate keys -------------------------------------------------------------------------------

@pytest.mark.both_legs
def test_a_key_yielded_twice_far_apart_names_the_key_and_both_examples(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    ids = [f"r{index}" for index in range(2_500)] + ["r17"]  # beyond datasets 3.6's batch of 1,000 keys
    (data / "records.jsonl").write_text("".join(json.dumps({"id": id_, "text": "t"}) + "\n" for id_ in ids))
    builder = checked_builder(LEGACY_SCRIPTS / "duplicate_key", tmp_path / "cache", "duplicate_key", data)
    with pytest.raises(CorporaError) as raised:
        builder.download_and_prepare()
    assert ending(raised.value) == ("error: duplicate_key/default/train: the key 'r17' is yielded twice, by examples "
                                    "17 and 2,500 (counted from 0); keys must be unique in a split", 1)
    assert list((tmp_path / "cache" / "keys" / "default" / "train").iterdir()) == []  # the key files are removed


@pytest.mark.datasets3
def test_datasets_3_6_raises_its_own_duplicate_key_error_unless_its_checks_are_off(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "records.jsonl").write_text("".join(json.dumps({"id": id_, "text": "t"}) + "\n" for id_ in "abcb"))
    builder = builder_class(LEGACY_SCRIPTS / "duplicate_key")(cache_dir=str(tmp_path / "a"), data_dir=str(data))
    with pytest.raises(datasets.exceptions.DatasetGenerationError) as raised:
        builder.download_and_prepare()
    assert type(raised.value.__cause__).__name__ == "DuplicatedKeysError"
    builder = checked_builder(LEGACY_SCRIPTS / "duplicate_key", tmp_path / "b", "duplicate_key", data)
    with pytest.raises(CorporaError) as raised:
        builder.download_and_prepare()
    assert ending(raised.value) == ("error: duplicate_key/default/train: the key 'b' is yielded twice, by examples "
                                    "1 and 3 (counted from 0); keys must be unique in a split", 1)


@pytest.mark.datasets3
def test_datasets_3_6_compared_keys_within_a_batch_only(tmp_path):
    """A key repeated 2,500 examples later passes datasets 3.6's own check: the converter's sees it
    (test_a_key_yielded_twice_far_apart_names_the_key_and_both_examples)."""
    data = tmp_path / "data"
    data.mkdir()
    ids = [f"r{index}" for index in range(2_500)] + ["r17"]
    (data / "records.jsonl").write_text("".join(json.dumps({"id": id_, "text": "t"}) + "\n" for id_ in ids))
    builder = builder_class(LEGACY_SCRIPTS / "duplicate_key")(cache_dir=str(tmp_path / "a"), data_dir=str(data))
    builder.download_and_prepare()
    assert builder.info.splits["train"].num_examples == 2_501


@pytest.mark.both_legs
def test_keys_are_checked_across_the_jobs_of_worker_processes(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    for index, ids in enumerate([[f"a{n}" for n in range(300)], [f"b{n}" for n in range(200)], ["c0", "a5"]]):
        (data / f"part{index}.jsonl").write_text("".join(json.dumps({"id": id_, "text": "t"}) + "\n" for id_ in ids))
    builder = checked_builder(LEGACY_SCRIPTS / "duplicate_key", tmp_path / "cache", "duplicate_key", data)
    with pytest.raises(CorporaError) as raised:
        builder.download_and_prepare(num_proc=3)  # a job per file, each in its process
    assert str(raised.value) == ("duplicate_key/default/train: the key 'a5' is yielded twice, by examples 5 and 501 "
                                 "(counted from 0); keys must be unique in a split")
    assert sorted(path.name for path in (tmp_path / "cache" / "keys" / "default" / "train").iterdir()) == []


def test_keys_sharing_a_hash_are_compared_themselves(tmp_path):
    def one_hash(keys: list[bytes]):
        return np.full(len(keys), 7, np.uint64)

    assert checks.duplicate_in(["x", "y", "z"], tmp_path, one_hash) is None
    assert checks.duplicate_in(["x", "y", "z", "w", "z", "y"], tmp_path, one_hash) == Duplicate(b"z", 2, 4)
    assert list(tmp_path.iterdir()) == []


def test_keys_compare_as_datasets_compared_them(tmp_path):
    """A number and its digits are one key (datasets' KeyHasher); bytes are themselves."""
    assert checks.duplicate_in([0, 1, "1"], tmp_path) == Duplicate(b"1", 1, 2)
    assert checks.duplicate_in([b"a", "b", b"b"], tmp_path) == Duplicate(b"b", 1, 2)
    assert checks.duplicate_in([], tmp_path) is None


def test_a_large_split_is_sorted_a_part_of_the_hash_range_at_a_time(tmp_path, monkeypatch):
    monkeypatch.setattr(checks, "BATCH_KEYS", 1_000)  # 11 batches
    monkeypatch.setattr(checks, "BUCKET_HASHES", 1_500)  # 10,001 hashes: 8 parts
    buckets = []
    real_concatenate = checks.np.concatenate
    monkeypatch.setattr(checks.np, "concatenate", lambda parts: buckets.append(len(parts)) or real_concatenate(parts))
    keys = [f"k{index}" for index in range(10_000)] + ["k9"]
    assert checks.duplicate_in(keys, tmp_path) == Duplicate(b"k9", 9, 10_000)
    assert buckets == [11] * 8 + [8]  # the parts of each of the 8 ranges, then the colliding hashes of the 8
    assert checks.duplicate_in(keys[:-1], tmp_path) is None


# --- media ----------------------------------------------------------------------------------------

def pictures(folder: Path) -> dict[str, bytes]:
    """Two small PNG files in `folder`: their names and bytes."""
    from PIL import Image

    folder.mkdir()
    for name, colour in (("a.png", "red"), ("b.png", "blue")):
        Image.new("RGB", (2, 1), colour).save(folder / name)
    return {name: (folder / name).read_bytes() for name in ("a.png", "b.png")}


@pytest.mark.both_legs
def test_image_files_are_embedded_in_the_parquet(tmp_path):
    data = tmp_path / "images"
    files = pictures(data)
    builder = builder_class(LEGACY_SCRIPTS / "image_bytes")(cache_dir=str(tmp_path / "cache"), data_dir=str(data))
    builder.download_and_prepare()
    table = builder.as_dataset("train").with_format("arrow")[:]
    assert table.column("image").to_pylist() == [{"bytes": None, "path": str(data / name)} for name in files]
    export = convert_here("image_bytes", tmp_path / "out", data_dir=data)
    assert pq.read_table(export / "default" / "train-00000-of-00001.parquet").column("image").to_pylist() == [
        {"bytes": content, "path": name} for name, content in files.items()]
    shutil.rmtree(data)  # the export stands alone
    reloaded = datasets.load_dataset(str(export), split="train", cache_dir=str(tmp_path / "reloaded"))
    assert [(row["name"], row["image"].size, row["image"].getpixel((1, 0))) for row in reloaded] == [
        ("a.png", (2, 1), (255, 0, 0)), ("b.png", (2, 1), (0, 0, 255))]


@pytest.mark.both_legs
def test_audio_and_images_in_lists_are_embedded_too(tmp_path):
    """Audio values (a script can give no others without soundfile or torchcodec, which encode them)
    and images inside a list: each file's bytes read in, a value that has its bytes kept."""
    (tmp_path / "a.wav").write_bytes(b"RIFF sound")
    (tmp_path / "b.png").write_bytes(b"PNG picture")
    features = datasets.Features({"audio": datasets.Audio(), "images": datasets.Sequence(datasets.Image())})
    table = pa.Table.from_pylist([{"audio": {"bytes": None, "path": str(tmp_path / "a.wav")},
                                   "images": [{"bytes": None, "path": str(tmp_path / "b.png")},
                                              {"bytes": b"given", "path": None}]}], schema=features.arrow_schema)
    assert checks.embed_media(table).to_pylist() == [{
        "audio": {"bytes": b"RIFF sound", "path": "a.wav"},
        "images": [{"bytes": b"PNG picture", "path": "b.png"}, {"bytes": b"given", "path": None}]}]


def test_a_table_without_media_is_left_as_it_is():
    table = pa.table({"text": ["a"]}).replace_schema_metadata(
        datasets.Features({"text": datasets.Value("string")}).arrow_schema.metadata)
    assert checks.embed_media(table) is table
