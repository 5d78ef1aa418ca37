"""`corpora push` and `corpora diff hf://...` against a Hub that never answers (or never accepts the
connection): one line after the time limit CORPORA_HUB_TIMEOUT."""

import contextlib
import socket
import threading
import time

import pytest

from helpers.hub import corpora_at
from helpers.push import NAME
from helpers.push import REPO_ID
from helpers.push import error_line

pytestmark = [pytest.mark.usefixtures("example_collection"), pytest.mark.other_dependencies]  # the subprocesses inherit its CORPORA_ROOT


SILENT_ACCEPTS = []  # when silent_hub accepted each connection (time.monotonic)


@pytest.fixture
def silent_hub():
    """A Hub on 127.0.0.1 that accepts connections and never answers."""
    listener = socket.create_server(("127.0.0.1", 0))
    accepted = []
    SILENT_ACCEPTS.clear()

    def accept():
        with contextlib.suppress(OSError):  # the listener closed: the test is over
            while True:
                accepted.append(listener.accept()[0])
                SILENT_ACCEPTS.append(time.monotonic())

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    listener.close()
    for connection in accepted:
        connection.close()


def silent_push_and_diff(tmp_path, upstream_copy, endpoint, **env):
    """`corpora push` then `corpora diff hf://...` with the Hub at `endpoint`, CORPORA_HUB_TIMEOUT=1
    and `env`: the push's result, how long it took (from its start, and from the silent server's first
    accept: that clock, a thread of this process, can run a little late), and the diff's result."""
    env = dict(CORPORA_HUB_TIMEOUT="1", **env)
    started = time.monotonic()
    push = corpora_at(endpoint, "push", NAME, "--repo-id", REPO_ID, "--data-dir", str(upstream_copy), "--out",
                      str(tmp_path / "out"), home=tmp_path / "home", **env)
    ended = time.monotonic()
    diff = corpora_at(endpoint, "diff", f"hf://datasets/{REPO_ID}@v1.0.0", str(tmp_path), home=tmp_path / "home", **env)
    return push, (ended - started, ended - SILENT_ACCEPTS[0] if SILENT_ACCEPTS else None), diff


SILENT_PUSH = (f"corpora push: error: {NAME}: reading dataset repository {REPO_ID} failed: no answer within 1 s "
               "(CORPORA_HUB_TIMEOUT); nothing was built or uploaded")
SILENT_DIFF = f"corpora diff: error: hf://datasets/{REPO_ID}@v1.0.0: cannot download it: no answer within 1 s (CORPORA_HUB_TIMEOUT)\n"


def test_a_hub_that_never_answers_is_one_line_after_the_time_limit(silent_hub, upstream_copy, tmp_path):
    push, took, diff = silent_push_and_diff(tmp_path, upstream_copy, silent_hub)
    assert error_line(push) == SILENT_PUSH
    assert not (tmp_path / "out").exists()
    # The limit is the whole wait from the first request: not 1 s more per request (huggingface_hub
    # 1.x and later first ask for a list of their own, with a timeout of 3 s: 4 s and more before).
    assert took[0] >= 1 and took[1] < 2.5, took
    assert (diff.returncode, diff.stderr) == (2, SILENT_DIFF)
    bad = corpora_at(silent_hub, "push", NAME, "--repo-id", REPO_ID, "--data-dir", str(upstream_copy),
                     home=tmp_path / "home", CORPORA_HUB_TIMEOUT="nan")
    assert error_line(bad) == "corpora push: error: CORPORA_HUB_TIMEOUT='nan': expected a positive number"


@pytest.mark.parametrize("scheme", ["https", "http"])
def test_a_hub_behind_a_proxy_that_never_answers_is_the_same_line_after_the_time_limit(scheme, silent_hub,
                                                                                        upstream_copy, tmp_path):
    # The silent server is the proxy of the environment, and the Hub a port of 127.0.0.1 where
    # nothing listens: a time-out only through the proxy (without it: connection refused). httpx
    # sends such requests through a transport of their own (https: CONNECT, then TLS).
    with socket.create_server(("127.0.0.1", 0)) as closed:
        hub = f"{scheme}://127.0.0.1:{closed.getsockname()[1]}"
    push, took, diff = silent_push_and_diff(tmp_path, upstream_copy, hub, HTTPS_PROXY=silent_hub,
                                             HTTP_PROXY=silent_hub, NO_PROXY="", no_proxy="")
    assert error_line(push) == SILENT_PUSH
    assert took[0] >= 1 and took[1] < 2.5, took
    assert (diff.returncode, diff.stderr) == (2, SILENT_DIFF)


def test_a_hub_that_never_accepts_the_connection_is_one_line_after_the_time_limit(upstream_copy, tmp_path):
    # A listener of backlog 0 whose one place is taken: the system drops the next connections' SYN.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    with listener, socket.create_connection(listener.getsockname()):
        push, _, diff = silent_push_and_diff(tmp_path, upstream_copy, f"http://127.0.0.1:{listener.getsockname()[1]}")
    assert error_line(push) == (f"corpora push: error: {NAME}: reading dataset repository {REPO_ID} failed: no "
                                "connection within 1 s (CORPORA_HUB_TIMEOUT); nothing was built or uploaded")
    assert (diff.returncode, diff.stderr) == (
        2, f"corpora diff: error: hf://datasets/{REPO_ID}@v1.0.0: cannot download it: no connection within 1 s "
           "(CORPORA_HUB_TIMEOUT)\n")


def test_the_hub_time_out_names_the_limit(monkeypatch):
    import requests  # huggingface_hub 0.x's client; its time-outs have httpx's names

    from corpora import errors
    from corpora import hub_client  # noqa: F401  (what makes a Hub request; errors reads its limit from it)

    monkeypatch.setenv("CORPORA_HUB_TIMEOUT", "60")
    assert errors.describe_failure(requests.exceptions.ReadTimeout("timed out")) == (
        "no answer within 60 s (CORPORA_HUB_TIMEOUT)")
    # Connecting is held to 10 s of the limit at most.
    assert errors.describe_failure(requests.exceptions.ConnectTimeout("timed out")) == (
        "no connection within 10 s (CORPORA_HUB_TIMEOUT)")
    monkeypatch.setenv("CORPORA_HUB_TIMEOUT", "2.5")
    assert errors.describe_failure(requests.exceptions.ConnectTimeout("timed out")) == (
        "no connection within 2.5 s (CORPORA_HUB_TIMEOUT)")
