"""Downloads of the pinned URLs against a real HTTP server on 127.0.0.1 that injects faults
(tests/fault_server.py): each fault gives its one line and exit code after the expected number
of requests, nothing bad is kept in the download cache, and a later build against a healthy
server with the same cache succeeds. They run on the example corpus and its release files."""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import datasets
import huggingface_hub
import pytest

from corpora import download
from corpora import registry
from corpora.cli import main
from fault_server import HTML
from fault_server import FaultServer
from helpers import EXAMPLE
from helpers import EXAMPLE_COLLECTION
from helpers import EXAMPLE_RELEASE
from helpers import docs_table_rows
from helpers import write_docs_table

pytestmark = [pytest.mark.usefixtures("example_collection"), pytest.mark.other_dependencies]

NAME = EXAMPLE
FILE = "data/train-1.jsonl"  # 759 bytes, the first file of the sentences config
SIZE = 759
LOCAL_COPY = (f"To build from a local copy of the upstream files instead, pass --data-dir DIR (data_dir= in Python) "
              f"with this file at DIR/{FILE}")
# The sentences config reads the five JSON Lines files.
SENTENCE_FILES = ["data/train-1.jsonl", "data/train-2.jsonl", "data/train-3.jsonl", "data/validation.jsonl",
                  "data/test.jsonl"]


@pytest.fixture
def cache(tmp_path, monkeypatch, online):
    """A download cache of the test's own, online (only 127.0.0.1 is reachable: the no_network guard of tests/conftest.py),
    a 1 s timeout, 2 retries and short waits."""
    monkeypatch.setattr(datasets.config, "DOWNLOADED_DATASETS_PATH", tmp_path / "downloads")
    monkeypatch.setenv("CORPORA_DOWNLOAD_TIMEOUT", "1")
    monkeypatch.setenv("CORPORA_DOWNLOAD_RETRIES", "2")
    monkeypatch.setenv("CORPORA_DOWNLOAD_BACKOFF", "0.01")
    return download.cache_folder(NAME)


@pytest.fixture
def serve(monkeypatch):
    """serve(plan): the example's release files behind a FaultServer, the loader's URLs pointed at it."""
    servers = []

    def start(plan=None):
        server = FaultServer(EXAMPLE_RELEASE, plan)
        servers.append(server)
        for config in registry.get(NAME).builder_class.BUILDER_CONFIGS:
            monkeypatch.setattr(config, "url_prefix", server.base)
        monkeypatch.setattr(registry.Corpus, "checksums_path", property(lambda corpus: _records(corpus, server.base)))
        return server

    yield start
    for server in servers:
        server.close()


def _records(corpus, base):
    """The example's checksums.tsv with its URLs moved to the server's (same sizes and sha256)."""
    original = corpus.loader_dir / "checksums.tsv"
    moved = download.cache_folder(NAME).parent / "checksums-moved.tsv"
    moved.parent.mkdir(parents=True, exist_ok=True)
    moved.write_text(original.read_text().replace("https://example.org/corpora-example/ratings/v1/", base))
    return moved


def build(capsys, tmp_path):
    code = main(["build", NAME, "--config", "sentences", "--out", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    return code, out, err


def failure(server, reason):
    return f"corpora build: error: {NAME}: cannot download {server.base}{FILE}: {reason}. {LOCAL_COPY}\n"


def retries(server, reason, tries):
    """The line said before each retry (the test's backoff: 0.01 s, doubled), `tries` in all."""
    reason = reason.removesuffix(f" ({tries} tries)")
    return "".join(f"corpora: {server.base}{FILE}: {reason}; trying again in {0.01 * 2 ** n:g} s (try {n + 2} of 3)\n"
                   for n in range(tries - 1))


def healthy_build_succeeds(capsys, tmp_path, cache):
    code, out, err = build(capsys, tmp_path)
    assert (code, err) == (0, "")
    assert "sentences  train" in out
    assert sorted(p.relative_to(cache).as_posix() for p in cache.rglob("*") if p.is_file()) == sorted(SENTENCE_FILES)


FAILURES = [
    # fault (every try), the reason said, the requests made
    ("short", f"the connection closed after 379 of {SIZE} bytes (3 tries)", 3),
    ("long_length", f"the connection closed after {SIZE} of {SIZE + 100} bytes (3 tries)", 3),
    ("reset", "the connection was reset (3 tries)", 3),
    ("stall", "nothing came for 1 s (3 tries)", 3),
    ("trickle", "the transfer stalled (less than 1 KiB in 1 s) (3 tries)", 3),
    ("500", "the server answered HTTP 500 Internal Server Error (3 tries)", 3),
    ("503", "the server answered HTTP 503 Service Unavailable (3 tries)", 3),
    ("404", "the server answered HTTP 404 Not Found", 1),
    ("loop", "the server redirects in a loop (more than 30 redirects)", 31),
    ("html", "the server sent an HTML page, not the data", 1),
    ("lfs", "the server sent a Git LFS pointer, not the data", 1),
]


@pytest.mark.parametrize(("fault", "reason", "requests"), FAILURES, ids=[case[0] for case in FAILURES])
def test_a_fault_is_one_line_and_the_next_build_against_a_healthy_server_succeeds(
    capsys, tmp_path, cache, serve, fault, reason, requests
):
    server = serve({FILE: [fault] * requests})
    code, out, err = build(capsys, tmp_path)
    said = retries(server, reason, requests) if "tries)" in reason else ""
    assert (code, out, err) == (1, "", said + failure(server, reason))
    assert "--update" not in err and "--allow-modified-sources" not in err
    assert server.requests[FILE] == requests
    # Nothing of the failed download is kept, not even a part (it is the first file fetched).
    assert [p for p in cache.rglob("*") if p.is_file()] == []
    healthy_build_succeeds(capsys, tmp_path, cache)
    assert server.requests[FILE] == requests + 1


HEALING = {"short": f"the connection closed after 379 of {SIZE} bytes", "reset": "the connection was reset",
           "500": "the server answered HTTP 500 Internal Server Error",
           "503": "the server answered HTTP 503 Service Unavailable", "stall": "nothing came for 1 s"}


@pytest.mark.parametrize("fault", list(HEALING))
def test_a_fault_that_heals_on_the_second_request_is_retried_and_said(capsys, tmp_path, cache, serve, fault):
    server = serve({FILE: [fault]})
    code, out, err = build(capsys, tmp_path)
    assert (code, err) == (0, f"corpora: {server.base}{FILE}: {HEALING[fault]}; trying again in 0.01 s (try 2 of 3)\n")
    healthy_build_succeeds(capsys, tmp_path, cache)
    assert server.requests[FILE] == 2
    assert all(server.requests[path] == 1 for path in SENTENCE_FILES if path != FILE)


def test_429_waits_as_retry_after_asks(capsys, tmp_path, cache, serve):
    server = serve({FILE: ["429"]})
    started = time.monotonic()
    code, _, err = build(capsys, tmp_path)
    assert time.monotonic() - started >= 1.0  # Retry-After: 1, not the 0.01 s backoff
    assert (code, err) == (0, f"corpora: {server.base}{FILE}: the server answered HTTP 429 Too Many Requests; trying "
                              "again in 1 s (try 2 of 3)\n")
    healthy_build_succeeds(capsys, tmp_path, cache)
    assert server.requests[FILE] == 2


@pytest.mark.parametrize(("fault", "found"), [("different", "the recorded size, another sha256"),
                                              ("short_length", f"{SIZE - 10} bytes, recorded {SIZE}")])
def test_the_server_sending_other_bytes_is_named_and_nothing_is_kept(capsys, tmp_path, cache, serve, fault, found):
    server = serve({FILE: [fault]})
    code, out, err = build(capsys, tmp_path)
    assert (code, out) == (1, "")
    assert err == (
        f"corpora build: error: {NAME}: 1 file(s) the server sent differ from the recorded release: "
        f"{server.base}{FILE} ({found}). If the new files are right, record them with "
        f"`corpora checksums {NAME} --update`; to build them once without recording, use --allow-modified-sources.\n"
    )
    assert server.requests[FILE] == 1
    assert not (cache / FILE).exists()
    healthy_build_succeeds(capsys, tmp_path, cache)


@pytest.mark.both_legs  # the builder reads the download cache as a local copy, on every datasets version
def test_a_bad_copy_in_the_cache_is_downloaded_again_once(capsys, tmp_path, cache, serve):
    server = serve()
    healthy_build_succeeds(capsys, tmp_path, cache)
    (cache / FILE).write_bytes(b'{"truncated": ')  # a copy gone bad (an old tool, a disk error, a hand)
    healthy_build_succeeds(capsys, tmp_path, cache)
    assert server.requests[FILE] == 2
    assert all(server.requests[path] == 1 for path in SENTENCE_FILES if path != FILE)  # the good copies are kept


def test_a_bad_cached_copy_and_a_server_sending_other_bytes_say_it_is_the_server(capsys, tmp_path, cache, serve):
    server = serve({FILE: ["ok", "different"]})
    healthy_build_succeeds(capsys, tmp_path, cache)
    (cache / FILE).write_bytes(b"gone bad")
    code, _, err = build(capsys, tmp_path)
    assert code == 1
    assert err.startswith(f"corpora build: error: {NAME}: 1 file(s) the server sent differ from the recorded release: "
                          f"{server.base}{FILE} (the recorded size, another sha256).")
    assert server.requests[FILE] == 2
    assert not (cache / FILE).exists()


def test_a_build_with_modified_sources_builds_what_the_server_sent(capsys, tmp_path, cache, serve):
    server = serve({FILE: ["different"]})  # its first byte, "{", becomes "z"
    code = main(["build", NAME, "--config", "sentences", "--out", str(tmp_path / "out"), "--allow-modified-sources"])
    assert code == 1
    assert capsys.readouterr().err == (
        f"corpora build: error: {FILE}, line 1: invalid JSON (Expecting value: line 1 column 1 (char 0))\n"
    )
    assert (cache / FILE).read_bytes() == b"z" + (EXAMPLE_RELEASE / FILE).read_bytes()[1:]
    healthy_build_succeeds(capsys, tmp_path, cache)  # the modified copy fails the check: fetched again
    assert server.requests[FILE] == 2


def test_a_retry_after_beyond_the_limit_is_not_waited_for(capsys, tmp_path, cache, serve, monkeypatch):
    monkeypatch.setattr(download, "MAX_RETRY_AFTER", 0.5)
    server = serve({FILE: ["429"]})
    code, _, err = build(capsys, tmp_path)
    assert (code, err) == (1, failure(server, "the server answered HTTP 429 Too Many Requests, and asks to wait 1 s "
                                              "(more than 0.5 s)"))
    assert server.requests[FILE] == 1


@pytest.mark.parametrize(("variable", "value"), [
    ("CORPORA_DOWNLOAD_TIMEOUT", "0"), ("CORPORA_DOWNLOAD_RETRIES", "x"),
    # float() reads these, in any case: an infinite or undefined wait is no setting either.
    ("CORPORA_DOWNLOAD_TIMEOUT", "nan"), ("CORPORA_DOWNLOAD_TIMEOUT", "inf"), ("CORPORA_DOWNLOAD_TIMEOUT", "-inf"),
    ("CORPORA_DOWNLOAD_BACKOFF", "NaN"), ("CORPORA_DOWNLOAD_BACKOFF", "Infinity"), ("CORPORA_DOWNLOAD_BACKOFF", "-INF"),
])
def test_a_bad_setting_is_named(capsys, tmp_path, cache, serve, monkeypatch, variable, value):
    serve()
    monkeypatch.setenv(variable, value)
    code, _, err = build(capsys, tmp_path)
    assert (code, err) == (1, f"corpora build: error: {variable}={value!r}: expected a positive number\n")


@pytest.mark.parametrize("scheme", ["https", "http"])
def test_a_proxy_that_never_answers_is_the_same_timeout(capsys, tmp_path, cache, monkeypatch, scheme):
    """The proxy of the environment, a server on 127.0.0.1 that accepts connections and never
    answers; the URL a port of 127.0.0.1 where nothing listens: a time-out only through the proxy
    (https: its answer to CONNECT never comes)."""
    import socket
    import threading

    listener = socket.create_server(("127.0.0.1", 0))
    accepted = []
    threading.Thread(target=lambda: [accepted.append(listener.accept()[0]) for _ in range(3)], daemon=True).start()
    with socket.create_server(("127.0.0.1", 0)) as closed:
        url = f"{scheme}://127.0.0.1:{closed.getsockname()[1]}/{FILE}"
    for variable in ("HTTPS_PROXY", "HTTP_PROXY"):
        monkeypatch.setenv(variable, f"http://127.0.0.1:{listener.getsockname()[1]}")
    try:
        with pytest.raises(download.DownloadFailed) as failed:
            download.fetch(url, tmp_path / "file")
    finally:
        listener.close()
        for connection in accepted:
            connection.close()
    assert failed.value.reason == "no answer within 1 s (3 tries)"
    assert len(accepted) == 3
    assert capsys.readouterr().err == "".join(
        f"corpora: {url}: no answer within 1 s; trying again in {0.01 * 2 ** n:g} s (try {n + 2} of 3)\n"
        for n in range(2))


def test_a_full_download_cache_names_its_folder(tmp_path):
    """HF_HOME on a 16 KiB tmpfs, in a mount namespace of a real `corpora build` whose loader's
    URLs point at the server; the file served is 64 KiB."""
    if shutil.which("unshare") is None:
        pytest.skip("no `unshare` to mount a small tmpfs")
    collection = tmp_path / "collection"
    shutil.copytree(EXAMPLE_COLLECTION, collection, ignore=shutil.ignore_patterns("release"))
    served = tmp_path / "served"
    shutil.copytree(EXAMPLE_RELEASE, served)
    (served / FILE).write_bytes((served / FILE).read_bytes() * 90)
    server = FaultServer(served)
    try:
        loader = collection / "loaders" / NAME / f"{NAME}.py"
        loader.write_text(loader.read_text().replace("https://example.org/corpora-example/ratings/v1/", server.base))
        home = tmp_path / "hf"
        home.mkdir()
        script = f'mount -t tmpfs -o size=16k tmpfs "{home}" && exec "$@"'
        prefix = ["unshare", *(["-rm"] if os.geteuid() else ["-m"]), "sh", "-c", script, "sh"]
        probe = subprocess.run([*prefix, "true"], capture_output=True, text=True, check=False)
        if probe.returncode:
            pytest.skip(f"cannot mount a tmpfs here: {probe.stderr.strip()}")
        env = dict(os.environ, CORPORA_ROOT=str(collection), HF_HOME=str(home), HF_HUB_OFFLINE="0",
                   HF_DATASETS_OFFLINE="0", HF_DATASETS_DISABLE_PROGRESS_BARS="1")
        argv = [sys.executable, "-m", "corpora.cli", "build", NAME, "--config", "sentences", "--out", str(tmp_path / "out")]
        result = subprocess.run([*prefix, *argv], capture_output=True, text=True, env=env, timeout=300, check=False)
    finally:
        server.close()
    folder = home / "datasets" / "downloads" / "corpora" / NAME / "data"
    assert (result.returncode, result.stderr) == (1, f"corpora build: error: {folder}: No space left on device\n")


def test_the_partial_file_of_a_killed_download_is_removed_by_the_next_build(tmp_path):
    """A real `corpora build` killed (SIGKILL: no `finally` runs) while the server holds back the
    second half of the file; a later build with the same download cache removes what it left."""
    collection = tmp_path / "collection"
    shutil.copytree(EXAMPLE_COLLECTION, collection, ignore=shutil.ignore_patterns("release"))
    server = FaultServer(EXAMPLE_RELEASE, {FILE: ["stall"]})
    try:
        for moved in (collection / "loaders" / NAME / f"{NAME}.py", collection / "loaders" / NAME / "checksums.tsv"):
            moved.write_text(moved.read_text().replace("https://example.org/corpora-example/ratings/v1/", server.base))
        env = dict(os.environ, CORPORA_ROOT=str(collection), HF_HOME=str(tmp_path / "hf"), HF_HUB_OFFLINE="0",
                   HF_DATASETS_OFFLINE="0", HF_DATASETS_DISABLE_PROGRESS_BARS="1", CORPORA_DOWNLOAD_TIMEOUT="60")
        argv = [sys.executable, "-m", "corpora.cli", "build", NAME, "--config", "sentences", "--out", str(tmp_path / "out")]
        cache = tmp_path / "hf" / "datasets" / "downloads" / "corpora" / NAME
        killed = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 120
            # The part is opened before the body is read; its bytes stay in the writer's buffer.
            while not list(cache.rglob(".train-1.jsonl.part-*")):
                assert killed.poll() is None and time.monotonic() < deadline, "the build never started the file"
                time.sleep(0.05)
        finally:
            killed.kill()
            killed.wait()
        left = [p.relative_to(cache).as_posix() for p in cache.rglob("*") if p.is_file()]
        assert len(left) == 1 and left[0].startswith(f"data/.train-1.jsonl.part-{killed.pid}-")
        result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300, check=False)
    finally:
        server.close()
    assert (result.returncode, result.stderr) == (0, "")
    assert sorted(p.relative_to(cache).as_posix() for p in cache.rglob("*") if p.is_file()) == sorted(SENTENCE_FILES)
    assert server.requests[FILE] == 2


# --- docs/bad_input.md: the "Downloads" table ------------------------------------------------

START, END = "<!-- download faults: checked by tests/test_downloads.py -->", "<!-- end of the download faults -->"
DESCRIBED = {
    "short": "the connection closes after half the body (every try)",
    "long_length": "a Content-Length above the body (every try)",
    "reset": "a TCP reset instead of an answer (every try)",
    "stall": "half the body, then nothing (every try)",
    "trickle": "32 bytes every half second (every try)",
    "500": "HTTP 500 (every try)",
    "503": "HTTP 503 (every try)",
    "404": "HTTP 404",
    "loop": "a redirect to itself",
    "html": "an HTML page with status 200",
    "lfs": "a Git LFS pointer with status 200",
}


def docs_rows() -> list[str]:
    def line(reason):
        return f"`corpora build: error: NAME: cannot download URL: {reason}.`"

    rows = [f"| {DESCRIBED[fault]} | {line(reason)} | {requests} |" for fault, reason, requests in FAILURES]
    differ = "`corpora build: error: NAME: 1 file(s) the server sent differ from the recorded release: URL ({}). If " \
             "the new files are right, record them with `corpora checksums NAME --update`; to build them once " \
             "without recording, use --allow-modified-sources.`"
    rows += [
        f"| the file with one byte changed | {differ.format('the recorded size, another sha256')} | 1 |",
        f"| a Content-Length below the body | {differ.format(f'{SIZE - 10} bytes, recorded {SIZE}')} | 1 |",
        "| a copy in the cache that fails the check, the server healthy | the build succeeds | 1 |",
        "| a cut connection, a reset, HTTP 500, 503 or a stall once, then the file | the build succeeds | 2 |",
        "| HTTP 429 with `Retry-After: 1`, then the file | the build succeeds, after 1 s | 2 |",
        f"| HTTP 429 asking for more than 300 s | {line('the server answered HTTP 429 Too Many Requests, and asks to wait N s (more than 300 s)')} | 1 |",
        "| offline mode (`HF_HUB_OFFLINE=1` or `HF_DATASETS_OFFLINE=1`), files not in the download cache | `corpora build: "
        "error: NAME: cannot download N files in FOLDER/, offline mode is on (HF_HUB_OFFLINE=1 or HF_DATASETS_OFFLINE=1); "
        "or build from a local copy: --data-dir DIR` (FOLDER: the one that holds them all, if any; one file: the line of "
        "the faults above) | 0 |",
        "| no server at the address | `corpora build: error: NAME: cannot download URL: no connection (connection refused): no network, or the host cannot be reached.` | 1 |",
        "| the download cache's file system full | `corpora build: error: $HF_HOME/datasets/downloads/corpora/NAME/data: No space left on device` | 1 |",
        "| the build killed (SIGKILL) during a transfer | nothing (the process is gone); the next build removes the partial file it left in the cache, and succeeds | 2 |",
        "| `CORPORA_DOWNLOAD_TIMEOUT`, `_RETRIES` or `_BACKOFF` not a positive number (`abc`, `-5`, `0` for a time, `nan`, `inf` in any case) | `corpora build: error: CORPORA_DOWNLOAD_TIMEOUT='nan': expected a positive number` | 0 |",
    ]
    return rows


def test_the_docs_show_every_download_fault_as_the_user_sees_it():
    assert docs_table_rows(START, END) == docs_rows(), "run `python tests/test_downloads.py`"


if __name__ == "__main__":
    write_docs_table(START, END, ["fault", "what the user sees", "requests"], docs_rows())


def test_what_dl_manager_keeps_a_download_refuses(capsys, tmp_path, cache, serve, monkeypatch):
    # Why download.py stays beside the loaders' dl_manager (the route of a 3.x script and of streaming).
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    server = serve({FILE: ["html"] * 5})
    manager = datasets.DownloadManager(download_config=datasets.DownloadConfig(cache_dir=tmp_path / "dl_manager"))
    assert Path(manager.download(server.base + FILE)).read_bytes() == HTML  # an error page kept as the data
    asked, _ = server.requests[FILE], capsys.readouterr()  # and dl_manager's progress bar
    assert build(capsys, tmp_path) == (1, "", failure(server, "the server sent an HTML page, not the data"))
    assert [p for p in cache.rglob("*") if p.is_file()] == []
    assert server.requests[FILE] == asked + 1
