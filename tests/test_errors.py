"""Errors a user can act on, each one line: Git LFS pointers, failed downloads (which URL, why,
how to build from a local copy), a missing token before any build, failed uploads, long lists
cut short, `checksums --config`, and a --data-dir laid out for another config. They run on the
example corpus (tests/example_collection): its figures and file names are read off its files."""

import functools
import http.server
import json
import re
import shutil
import socket
import threading

import datasets
import pytest

from corpora import errors
from corpora import push
from corpora import registry
from helpers import COLLECTION
from helpers import EXAMPLE
from helpers import EXAMPLE_RELEASE
from helpers import LFS
from helpers import QuietHandler
from helpers import corpora_here

pytestmark = pytest.mark.usefixtures("example_collection")

NAME = EXAMPLE
# The example's source files in the loader's order: sentences and ratings read the five JSON
# Lines files, raters reads raters.csv.
SENTENCE_FILES = ["data/train-1.jsonl", "data/train-2.jsonl", "data/train-3.jsonl", "data/validation.jsonl",
                  "data/test.jsonl"]
ALL_FILES = [*SENTENCE_FILES, "raters.csv"]


def copy_of(name, tmp_path):
    target = tmp_path / "copy"
    shutil.copytree(registry.get(name).dummy_dir, target)
    return target


def train_in_shards(monkeypatch, count):
    """The example's train split in `count` files instead of its 3 (train-1.jsonl ...): with all
    its other files, a list of source files long enough to be cut (up to 6 are all named, as "and
    1 more" would be no shorter). Only the file lists change: the checks tested here stop before
    the build starts."""
    corpus = registry.get(NAME)
    train = [f"data/train-{shard}.jsonl" for shard in range(1, count + 1)]
    monkeypatch.setitem(corpus.config("sentences").files, "train", train)  # the same dict as ratings'
    assert corpus.config("ratings").files["train"] == train


# --- Git LFS pointers ---------------------------------------------------------------------------


def test_lfs_pointers_are_found_before_the_checksums(capsys, tmp_path):
    copy = copy_of(NAME, tmp_path)
    (copy / "data" / "validation.jsonl").write_bytes(LFS)
    code, _, err = corpora_here("build", NAME, "--data-dir", str(copy), "--out", str(tmp_path / "out"))
    assert code == 1
    assert err == (
        f"corpora build: error: example_ratings: 1 source file(s) in {copy} are Git LFS pointers, not the data: "
        f"data/validation.jsonl; run `git lfs pull` in {copy} (a clone needs Git LFS for these files)\n"
    )
    # Modified sources are not compared with the release: the loader names the pointer itself.
    code, _, err = corpora_here("build", NAME, "--data-dir", str(copy), "--out", str(tmp_path / "out"),
                       "--allow-modified-sources")
    assert (code, err) == (1, "corpora build: error: data/validation.jsonl: is a Git LFS pointer, not the data; "
                              "fetch the real file (git lfs pull)\n")


def test_many_lfs_pointers_are_counted_and_cut(capsys, tmp_path, monkeypatch):
    copy = copy_of(NAME, tmp_path)
    for path in ALL_FILES:
        (copy / path).write_bytes(LFS)
    code, _, err = corpora_here("build", NAME, "--data-dir", str(copy), "--out", str(tmp_path / "out"))
    assert code == 1
    assert err == (  # six are all named
        f"corpora build: error: example_ratings: 6 source file(s) in {copy} are Git LFS pointers, not the data: "
        "data/train-1.jsonl, data/train-2.jsonl, data/train-3.jsonl, data/validation.jsonl, data/test.jsonl, "
        f"raters.csv; run `git lfs pull` in {copy} (a clone needs Git LFS for these files)\n"
    )
    train_in_shards(monkeypatch, 5)  # 8 files: the first five are named
    for shard in (4, 5):
        (copy / "data" / f"train-{shard}.jsonl").write_bytes(LFS)
    code, _, err = corpora_here("build", NAME, "--data-dir", str(copy), "--out", str(tmp_path / "out"))
    assert code == 1
    assert err == (
        f"corpora build: error: example_ratings: 8 source file(s) in {copy} are Git LFS pointers, not the data: "
        "data/train-1.jsonl, data/train-2.jsonl, data/train-3.jsonl, data/train-4.jsonl, data/train-5.jsonl, "
        f"and 3 more; run `git lfs pull` in {copy} (a clone needs Git LFS for these files)\n"
    )


def test_checksums_update_refuses_to_record_a_pointer(capsys, tmp_path, record_release):
    copy = copy_of(NAME, tmp_path)
    recorded = record_release(NAME, copy)  # a temporary checksums.tsv, so the real one is untouched
    before = recorded.read_text()
    (copy / "data" / "test.jsonl").write_bytes(LFS)
    code, out, err = corpora_here("checksums", NAME, "--data-dir", str(copy), "--update")
    assert code == 1
    assert err == (
        f"corpora checksums: error: example_ratings: 1 source file(s) in {copy} are Git LFS pointers, not the "
        f"data: data/test.jsonl; run `git lfs pull` in {copy} (a clone needs Git LFS for these files)\n"
    )
    assert out == ""
    assert recorded.read_text() == before


# --- checksums --config, layouts, long lists -----------------------------------------------------


def test_checksums_of_one_config(capsys):
    dummy = registry.get(NAME).dummy_dir
    code, out, _ = corpora_here("checksums", NAME, "--config", "raters", "--data-dir", str(dummy))
    assert code == 1  # the dummy files are not the release
    assert [line.split() for line in out.splitlines()[1:]] == [
        ["raters.csv", "64", "6a176703da456b4fbe54ee97ab3196a3a29b4fde2aa2c449d1f65167a53cf647", "differs"]
    ]
    code, out, _ = corpora_here("checksums", NAME, "--config", "ratings", "--data-dir", str(dummy))
    assert code == 1
    assert [line.split()[0] for line in out.splitlines()[1:]] == SENTENCE_FILES
    code, _, err = corpora_here("checksums", NAME, "--config", "xml")
    assert (code, err) == (
        1, "corpora checksums: error: example_ratings has no config 'xml'; configs: sentences, ratings, raters\n"
    )


def test_an_unknown_config_is_said_once_in_one_wording_by_the_corpus():
    from corpora import prepare

    said = f"{NAME} has no config 'xml'; configs: sentences, ratings, raters"
    with pytest.raises(errors.CorporaError) as caught:
        registry.get(NAME).config("xml")
    assert str(caught.value) == said
    with pytest.raises(errors.CorporaError) as caught:
        prepare.Request(registry.get(NAME), ("ratings", "xml"))
    assert str(caught.value) == said


def test_a_data_dir_of_another_config_says_which_config_reads_it(capsys, tmp_path):
    copy = copy_of(NAME, tmp_path)
    for path in SENTENCE_FILES:
        (copy / path).unlink()  # the raters' file only
    code, _, err = corpora_here("build", NAME, "--data-dir", str(copy), "--out", str(tmp_path / "out"))
    assert code == 1
    assert err == (
        f"corpora build: error: example_ratings: 5 source file(s) missing: {copy / 'data/train-1.jsonl'}, "
        f"{copy / 'data/train-2.jsonl'}, {copy / 'data/train-3.jsonl'}, {copy / 'data/validation.jsonl'}, "
        f"{copy / 'data/test.jsonl'}. {copy} holds the files of config 'raters': build only that with --config raters\n"
    )
    # The advice works for every command that reads a --data-dir: push takes --config too.
    push = ["push", NAME, "--repo-id", "a/b", "--dry-run", "--allow-modified-sources", "--data-dir", str(copy)]
    code, out, err = corpora_here(*push, "--config", "raters", "--out", str(tmp_path / "pushed"))
    assert (code, err) == (0, "")
    assert sorted(p.parent.name for p in (tmp_path / "pushed" / NAME).rglob("*.parquet")) == ["raters"]
    # The other way round: the files of two configs, and either can be built.
    shutil.rmtree(copy)
    copy = copy_of(NAME, tmp_path)
    (copy / "raters.csv").unlink()
    code, _, err = corpora_here("build", NAME, "--data-dir", str(copy), "--out", str(tmp_path / "out"))
    assert code == 1
    assert err == (
        f"corpora build: error: example_ratings: 1 source file(s) missing: {copy / 'raters.csv'}. {copy} holds the "
        "files of config 'sentences', 'ratings': build only that with --config sentences or --config ratings\n"
    )


def test_a_long_list_of_missing_files_is_cut(capsys, tmp_path, monkeypatch):
    data_dir = tmp_path / "src"  # not around --out/NAME: that is refused first
    data_dir.mkdir()
    code, _, err = corpora_here("build", NAME, "--data-dir", str(data_dir), "--out", str(tmp_path / "out"))
    assert code == 1
    assert err == (  # six are all named
        f"corpora build: error: example_ratings: 6 source file(s) missing: {data_dir / 'data/train-1.jsonl'}, "
        f"{data_dir / 'data/train-2.jsonl'}, {data_dir / 'data/train-3.jsonl'}, {data_dir / 'data/validation.jsonl'}, "
        f"{data_dir / 'data/test.jsonl'}, {data_dir / 'raters.csv'}\n"
    )
    train_in_shards(monkeypatch, 6)  # 9 files: the first five are named
    code, _, err = corpora_here("build", NAME, "--data-dir", str(data_dir), "--out", str(tmp_path / "out"))
    assert code == 1
    assert err == (
        f"corpora build: error: example_ratings: 9 source file(s) missing: {data_dir / 'data/train-1.jsonl'}, "
        f"{data_dir / 'data/train-2.jsonl'}, {data_dir / 'data/train-3.jsonl'}, {data_dir / 'data/train-4.jsonl'}, "
        f"{data_dir / 'data/train-5.jsonl'}, and 4 more\n"
    )


# --- downloads ----------------------------------------------------------------------------------


def serve(folder):
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def point_urls_at(monkeypatch, base):
    for config in registry.get(NAME).builder_class.BUILDER_CONFIGS:
        monkeypatch.setattr(config, "url_prefix", base)


def closed_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


LOCAL_COPY = "To build from a local copy of the upstream files instead, pass --data-dir DIR (data_dir= in Python)"


def test_a_missing_file_on_the_server_is_named_with_its_status(capsys, tmp_path, monkeypatch, online):
    served = tmp_path / "served"
    (served / "data").mkdir(parents=True)
    for shard in ("train-1.jsonl", "train-2.jsonl", "train-3.jsonl"):
        shutil.copy(registry.get(NAME).dummy_dir / "data" / shard, served / "data" / shard)
    server = serve(served)  # serves the train files only: validation.jsonl is a 404
    base = f"http://127.0.0.1:{server.server_port}/"
    point_urls_at(monkeypatch, base)
    try:
        code, _, err = corpora_here("build", NAME, "--out", str(tmp_path / "out"))
    finally:
        server.shutdown()
    assert code == 1
    assert err == (
        f"corpora build: error: example_ratings: cannot download {base}data/validation.jsonl: the server answered "
        f"HTTP 404 File not found. {LOCAL_COPY} with this file at DIR/data/validation.jsonl\n"
    )


def test_no_connection(capsys, tmp_path, monkeypatch, online):
    port = closed_port()
    point_urls_at(monkeypatch, f"http://127.0.0.1:{port}/")
    code, _, err = corpora_here("checksums", NAME)
    assert code == 1
    assert err == (
        f"corpora checksums: error: example_ratings: cannot download http://127.0.0.1:{port}/data/validation.jsonl: "
        f"no connection (connection refused): no network, or the host cannot be reached. "
        f"{LOCAL_COPY} with this file at DIR/data/validation.jsonl\n"
    )


RELEASE_URL = "https://example.org/corpora-example/ratings/v1/"


@pytest.fixture
def empty_download_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(datasets.config, "DOWNLOADED_DATASETS_PATH", tmp_path / "downloads")
    return tmp_path / "downloads" / "corpora" / NAME


@pytest.mark.parametrize("command", [["build", NAME], ["checksums", NAME], ["push", NAME, "--repo-id", "a/b", "--dry-run"]])
def test_offline_without_a_data_dir_counts_every_file_missing(capsys, tmp_path, empty_download_cache, command):
    code, _, err = corpora_here(*command, *(["--out", str(tmp_path)] if command[0] != "checksums" else []))
    assert (code, err) == (1, (  # in no common folder: data/ and the top
        f"corpora {command[0]}: error: example_ratings: cannot download 6 files, offline mode is on "
        "(HF_HUB_OFFLINE=1 or HF_DATASETS_OFFLINE=1); or build from a local copy: --data-dir DIR\n"))


def test_offline_counts_the_files_the_download_cache_lacks(capsys, tmp_path, empty_download_cache):
    """Files of the release already downloaded are used; a copy that fails its checksum is missing too."""
    for path in SENTENCE_FILES[1:]:
        (empty_download_cache / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(EXAMPLE_RELEASE / path, empty_download_cache / path)
    (empty_download_cache / "data" / "test.jsonl").write_text("gone bad\n")
    code, _, err = corpora_here("build", NAME, "--config", "sentences", "--out", str(tmp_path / "out"))
    assert (code, err) == (1, (  # both in data/
        "corpora build: error: example_ratings: cannot download 2 files in data/, offline mode is on (HF_HUB_OFFLINE=1 "
        "or HF_DATASETS_OFFLINE=1); or build from a local copy: --data-dir DIR\n"))
    (empty_download_cache / "data" / "test.jsonl").unlink()
    shutil.copy(EXAMPLE_RELEASE / "data" / "test.jsonl", empty_download_cache / "data" / "test.jsonl")
    code, _, err = corpora_here("build", NAME, "--config", "sentences", "--out", str(tmp_path / "out"))
    assert (code, err) == (1, (  # one file: the line it always was
        f"corpora build: error: example_ratings: cannot download {RELEASE_URL}data/train-1.jsonl: offline mode is on "
        f"(HF_HUB_OFFLINE=1 or HF_DATASETS_OFFLINE=1). {LOCAL_COPY} with this file at DIR/data/train-1.jsonl\n"))


@pytest.mark.parametrize("command", ["build", "checksums"])
def test_offline_many_files_are_one_short_line(capsys, empty_download_cache, monkeypatch, tmp_path, command):
    """The corpus of the collection under test with the most source files (476, in contests/): their count and
    folder, in at most 200 characters (once 1,364, with five URLs and five paths)."""
    monkeypatch.setenv("CORPORA_ROOT", str(COLLECTION))
    name = max(registry.names(), key=lambda each: len(registry.get(each).source_files()))
    code, _, err = corpora_here(command, name, *(["--out", str(tmp_path)] if command == "build" else []))
    line = (f"corpora {command}: error: {name}: cannot download 476 files in contests/, offline mode is on "
            "(HF_HUB_OFFLINE=1 or HF_DATASETS_OFFLINE=1); or build from a local copy: --data-dir DIR")
    assert (code, err, len(line)) == (1, line + "\n", {"build": 193, "checksums": 197}[command])


# --- push ---------------------------------------------------------------------------------------


def test_push_without_a_token_stops_before_building(capsys, tmp_path, monkeypatch):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.delenv("HUGGING_FACE_HUB_TOKEN", raising=False)
    code, out, err = corpora_here("push", NAME, "--repo-id", "my-org/ratings", "--data-dir",
                         str(registry.get(NAME).dummy_dir), "--allow-modified-sources", "--out", str(tmp_path / "out"))
    assert code == 1
    assert err == (
        "corpora push: error: no Hugging Face token: log in once with `hf auth login` (or `huggingface-cli login`), "
        "or set HF_TOKEN; --dry-run needs none\n"
    )
    assert out == ""
    assert not (tmp_path / "out").exists()


class RefusingHub(http.server.BaseHTTPRequestHandler):
    """Answers every call as the Hub does to a token without write access."""

    def log_message(self, *args):
        pass

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        body = json.dumps({"error": "You don't have the rights to create a dataset under the namespace my-org"}).encode()
        self.send_response(403)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Error-Message", "You don't have the rights to create a dataset under the namespace my-org")
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_HEAD = handle_any


def upload(capsys, tmp_path, monkeypatch, endpoint):
    from huggingface_hub import constants

    monkeypatch.setenv("HF_TOKEN", "hf_fakeTokenThatMustNeverBePrinted")
    monkeypatch.setattr(constants, "ENDPOINT", endpoint)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    return corpora_here("push", NAME, "--repo-id", "my-org/ratings", "--data-dir", str(registry.get(NAME).dummy_dir),
               "--allow-modified-sources", "--out", str(tmp_path / "out"))


def test_an_upload_the_hub_refuses_is_one_line(capsys, tmp_path, monkeypatch):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), RefusingHub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        code, _, err = upload(capsys, tmp_path, monkeypatch, f"http://127.0.0.1:{server.server_port}")
    finally:
        server.shutdown()
    assert code == 1
    # The repository is read before the build: a refusal costs no build.
    assert err == (
        "corpora push: error: example_ratings: reading dataset repository my-org/ratings failed: the server "
        "answered HTTP 403 Forbidden (You don't have the rights to create a dataset under the namespace my-org); "
        "nothing was built or uploaded\n"
    )
    assert not (tmp_path / "out").exists()


def test_an_upload_without_a_connection_is_one_line(capsys, tmp_path, monkeypatch):
    port = closed_port()
    code, _, err = upload(capsys, tmp_path, monkeypatch, f"http://127.0.0.1:{port}")
    assert code == 1
    # One line, whole; in the parentheses the HTTP client's own words, which differ between its versions.
    assert re.fullmatch(r"corpora push: error: example_ratings: reading dataset repository my-org/ratings failed: "
                        r"no connection \([^\n]+\): no network, or the host cannot be reached; nothing was built or "
                        r"uploaded\n", err), err
    assert not (tmp_path / "out").exists()


def test_describe_failure_reads_the_status_of_either_http_client():
    import aiohttp

    error = aiohttp.ClientResponseError(None, (), status=500, message="Internal Server Error")
    assert push.describe_failure(error) == "the server answered HTTP 500 Internal Server Error"
