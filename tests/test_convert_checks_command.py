"""`corpora convert` with the checks datasets dropped (corpora/convert/checks.py), on every leg: a
split size other than the recorded one, a download other than the recorded one, a key yielded
twice, each one line and no export; images embedded in the export. On datasets 3.6, which reads
the records beside the script and raises its own errors first, the lines are the same."""

import hashlib
import json
import shutil
import time

import datasets
import pyarrow.parquet as pq
import pytest

from fault_server import FaultServer
from helpers import corpora_here
from helpers.legacy import legacy_script

pytestmark = pytest.mark.both_legs

MODIFIED = "to convert the sources as they are, use --allow-modified-sources"


def parquet_rows(export, config, split):
    return pq.read_table(export / config / f"{split}-00000-of-00001.parquet").to_pylist()


def write_lines(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{row}\n" for row in rows), encoding="utf-8")


def test_a_split_size_other_than_the_recorded_one_is_one_line(tmp_path):
    folder = legacy_script("size_mismatch", tmp_path / "scripts")
    given = tmp_path / "given"
    write_lines(given / "train.txt", ["one", "two", "three"])
    write_lines(given / "test.txt", ["four", "five"])
    code, out, err = corpora_here("convert", folder, "--data-dir", given, "--out", tmp_path / "out")
    assert (code, out) == (2, "")
    assert err == ("corpora convert: error: size_mismatch: split sizes differ from those dataset_infos.json records: "
                   f"default/train: recorded 5 examples, got 3; {MODIFIED}\n")
    assert [path.name for path in (tmp_path / "out").iterdir()] == [".size_mismatch.lock"]  # no export, no partial
    code, out, err = corpora_here("convert", folder, "--data-dir", given, "--out", tmp_path / "out",
                                  "--allow-modified-sources")
    assert (code, err) == (0, "")
    assert parquet_rows(tmp_path / "out" / "size_mismatch", "default", "train") == [
        {"sentence": "one"}, {"sentence": "two"}, {"sentence": "three"}]


@pytest.fixture
def words_served(tmp_path):
    """A server of words.txt on 127.0.0.1 (a port of this run's), and the sha256 the script's time recorded."""
    write_lines(tmp_path / "served" / "words.txt", ["alpha", "gamma"])
    server = FaultServer(tmp_path / "served")
    yield server, hashlib.sha256(b"alpha\nbeta\n").hexdigest()
    server.close()


def test_a_download_other_than_the_recorded_one_names_its_url_and_both_sha256(tmp_path, words_served, online):
    server, recorded = words_served
    url = f"{server.base}words.txt"
    folder = legacy_script("checksum_mismatch", tmp_path / "scripts")
    script = folder / "checksum_mismatch.py"
    script.write_text(script.read_text(encoding="utf-8").replace("http://127.0.0.1:0/", server.base), encoding="utf-8")
    (folder / "dataset_infos.json").write_text(json.dumps({"default": {
        "splits": {"train": {"name": "train", "num_examples": 2}},
        "download_checksums": {url: {"num_bytes": 11, "checksum": recorded}}}}), encoding="utf-8")
    code, out, err = corpora_here("convert", folder, "--out", tmp_path / "out")
    assert (code, out) == (2, "")
    served = hashlib.sha256(b"alpha\ngamma\n").hexdigest()
    assert err == ("corpora convert: error: checksum_mismatch: downloads differ from those dataset_infos.json records: "
                   f"{url}: sha256 {served}, recorded {recorded}; {MODIFIED}\n")
    assert server.requests["words.txt"] >= 1
    code, out, err = corpora_here("convert", folder, "--out", tmp_path / "out", "--allow-modified-sources")
    assert (code, err) == (0, "")
    assert parquet_rows(tmp_path / "out" / "checksum_mismatch", "default", "train") == [
        {"word": "alpha"}, {"word": "gamma"}]


def test_a_key_yielded_twice_is_one_line_naming_both_examples(tmp_path):
    folder = legacy_script("duplicate_key", tmp_path / "scripts")
    given = tmp_path / "given"
    given.mkdir()
    ids = [f"r{index}" for index in range(1_500)] + ["r4"]  # further apart than datasets 3.6's batch of 1,000
    (given / "records.jsonl").write_text("".join(json.dumps({"id": id_, "text": "t"}) + "\n" for id_ in ids))
    code, out, err = corpora_here("convert", folder, "--data-dir", given, "--out", tmp_path / "out")
    assert (code, out) == (2, "")
    assert err == ("corpora convert: error: duplicate_key/default/train: the key 'r4' is yielded twice, by examples "
                   "4 and 1,500 (counted from 0); keys must be unique in a split\n")
    (given / "records.jsonl").write_text("".join(json.dumps({"id": id_, "text": "t"}) + "\n" for id_ in "abcb"))
    code, out, err = corpora_here("convert", folder, "--data-dir", given, "--out", tmp_path / "out")
    assert (code, out) == (2, "")  # within one batch: datasets 3.6's own check would have said it first
    assert err == ("corpora convert: error: duplicate_key/default/train: the key 'b' is yielded twice, by examples "
                   "1 and 3 (counted from 0); keys must be unique in a split\n")


def test_images_given_as_paths_are_embedded_in_the_export(tmp_path):
    from PIL import Image

    folder = legacy_script("image_bytes", tmp_path / "scripts")
    given = tmp_path / "given"
    given.mkdir()
    for name, colour in (("a.png", "red"), ("b.png", "blue")):
        Image.new("RGB", (2, 1), colour).save(given / name)
    files = {name: (given / name).read_bytes() for name in ("a.png", "b.png")}
    code, out, err = corpora_here("convert", folder, "--data-dir", given, "--out", tmp_path / "out")
    assert (code, err) == (0, "")
    export = tmp_path / "out" / "image_bytes"
    assert parquet_rows(export, "default", "train") == [
        {"name": name, "image": {"bytes": content, "path": name}} for name, content in files.items()]
    shutil.rmtree(given)  # the export stands alone
    assert corpora_here("validate", export).returncode == 0
    reloaded = datasets.load_dataset(str(export), split="train", cache_dir=str(tmp_path / "reloaded"))
    assert [(row["name"], row["image"].getpixel((0, 0))) for row in reloaded] == [
        ("a.png", (255, 0, 0)), ("b.png", (0, 0, 255))]


def test_an_image_of_more_than_4096_bytes_is_exported_and_validated(tmp_path):
    # Its bytes are over pyarrow's statistics limit: no column index for image.bytes, the offset index kept.
    import random

    from PIL import Image

    folder = legacy_script("image_bytes", tmp_path / "scripts")
    given = tmp_path / "given"
    given.mkdir()
    Image.frombytes("RGB", (40, 40), random.Random(0).randbytes(40 * 40 * 3)).save(given / "noise.png")
    assert (given / "noise.png").stat().st_size > 4096
    assert corpora_here("convert", folder, "--data-dir", given, "--out", tmp_path / "out").returncode == 0
    export = tmp_path / "out" / "image_bytes"
    chunk = pq.ParquetFile(export / "default" / "train-00000-of-00001.parquet").metadata.row_group(0).column(1)
    assert (chunk.path_in_schema, chunk.has_column_index, chunk.has_offset_index) == ("image.bytes", False, True)
    code, out, err = corpora_here("validate", export)
    assert (code, err) == (0, "")
    parquet = [line for line in out.splitlines() if line.startswith(f"{export}: parquet files: ")]
    assert parquet == [f"{export}: parquet files: ok"]


def test_a_download_from_a_closed_port_is_one_line_naming_the_url_and_the_cause(tmp_path, online):
    folder = legacy_script("checksum_mismatch", tmp_path / "scripts")
    script = folder / "checksum_mismatch.py"
    script.write_text(script.read_text(encoding="utf-8").replace("127.0.0.1:0/", "127.0.0.1:9/"), encoding="utf-8")
    code, out, err = corpora_here("convert", folder, "--out", tmp_path / "out")
    assert (code, out) == (2, "")
    assert err == ("corpora convert: error: http://127.0.0.1:9/words.txt: no connection (connection refused): "
                   "no network, or the host cannot be reached\n")


@pytest.mark.parametrize("fault", ["stall", "silent"])
def test_a_download_that_stalls_ends_at_the_time_limit_in_one_line(tmp_path, words_served, online, monkeypatch, fault):
    """aiohttp alone would wait 300 s: half the file then silence, or no answer at all, ends after
    CORPORA_DOWNLOAD_TIMEOUT of silence (each request: fsspec asks twice before a download fails)."""
    server, _ = words_served
    server.plan["words.txt"] = [fault] * 4
    monkeypatch.setenv("CORPORA_DOWNLOAD_TIMEOUT", "1")
    folder = legacy_script("checksum_mismatch", tmp_path / "scripts")
    script = folder / "checksum_mismatch.py"
    script.write_text(script.read_text(encoding="utf-8").replace("http://127.0.0.1:0/", server.base), encoding="utf-8")
    started, get_from_cache = time.monotonic(), datasets.utils.file_utils.get_from_cache
    code, out, err = corpora_here("convert", folder, "--out", tmp_path / "out")
    assert (code, out) == (2, "")
    assert err == (f"corpora convert: error: {server.base}words.txt: no answer within 1 s (CORPORA_DOWNLOAD_TIMEOUT)\n")
    assert time.monotonic() - started < 30  # the limit met, far from aiohttp's 300 s
    assert datasets.utils.file_utils.get_from_cache is get_from_cache  # the URL-naming wrapper gone after
    assert [path.name for path in (tmp_path / "out").iterdir()] == [".checksum_mismatch.lock"]


@pytest.mark.parametrize(("fault", "said"), [("short", "the connection closed before the file was whole"),
                                             ("404", "the server answered HTTP 404 Not Found")])
def test_a_download_cut_short_or_refused_is_one_line_naming_the_url(tmp_path, words_served, online, fault, said):
    server, _ = words_served
    server.plan["words.txt"] = [fault] * 4
    folder = legacy_script("checksum_mismatch", tmp_path / "scripts")
    script = folder / "checksum_mismatch.py"
    script.write_text(script.read_text(encoding="utf-8").replace("http://127.0.0.1:0/", server.base), encoding="utf-8")
    code, out, err = corpora_here("convert", folder, "--out", tmp_path / "out")
    assert (code, out, err) == (2, "", f"corpora convert: error: {server.base}words.txt: {said}\n")
