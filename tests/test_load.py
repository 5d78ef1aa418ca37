"""`corpora.load`: load_dataset's arguments (split names and slices, streaming, num_proc), with the
release checks of `corpora build` (recorded checksums, official sizes, allow_modified_sources);
and the datasets 3.x script route, which checks the official sizes of the committed card. On the
example corpus (tests/example_collection), whose release and checksums are committed with it."""

import re
import shutil

import datasets
import pytest

from corpora import load
from corpora import registry
from corpora.errors import CorporaError
from helpers import EXAMPLE
from helpers import EXAMPLE_COLLECTION
from helpers import EXAMPLE_RELEASE
from helpers import run_process

pytestmark = pytest.mark.usefixtures("example_collection")

NAME = EXAMPLE
TEST_RATINGS = 10  # the official size of ratings/test
CUT_TEST_RATINGS = 8  # without the last sentence of data/test.jsonl (s19, rated by dara and emil)


@pytest.fixture
def cut_copy(tmp_path):
    """The release with the last sentence (one line) of data/test.jsonl cut off."""
    copy = tmp_path / "cut"
    shutil.copytree(EXAMPLE_RELEASE, copy)
    path = copy / "data" / "test.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:-1]), encoding="utf-8")
    return copy


def test_split_names_and_slices(dummy_build, tmp_path):
    full = dummy_build(NAME, "ratings")
    assert full["train"].num_rows == 10
    validation = load(NAME, "ratings", split="validation", dummy=True, cache_dir=tmp_path)
    assert isinstance(validation, datasets.Dataset)
    assert validation.to_list() == full["validation"].to_list()
    half = load(NAME, "ratings", split="train[:50%]", dummy=True, cache_dir=tmp_path)
    assert half.to_list() == full["train"].to_list()[:5]
    middle = load(NAME, "ratings", split="train[2:4]", dummy=True, cache_dir=tmp_path)
    assert middle.to_list() == full["train"].to_list()[2:4]
    both = load(NAME, "ratings", split="train+validation", dummy=True, cache_dir=tmp_path)
    assert both.to_list() == full["train"].to_list() + full["validation"].to_list()


def test_an_unknown_split_is_named_before_any_work(tmp_path):
    with pytest.raises(CorporaError) as caught:
        load(NAME, "ratings", split="train+dev[:10]", dummy=True, cache_dir=tmp_path)
    assert str(caught.value) == "example_ratings/ratings has no split 'dev[:10]'; splits: train, validation, test"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.both_legs
def test_streaming_one_split(dummy_build):
    stream = load(NAME, "ratings", split="test", dummy=True, streaming=True)
    assert isinstance(stream, datasets.IterableDataset)
    assert list(stream) == dummy_build(NAME, "ratings")["test"].to_list()
    with pytest.raises(CorporaError) as caught:
        load(NAME, "ratings", split="test[:2]", dummy=True, streaming=True)
    assert str(caught.value) == (
        "example_ratings/ratings: streaming takes one split name (train, validation, test), not 'test[:2]'; "
        "take a part of a stream with .take(n) and .skip(n)"
    )


@pytest.mark.both_legs
def test_streaming_from_the_urls_in_offline_mode_is_one_clear_error(monkeypatch):
    # The tests run offline (HF_DATASETS_OFFLINE=1); fsspec would say FileNotFoundError(URL) at
    # the first row, without why or what to do.
    for flag in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        if hasattr(datasets.config, flag):
            monkeypatch.setattr(datasets.config, flag, flag == "HF_DATASETS_OFFLINE")
    with pytest.raises(CorporaError) as caught:
        load(NAME, "sentences", split="test", streaming=True)
    assert str(caught.value) == (
        "example_ratings/sentences: cannot stream https://example.org/corpora-example/ratings/v1/data/train-1.jsonl "
        "(and 4 more pinned URL(s)): offline mode is on (HF_HUB_OFFLINE=1 or HF_DATASETS_OFFLINE=1), and streaming "
        "reads the pinned URLs as it goes. To stream a local copy of the upstream files instead, pass data_dir=DIR "
        "with this file at DIR/data/train-1.jsonl"
    )


STREAM_FROM = """
import sys, time
import corpora
from corpora import registry
for config in registry.get("example_ratings").builder_class.BUILDER_CONFIGS:
    config.url_prefix = sys.argv[1]
started = time.monotonic()
try:
    next(iter(corpora.load("example_ratings", "sentences", split="test", streaming=True)))
except corpora.errors.CorporaError as error:
    print(f"{time.monotonic() - started:.1f} {error} ({type(error.__cause__).__name__} from "
          f"{type(error.__cause__.__cause__).__name__})")
"""


@pytest.mark.parametrize("proxy", [None, "https", "http"])
def test_streaming_from_a_server_that_never_answers_gives_up_after_the_download_timeout(proxy, tmp_path):
    # A real process and a server on 127.0.0.1 that accepts connections and never answers: aiohttp
    # waits 5 minutes by default; CORPORA_DOWNLOAD_TIMEOUT=1 is 1 s of silence per request (fsspec
    # asks twice: HEAD, then GET). With `proxy`, that server is the proxy of the environment and
    # the URLs (of that scheme) a port of 127.0.0.1 where nothing listens: a time-out only through
    # the proxy (https: aiohttp reads the answer to its CONNECT without its read limit).
    import importlib.metadata
    import socket
    import sys
    import threading

    listener = socket.create_server(("127.0.0.1", 0))
    accepted = []
    threading.Thread(target=lambda: [accepted.append(listener.accept()[0]) for _ in range(10)], daemon=True).start()
    silent = f"http://127.0.0.1:{listener.getsockname()[1]}"
    env = dict(HF_HUB_OFFLINE="0", HF_DATASETS_OFFLINE="0", CORPORA_DOWNLOAD_TIMEOUT="1", HF_HOME=str(tmp_path / "home"))
    if proxy is None:
        base = f"{silent}/"
    else:
        with socket.create_server(("127.0.0.1", 0)) as closed:
            base = f"{proxy}://127.0.0.1:{closed.getsockname()[1]}/"
        env.update(HTTPS_PROXY=silent, HTTP_PROXY=silent, NO_PROXY="", no_proxy="")
    try:
        result = run_process([sys.executable, "-c", STREAM_FROM, base], env=env, timeout=120)
    finally:
        listener.close()
        for connection in accepted:
            connection.close()
    assert (result.returncode, result.stderr, len(accepted) >= 1) == (0, "", True)
    seconds, said = result.stdout.split(" ", 1)
    # corpora's line, from fsspec's FileNotFoundError(URL), from aiohttp's time-out: aiohttp 3.10 and later
    # SocketTimeoutError (ConnectionTimeoutError for CONNECT), earlier ServerTimeoutError
    aiohttp = tuple(int(part) for part in importlib.metadata.version("aiohttp").split(".")[:2])
    timed_out = "ServerTimeoutError" if aiohttp < (3, 10) else "ConnectionTimeoutError" if proxy == "https" else "SocketTimeoutError"
    assert said == (
        f"example_ratings/sentences: cannot stream {base}data/test.jsonl: no answer within 1 s. To stream a local copy "
        f"of the upstream files instead, pass data_dir=DIR with this file at DIR/data/test.jsonl (FileNotFoundError from "
        f"{timed_out})\n")
    # the limit met, not aiohttp's 5 minutes: a bound far from both, as a loaded machine took 11.9 s
    assert 1 <= float(seconds) < 60


@pytest.mark.both_legs  # datasets' streaming layer (its retries, its errors) differs between versions
def test_a_stream_whose_server_stops_answering_ends_in_one_line(monkeypatch, online):
    """A real HTTP server (tests/fault_server.py) that sends the headers and half of data/test.jsonl,
    then nothing, on every request: datasets tries the read CORPORA_DOWNLOAD_RETRIES + 1 times (its
    own default: 20 times, 5 s apart), then corpora says what happened, not datasets' bare
    ConnectionError("Server Disconnected"). A stream before it, with the default time limit, has
    left fsspec a file system of its own: the stalled reads still end after 1 s, as the line says."""
    import time

    from fault_server import FaultServer

    assert [row["sentence_id"] for row in streamed_from(FaultServer(EXAMPLE_RELEASE), monkeypatch)] == SENTENCES
    for variable, value in {"TIMEOUT": "1", "RETRIES": "2", "BACKOFF": "0.01"}.items():
        monkeypatch.setenv(f"CORPORA_DOWNLOAD_{variable}", value)
    server = FaultServer(EXAMPLE_RELEASE, {"data/test.jsonl": ["stall"] * 10})
    started = time.monotonic()
    with pytest.raises(CorporaError) as caught:
        streamed_from(server, monkeypatch)
    assert time.monotonic() - started < 10  # three tries of 1 s, not of the default 30 s
    assert str(caught.value) == (
        f"example_ratings/sentences: cannot stream {server.base}data/test.jsonl: nothing came for 1 s (3 tries). To "
        "stream a local copy of the upstream files instead, pass data_dir=DIR with this file at DIR/data/test.jsonl"
    )
    assert type(caught.value.__cause__) is ConnectionError
    assert server.requests["data/test.jsonl"] == 4  # fsspec's GET for the size, then the three tries of the read
    assert datasets.config.STREAMING_READ_MAX_RETRIES == 20  # datasets' own again once the stream is over
    # A stream of the same files that is whole afterwards: nothing of the failure stays.
    assert [row["sentence_id"] for row in streamed_from(FaultServer(EXAMPLE_RELEASE), monkeypatch)] == SENTENCES


@pytest.mark.both_legs  # datasets' streaming layer (its retries, its errors) differs between versions
def test_a_stream_whose_server_cuts_every_read_short_ends_in_one_line(monkeypatch, online):
    """The server sends half of data/test.jsonl and closes the connection, on every request: not
    datasets' bare ConnectionError("Server Disconnected"), but the line naming the URL (a stranger's trial)."""
    from fault_server import FaultServer

    for variable, value in {"RETRIES": "2", "BACKOFF": "0.01"}.items():
        monkeypatch.setenv(f"CORPORA_DOWNLOAD_{variable}", value)
    server = FaultServer(EXAMPLE_RELEASE, {"data/test.jsonl": ["short"] * 10})
    with pytest.raises(CorporaError) as caught:
        streamed_from(server, monkeypatch)
    assert str(caught.value) == (
        f"example_ratings/sentences: cannot stream {server.base}data/test.jsonl: the connection closed before the file "
        "was whole (3 tries). To stream a local copy of the upstream files instead, pass data_dir=DIR with this file "
        "at DIR/data/test.jsonl"
    )
    assert type(caught.value.__cause__) is ConnectionError
    assert server.requests["data/test.jsonl"] == 4  # fsspec's GET for the size, then the three tries of the read


@pytest.mark.both_legs  # datasets' streaming layer (its retries, its errors) differs between versions
def test_a_cut_stream_shows_the_user_one_line_and_none_of_datasets_retries(tmp_path):
    """A real process: datasets logs each retry of a read ("Got disconnected from remote data host. Retrying
    in ...") to standard error; the user sees corpora's line alone, which counts the tries."""
    import sys

    from fault_server import FaultServer

    server = FaultServer(EXAMPLE_RELEASE, {"data/test.jsonl": ["short"] * 10})
    env = dict(HF_HUB_OFFLINE="0", HF_DATASETS_OFFLINE="0", CORPORA_DOWNLOAD_RETRIES="2", CORPORA_DOWNLOAD_BACKOFF="0.01",
               HF_HOME=str(tmp_path / "home"))
    try:
        result = run_process([sys.executable, "-c", STREAM_FROM, server.base], env=env, timeout=120)
    finally:
        server.close()
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.split(" ", 1)[1] == (
        f"example_ratings/sentences: cannot stream {server.base}data/test.jsonl: the connection closed before the file "
        "was whole (3 tries). To stream a local copy of the upstream files instead, pass data_dir=DIR with this file "
        "at DIR/data/test.jsonl (ConnectionError from ClientPayloadError)\n")
    assert server.requests["data/test.jsonl"] == 4  # fsspec's GET for the size, then the three tries of the read


@pytest.mark.both_legs  # datasets' streaming layer (its retries, its errors) differs between versions
@pytest.mark.parametrize("fault, reason", [
    ("500", "the server answered HTTP 500 Internal Server Error"),
    ("404", "the server answered HTTP 404 Not Found"),
    ("reset", "the connection was reset"),
    ("gone", "no connection (connection refused): no network, or the host cannot be reached"),
])
def test_a_stream_whose_server_refuses_a_file_names_its_url_and_why(monkeypatch, online, fault, reason):
    """Not fsspec's bare FileNotFoundError(URL) (`error: URL` on the command line): the line names the URL and why."""
    from fault_server import FaultServer

    for variable, value in {"RETRIES": "1", "BACKOFF": "0.01"}.items():
        monkeypatch.setenv(f"CORPORA_DOWNLOAD_{variable}", value)
    server = FaultServer(EXAMPLE_RELEASE, {"data/test.jsonl": [fault] * 10})
    if fault == "gone":  # nothing listens at its address any more
        server.close()
    with pytest.raises(CorporaError) as caught:
        streamed_from(server, monkeypatch)
    assert str(caught.value) == (
        f"example_ratings/sentences: cannot stream {server.base}data/test.jsonl: {reason}. To stream a local copy of "
        "the upstream files instead, pass data_dir=DIR with this file at DIR/data/test.jsonl"
    )
    assert type(caught.value.__cause__) is FileNotFoundError


SENTENCES = ["s16", "s17", "s18", "s19"]  # of the test split


def streamed_from(server, monkeypatch):
    """The rows of the example's test sentences streamed from `server`, closed afterwards."""
    try:
        for config in registry.get(NAME).builder_class.BUILDER_CONFIGS:
            monkeypatch.setattr(config, "url_prefix", server.base)
        return list(load(NAME, "sentences", split="test", streaming=True))
    finally:
        server.close()


@pytest.mark.both_legs
def test_num_proc_gives_the_rows_of_one_process(dummy_build, tmp_path):
    # The dummy train split is three files: two processes share them.
    loaded = load(NAME, "sentences", dummy=True, num_proc=2, cache_dir=tmp_path)
    assert {split: loaded[split].num_rows for split in loaded} == {"train": 4, "validation": 2, "test": 2}
    assert {split: loaded[split].to_list() for split in loaded} == {
        split: part.to_list() for split, part in dummy_build(NAME, "sentences").items()
    }


def test_the_recorded_release_loads(tmp_path):
    test = load(NAME, "ratings", split="test", data_dir=EXAMPLE_RELEASE, cache_dir=tmp_path)
    assert test.num_rows == TEST_RATINGS


def test_a_cut_copy_is_refused_by_its_checksums(cut_copy, tmp_path):
    with pytest.raises(CorporaError) as caught:
        load(NAME, "ratings", data_dir=cut_copy, cache_dir=tmp_path)
    # expected: loaders/example_ratings/checksums.tsv; found: the release's test.jsonl without its last line
    assert str(caught.value) == (
        "example_ratings: 1 source file(s) differ from the recorded release: "
        "https://example.org/corpora-example/ratings/v1/data/test.jsonl (443 bytes, recorded 589). If the new files "
        "are right, record "
        "them with `corpora checksums example_ratings --update`; to build them once without recording, use "
        "--allow-modified-sources."
    )


def test_a_cut_copy_recorded_as_the_release_is_refused_by_the_official_sizes(cut_copy, record_release, tmp_path):
    record_release(NAME, cut_copy)  # e.g. `corpora checksums --update` run on the wrong files
    cut_rows = load(NAME, "ratings", split="test", data_dir=cut_copy, cache_dir=tmp_path / "a",
                    allow_modified_sources=True).num_rows
    assert cut_rows == CUT_TEST_RATINGS
    with pytest.raises(CorporaError) as caught:
        load(NAME, "ratings", data_dir=cut_copy, cache_dir=tmp_path / "b")
    assert str(caught.value) == (
        "example_ratings: split sizes differ from the official ones: ratings/test: 8 rows "
        "(official 10). To build a fixed, extended or cut copy anyway, use --allow-modified-sources "
        "(allow_modified_sources=True in Python)"
    )


def test_allow_modified_sources_loads_a_cut_copy(cut_copy, tmp_path):
    loaded = load(NAME, "ratings", data_dir=cut_copy, cache_dir=tmp_path, allow_modified_sources=True)
    assert {split: loaded[split].num_rows for split in loaded} == {"train": 30, "validation": 7, "test": CUT_TEST_RATINGS}
    # the dummy data are no release either (its 5 files of ratings are a subset of the release's),
    # and load as such only with dummy=True or the flag
    with pytest.raises(CorporaError, match="^example_ratings: 5 source file"):
        load(NAME, "ratings", data_dir=registry.get(NAME).dummy_dir, cache_dir=tmp_path / "d")


@pytest.mark.datasets3
def test_the_script_route_refuses_a_cut_copy(cut_copy, tmp_path, monkeypatch):
    """datasets 3.x checks a script's builds against the committed card's official sizes."""
    monkeypatch.chdir(EXAMPLE_COLLECTION)
    with pytest.raises(datasets.utils.info_utils.NonMatchingSplitsSizesError) as caught:
        datasets.load_dataset(f"loaders/{NAME}", "ratings", data_dir=str(cut_copy), trust_remote_code=True,
                              cache_dir=str(tmp_path))
    # the committed card's record of the release: 10 ratings in 267 bytes
    assert "'expected': SplitInfo(name='test', num_bytes=267, num_examples=10," in str(caught.value)
    # what was built: the 8 ratings of the cut copy (its byte size is datasets' own figure)
    assert re.search(r"'recorded': SplitInfo\(name='test', num_bytes=\d+, num_examples=8,", str(caught.value))
    assert str(caught.value).count("'expected'") == 1  # only the test split differs


# --- one preparation (corpora.prepare): corpora.load and corpora build prepare a config the same way


@pytest.mark.parametrize("route", ["load", "build"])
@pytest.mark.parametrize("more,read", [(1, 6), (-1, 4)], ids=["lost", "invented"])
def test_a_record_lost_or_invented_between_the_count_and_the_examples_stops_load_and_build_alike(
        route, more, read, monkeypatch, tmp_path):
    from corpora import export_folder
    from corpora import prepare

    config = registry.get(NAME).config("ratings")
    counted = config.counter
    # One source record more than the builder yields (as if the typing code dropped one), or one
    # fewer (as if it made one up).
    monkeypatch.setattr(config, "counter",
                        lambda config, split, paths: counted(config, split, paths) + more * (split == "validation"))
    with pytest.raises(CorporaError) as caught:
        if route == "load":
            load(NAME, "ratings", dummy=True, cache_dir=tmp_path / "cache")
        else:
            export_folder.export(prepare.Request(registry.get(NAME), ("ratings",), dummy=True), tmp_path / "out")
    assert str(caught.value) == (
        f"{NAME}: rows in != rows out: ratings/validation: {read} source records read, 5 examples written"
    )
    assert not (tmp_path / "out" / NAME).exists()


def test_a_request_names_its_configs_once_and_refuses_what_cannot_be_built():
    from corpora import prepare

    assert prepare.Request(registry.get(NAME), ("raters", "raters", "sentences")).configs == ("raters", "sentences")
    assert prepare.Request(registry.get(NAME)).configs == tuple(registry.get(NAME).configs)
    with pytest.raises(CorporaError) as caught:
        prepare.Request(registry.get(NAME), ("scores",))
    assert str(caught.value) == f"{NAME} has no config 'scores'; configs: sentences, ratings, raters"
    with pytest.raises(CorporaError) as caught:
        prepare.Request(registry.get(NAME), data_dir="somewhere", dummy=True)
    assert str(caught.value) == "give either a data_dir or dummy=True, not both"


def test_the_loader_counts_the_records_of_the_config_itself(monkeypatch):
    corpus = registry.get(NAME)
    given = []
    monkeypatch.setattr(corpus.config("raters"), "counter", lambda config, split, paths: given.append(config) or 0)
    assert corpus.count_source_records("raters", "train", []) == 0
    assert given == [corpus.config("raters")] and given[0].files == {"train": ["raters.csv"]}


def test_a_split_already_in_the_cache_is_not_counted_again(monkeypatch, tmp_path):
    config = registry.get(NAME).config("ratings")
    counted, calls = config.counter, []
    monkeypatch.setattr(config, "counter", lambda config, split, paths: calls.append(split) or counted(config, split, paths))
    first = load(NAME, "ratings", dummy=True, cache_dir=tmp_path)
    assert calls == ["train", "validation", "test"]
    again = load(NAME, "ratings", dummy=True, cache_dir=tmp_path)
    assert calls == ["train", "validation", "test"]  # datasets' cache: counted when it was made
    assert again["test"].to_list() == first["test"].to_list()


def test_an_export_refuses_config_parameters(tmp_path):
    from corpora import export_folder
    from corpora import prepare

    request = prepare.Request(registry.get(NAME), ("ratings",), dummy=True, config_kwargs={"raters": ["dara"]})
    with pytest.raises(CorporaError) as caught:
        export_folder.export(request, tmp_path / "out")
    assert str(caught.value) == f"{NAME}: an export holds whole configs; config parameters are for corpora.load"
    assert not (tmp_path / "out").exists()
