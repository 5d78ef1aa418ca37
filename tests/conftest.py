"""Shared fixtures, and the choice of the tests each leg runs (by their markers). Tests run
offline with a throw-away Hugging Face home (the Makefile sets the same variables; they are set
here too so a bare `pytest` cannot reach the network). What the test files share besides
fixtures is in tests/helpers/."""

import atexit
import functools
import http.server
import os
import shutil
import socket
import tempfile
import threading
from functools import partial
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
if "HF_HOME" not in os.environ:  # a bare `pytest`: a throw-away home, removed at exit
    os.environ["HF_HOME"] = tempfile.mkdtemp(prefix="corpora-hf-home-")
    atexit.register(shutil.rmtree, os.environ["HF_HOME"], ignore_errors=True)
# The servers of the tests are on 127.0.0.1: a proxy of the user's would take their requests (the
# proxy tests of tests/test_push.py set their own).
for _variable in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
    os.environ.pop(_variable, None)
    os.environ.pop(_variable.upper(), None)

import datasets  # noqa: E402
import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

import corpora  # noqa: E402
from corpora import export_folder  # noqa: E402
from corpora import prepare  # noqa: E402
from corpora import registry  # noqa: E402
from corpora import sources  # noqa: E402
from corpora.cli import main  # noqa: E402
from helpers import DATASETS_MAJOR  # noqa: E402
from helpers import EXAMPLE_COLLECTION  # noqa: E402
from helpers import EXAMPLE_RELEASE  # noqa: E402
from helpers import LEG  # noqa: E402
from helpers import QuietHandler  # noqa: E402
from helpers import using_example  # noqa: E402

# Fixtures defined beside their helpers: the wheel and an environment with it; the test Hub and a release;
# the exports written by the datasets 5.x venv.
pytest_plugins = ["helpers.installed", "helpers.push", "helpers.datasets5"]

# `make test` (and CI) gives the same answer twice: each property test draws the same examples on
# every run, replays none from a database of an earlier run, and has no time limit per example (a
# busy machine would fail it); every case one ever found is an explicit @example (a Fuzz's
# `found`). `make fuzz` (--hypothesis-profile=explore) draws new ones.
settings.register_profile("repeatable", derandomize=True, database=None, deadline=None)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile("repeatable")

LOOPBACK = {"127.0.0.1", "::1", "localhost"}


@pytest.fixture(autouse=True, scope="session")
def no_network():
    """Only 127.0.0.1 is reachable from tests: a test that would download the real sources
    fails at once instead of depending on the network."""
    real_connect = socket.socket.connect
    real_getaddrinfo = socket.getaddrinfo

    def connect(sock, address):
        if sock.family in (socket.AF_INET, socket.AF_INET6) and address[0] not in LOOPBACK:
            raise OSError(f"tests must not reach the network (tried {address[0]})")
        return real_connect(sock, address)

    def getaddrinfo(host, *args, **kwargs):
        if host not in LOOPBACK and host is not None:
            raise OSError(f"tests must not reach the network (tried to resolve {host})")
        return real_getaddrinfo(host, *args, **kwargs)

    socket.socket.connect = connect
    socket.getaddrinfo = getaddrinfo
    yield
    socket.socket.connect = real_connect
    socket.getaddrinfo = real_getaddrinfo


def pytest_collection_modifyitems(config, items):
    """The legs are chosen by markers. The main leg runs every test. The others run what can differ
    between datasets versions: `both_legs` (the generic checks on every builder: building,
    streaming, Parquet read-back, a bad file's error through the builder; the tests that use the
    HTTP `mirror`, stream, shard, use worker processes or read an export back) and `datasets3`
    (script loading); the minimum-versions leg also `other_dependencies` (DuckDB, the Hub client,
    requests). Each corpus's parser and bad-input tests run the loader's own code, the same in
    every leg: the main leg runs them. `main_leg`: uses version-sensitive code, which the generic
    tests run in every leg. A test that uses that code with none of these three marks fails
    tests/test_repository.py (helpers/legs.py)."""
    if DATASETS_MAJOR < 4 or LEG:
        # The minimum-versions leg also runs what depends on the other dependencies' versions.
        marks = ("both_legs", "datasets3") + (("other_dependencies",) if LEG == "minimum" else ())
        runs = {item: any(mark in item.keywords for mark in marks) for item in items}
        config.hook.pytest_deselected(items=[item for item in items if not runs[item]])
        items[:] = [item for item in items if runs[item]]
    for item in items:
        if "datasets5" in item.keywords and DATASETS_MAJOR < 5:
            item.add_marker(pytest.mark.skip(reason=f"needs datasets 5.x, this leg has {datasets.__version__}"))
        if "datasets3" in item.keywords and DATASETS_MAJOR >= 4:
            item.add_marker(pytest.mark.skip(reason=f"script loading needs datasets 3.x, this leg has {datasets.__version__}"))
    if os.environ.get("CORPORA_COLLECTED_TESTS"):  # for tests/test_add_a_corpus.py: what this leg runs, before -k
        Path(os.environ["CORPORA_COLLECTED_TESTS"]).write_text("".join(f"{item.nodeid}\n" for item in items))


@pytest.fixture
def example_collection():
    """The registry (and any subprocess) reads tests/example_collection during one test; a
    whole module: `pytestmark = pytest.mark.usefixtures("example_collection")`."""
    with using_example() as root:
        yield root


@pytest.fixture
def example_release(tmp_path):
    """A writable copy of the example corpus's release files (the ones its checksums.tsv
    records and its official sizes count)."""
    return Path(shutil.copytree(EXAMPLE_RELEASE, tmp_path / "release"))


@pytest.fixture
def repo_copy(tmp_path, monkeypatch):
    """A copy of the example collection to break; the registry reads it through CORPORA_ROOT."""
    for folder in ("loaders", "dataset_cards", "dummy_data"):
        shutil.copytree(EXAMPLE_COLLECTION / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setenv("CORPORA_ROOT", str(tmp_path))
    registry.forget()
    yield tmp_path
    registry.forget()


@pytest.fixture(scope="session")
def dummy_build(tmp_path_factory):
    """corpora.load(name, config, dummy=True), built once per session."""

    @functools.cache
    def get(name, config):
        return corpora.load(name, config, dummy=True, cache_dir=tmp_path_factory.mktemp(f"cache-{name}-{config}"))

    return get


@pytest.fixture(scope="session")
def dummy_export(tmp_path_factory):
    """The folder `corpora build NAME --dummy` writes, built once per corpus."""

    @functools.cache
    def get(name):
        out = tmp_path_factory.mktemp(f"export-{name}")
        export_folder.export(prepare.Request(registry.get(name), dummy=True), out)
        return out / name

    return get


@pytest.fixture
def dummy_copy(tmp_path):
    """A writable copy of a corpus's dummy data (in `target`, default tmp_path/data_dir), to corrupt
    in one place. With `changed` (a path in it), only that file is copied, the others are hard
    links to the dummy data, checked unchanged after the test: caption's 477 files, copied for each
    of its 126 bad inputs, were a twentieth of the main leg."""
    linked = {}  # hard link -> its size and time when made

    def link(source, target):
        try:
            os.link(source, target)
        except OSError:  # another file system, or no links there
            return shutil.copy2(source, target)
        linked[target] = _size_and_time(target)

    def make(name, changed=None, target=None):
        source, target = registry.get(name).dummy_dir, target or tmp_path / "data_dir"
        shutil.copytree(source, target, copy_function=shutil.copy2 if changed is None else link)
        if changed is not None:
            os.unlink(target / changed)
            linked.pop(str(target / changed), None)  # copied, not linked, on another file system
            shutil.copy2(source / changed, target / changed)
        (target / "expected_counts.json").unlink()
        return target

    yield make
    written = [path for path, before in linked.items() if os.path.exists(path) and _size_and_time(path) != before]
    assert not written, f"the test wrote through a hard link into the dummy data (git checkout restores it): {written}"


def _size_and_time(path):
    stat = os.stat(path)
    return stat.st_size, stat.st_mtime_ns


@pytest.fixture
def record_release(tmp_path, monkeypatch):
    """Make the files of a folder the recorded release of a corpus (its checksums.tsv is
    replaced by a temporary one), as `corpora checksums NAME --update` would after a new release."""
    recorded = {}
    original = registry.Corpus.checksums_path
    monkeypatch.setattr(
        registry.Corpus, "checksums_path", property(lambda corpus: recorded.get(corpus.name) or original.fget(corpus))
    )

    def record(name, folder, urls=None):
        corpus = registry.get(name)
        urls = urls or corpus.urls
        recorded[name] = tmp_path / f"checksums-{name}.tsv"
        records = {urls[path]: sources.measure(Path(folder) / path) for path in corpus.source_files()}
        sources.write_records(corpus, records)
        return recorded[name]

    return record


@pytest.fixture
def online(monkeypatch):
    """Downloads allowed (only 127.0.0.1 is reachable: the no_network guard)."""
    for flag in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        if hasattr(datasets.config, flag):
            monkeypatch.setattr(datasets.config, flag, False)


@pytest.fixture
def mirror(request, monkeypatch, online):
    """Serve the dummy data of the test's corpus (its `name` parameter, else its module's NAME)
    over real HTTP on 127.0.0.1 and point the loader's URLs at it; yields the base URL."""
    callspec = getattr(request.node, "callspec", None)
    name = callspec.params["name"] if callspec and "name" in callspec.params else request.module.NAME
    handler = partial(QuietHandler, directory=str(registry.get(name).dummy_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}/"
    for config in registry.get(name).builder_class.BUILDER_CONFIGS:  # the configs the builder is built from now
        monkeypatch.setattr(config, "url_prefix", base)
    yield base
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def partial_export(tmp_path_factory):
    """The folder `corpora build NAME --config C ... --dummy` writes, built once per corpus and configs."""

    @functools.cache
    def get(name, configs):
        out = tmp_path_factory.mktemp("-".join((name, *configs)))
        assert main(["build", name, "--dummy", *[f"--config={config}" for config in configs], "--out", str(out)]) == 0
        return out / name

    return lambda name, configs: get(name, tuple(configs))  # a list, as the tests give them, is not hashable
