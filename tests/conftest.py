"""Shared fixtures. Tests run offline with a throw-away Hugging Face home (the Makefile sets the
same variables; they are set here too so a bare `pytest` cannot reach the network)."""

import ast
import atexit
import contextlib
import functools
import http.server
import inspect
import io
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
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

import socket  # noqa: E402

import datasets  # noqa: E402
import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import corpora  # noqa: E402
from corpora import export_folder  # noqa: E402
from corpora import prepare  # noqa: E402
from corpora import registry  # noqa: E402
from corpora import sources  # noqa: E402

# This checkout (src/, tests/), and the collection under test: the folder holding
# loaders/, dataset_cards/ and dummy_data/, $CORPORA_ROOT if set (tests/test_add_a_corpus.py points
# it at a copy with one more corpus), else this checkout. Generic tests find corpora there.
REPO = Path(__file__).resolve().parents[1]
COLLECTION = registry.repo_root()

# The toolkit's own tests (CLI, errors, cards, exports, pushes, diffs) run on a corpus made for
# them, not on a corpus of the collection (tests/example_collection/README.md): adding, changing
# or removing a real corpus touches no shared test, and their exact figures can be read off
# its files.
EXAMPLE_COLLECTION = Path(__file__).resolve().parent / "example_collection"
EXAMPLE = "example_ratings"
EXAMPLE_RELEASE = EXAMPLE_COLLECTION / "release" / EXAMPLE
# Its figures as the CLI prints them, split into cells: `corpora list` (official sizes), and the
# table of a build of the dummy data (records read, rows written, dummy_data's expected_counts.json).
EXAMPLE_LISTED = [
    [EXAMPLE, "sentences", "(default)", "train", "12"],
    [EXAMPLE, "sentences", "(default)", "validation", "3"],
    [EXAMPLE, "sentences", "(default)", "test", "4"],
    [EXAMPLE, "ratings", "train", "30"],
    [EXAMPLE, "ratings", "validation", "7"],
    [EXAMPLE, "ratings", "test", "10"],
    [EXAMPLE, "raters", "train", "unknown"],
]
EXAMPLE_DUMMY_TABLE = [
    [EXAMPLE, "sentences", "train", "4", "4", "4"],
    [EXAMPLE, "sentences", "validation", "2", "2", "2"],
    [EXAMPLE, "sentences", "test", "2", "2", "2"],
    [EXAMPLE, "ratings", "train", "10", "10", "10"],
    [EXAMPLE, "ratings", "validation", "5", "5", "5"],
    [EXAMPLE, "ratings", "test", "6", "6", "6"],
    [EXAMPLE, "raters", "train", "3", "3", "3"],
]

DATASETS_MAJOR = int(datasets.__version__.split(".")[0])
# Python 3.10's csv module can neither write nor read a NUL character (3.11 can): text a test
# passes through it leaves NUL out there.
CSV_UNSAFE = "\x00" if sys.version_info < (3, 11) else ""
CASES = [(corpus.name, config) for corpus in registry.all_corpora() for config in corpus.configs]

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


# What differs most between datasets versions: streaming and its shards, worker processes, reading
# a Parquet export back. A test whose code (or a function of its module that it calls) uses one
# of these runs in both legs, so a corpus's own tests need no marker for it.
VERSION_SENSITIVE = re.compile(
    r"streaming=True|as_streaming_dataset|split_dataset_by_node|num_proc|datasets\.load_dataset\("
)


def uses_version_sensitive_datasets_code(item) -> bool:
    function = getattr(item, "function", None)
    return function is not None and _uses_version_sensitive_code(function, item.module)


@functools.cache  # once per test function, not once per parameter
def _uses_version_sensitive_code(function, module) -> bool:
    source = _source(function)
    called = [getattr(module, name, None) for name in re.findall(r"\b(\w+)\(", source)]
    helpers = [f for f in called if inspect.isfunction(f) and f.__module__ == module.__name__]
    return any(VERSION_SENSITIVE.search(_source(f)) for f in [function, *helpers])


def _source(function) -> str:
    """inspect.getsource(function), decorators included, from one parse of its file (getsource
    tokenizes the file again for each function: a second of every collection)."""
    code = inspect.unwrap(function).__code__
    return _functions_of(code.co_filename).get(code.co_firstlineno, "")  # "": made at run time (st.composite)


@functools.cache
def _functions_of(filename: str) -> dict[int, str]:
    """{first line: source} of each function of a Python file, its first line its first decorator's."""
    try:
        text = Path(filename).read_text(encoding="utf-8")
    except OSError:
        return {}
    lines, found = text.splitlines(keepends=True), {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [decorator.lineno for decorator in node.decorator_list])
            found[first] = "".join(lines[first - 1 : node.end_lineno])
    return found


# The leg this run is (Makefile): "" for the main one (datasets 5.x, every test), "minimum" (every
# lower bound of pyproject.toml: datasets 3.6, whose loading scripts it also runs), "datasets4".
LEG = os.environ.get("CORPORA_TEST_LEG", "")


def pytest_collection_modifyitems(config, items):
    """The other legs run only what can differ between datasets versions: tests marked
    `both_legs` (the generic checks on every builder: building, streaming, Parquet read-back, a
    bad file's error through the builder) and `datasets3` (script loading). Tests that use the
    HTTP `mirror` download and stream through datasets' and fsspec's own code, and tests that
    stream, shard, use worker processes or read an export back (VERSION_SENSITIVE): both legs too.
    Each corpus's parser and bad-input tests run the loader's own code, the same in every leg,
    through the builder path that the generic checks cover: the 5.x leg runs them. The
    minimum-versions leg also runs the tests marked `other_dependencies` (DuckDB, the Hub client,
    requests). A test marked `main_leg` runs in the main leg alone: what it does through datasets'
    version-sensitive code, the generic tests do in every leg."""
    for item in items:
        if "main_leg" in item.keywords:
            continue
        if "mirror" in getattr(item, "fixturenames", ()) or uses_version_sensitive_datasets_code(item):
            item.add_marker(pytest.mark.both_legs)
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


def quickest_corpus() -> str:
    """The corpus of the collection with the least dummy data: the quickest to build and check."""
    return min(registry.names(), key=lambda name: sum(
        path.stat().st_size for path in registry.get(name).dummy_dir.rglob("*") if path.is_file()))


def own_test_file(name: str, filename: str) -> bool:
    """Whether the file tests/<filename> belongs to corpus `name` (README, "Add a corpus"):
    test_<name>.py, test_<name>_*.py or synthetic_<name>.py. Every other test file is shared."""
    return filename in (f"test_{name}.py", f"synthetic_{name}.py") or filename.startswith(f"test_{name}_")


def table_lines(out):
    """The rows of the table `corpora build` prints after its "exported to" line, split into
    cells (the table's header left out)."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("exported to"))
    return [line.split() for line in lines[start + 2:]]


def add_renamed_copy(source: Path, root: Path, original: str, copy: str, classes: tuple[str, str]) -> None:
    """Add to the collection at `root` corpus `original` of the collection at `source` as `copy`:
    its three folders (README, "Add a corpus"), with the corpus name and the builder class name
    (`classes`: old, new) replaced in file names and text files. Its card is left for `corpora
    card` to write."""

    def renamed(text):
        return text.replace(original, copy).replace(*classes)

    def copy_renamed(path, target):
        if path.is_dir():
            for child in path.iterdir():
                copy_renamed(child, target / renamed(child.name))
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            target.write_text(renamed(path.read_text(encoding="utf-8")), encoding="utf-8")
        except UnicodeDecodeError:
            shutil.copyfile(path, target)

    for folder, suffix in (("loaders", ""), ("dataset_cards", ".yaml"), ("dummy_data", "")):
        copy_renamed(source / folder / f"{original}{suffix}", root / folder / f"{copy}{suffix}")
    (root / "loaders" / copy / "README.md").unlink()


def namespace_with_tmpfs(mount: Path, options: str) -> list[str]:
    """A prefix that runs a command in a new user and mount namespace with a tmpfs on `mount`
    (no effect outside it); pytest.skip with the reason where the system does not allow it."""
    mount.mkdir(exist_ok=True)
    script = f'mount -t tmpfs -o {options} tmpfs "{mount}" && exec "$@"'
    prefix = ["unshare", "-rm", "sh", "-c", script, "sh"] if os.geteuid() else ["unshare", "-m", "sh", "-c", script, "sh"]
    if shutil.which("unshare") is None:
        pytest.skip("no `unshare` to mount a small tmpfs")
    probe = subprocess.run([*prefix, "true"], capture_output=True, text=True, check=False)
    if probe.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {probe.stderr.strip()}")
    return prefix


def rename_config(export: Path, config: str, renamed: str) -> None:
    """Make `export` (OUT/NAME) an export of an older loader whose config `config` was then named
    `renamed`: its folder, the card's `configs:` and `dataset_info`, croissant.json's paths and the
    mark say `renamed`, and stay consistent with each other."""
    import json

    (export / config).rename(export / renamed)
    card = export / "README.md"
    card.write_text(card.read_text().replace(f"config_name: {config}\n", f"config_name: {renamed}\n")
                    .replace(f"path: {config}/", f"path: {renamed}/"))
    croissant = export / "croissant.json"
    croissant.write_text(croissant.read_text().replace(f'"{config}/', f'"{renamed}/'))
    mark = json.loads((export / ".corpora-export.json").read_text())
    mark["configs"] = [renamed if name == config else name for name in mark["configs"]]
    mark["files"] = sorted(renamed + path[len(config):] if path.startswith(f"{config}/") else path
                           for path in mark["files"])
    (export / ".corpora-export.json").write_text(json.dumps(mark, indent=2) + "\n")


def class_labels_snippet():
    """The Python snippet of docs/class_labels.md ("Class labels outside `datasets`")."""
    page = (REPO / "docs" / "class_labels.md").read_text()
    section = page.split("# Class labels outside `datasets`", 1)[1]
    return section.split("```python\n", 1)[1].split("\n```", 1)[0]


def corpora_here(*args) -> subprocess.CompletedProcess:
    """`corpora ARGS` run in this process, its exit status and output as a process would give
    them, for a test of what the command does rather than of the process (its signals, its
    start, its workers)."""
    from corpora import cli

    with captured_output() as (stdout, stderr):
        try:
            status = cli.main(list(args))
        except SystemExit as exit:  # argparse's
            status = exit.code
    return subprocess.CompletedProcess(["corpora", *args], status, stdout.getvalue(), stderr.getvalue())


@contextlib.contextmanager
def captured_output():
    """What the command writes to stdout and stderr, loggers and warnings included, as a pipe
    gets it: printed at the time, to a stream that is not a terminal."""
    stdout, stderr = io.StringIO(), io.StringIO()
    streams = {id(sys.stdout): stdout, id(sys.stderr): stderr, id(sys.__stdout__): stdout, id(sys.__stderr__): stderr}
    handlers = {handler for logger in [logging.getLogger(), *logging.Logger.manager.loggerDict.values()]
                for handler in getattr(logger, "handlers", ()) if isinstance(handler, logging.StreamHandler)
                and id(handler.stream) in streams and not isinstance(type(handler).__dict__.get("stream"), property)}
    with contextlib.ExitStack() as stack:
        stack.enter_context(contextlib.redirect_stdout(stdout))
        stack.enter_context(contextlib.redirect_stderr(stderr))
        for handler in handlers:
            stack.callback(handler.setStream, handler.setStream(streams[id(handler.stream)]))
        stack.enter_context(warnings.catch_warnings())
        warnings.resetwarnings()  # Python's own filters (a command's), not pytest's, and printed to stderr
        for action, category, module in PYTHON_WARNING_FILTERS:
            warnings.filterwarnings(action, category=category, module=module, append=True)
        warnings.showwarning = lambda message, category, filename, lineno, file=None, line=None: sys.stderr.write(
            warnings.formatwarning(message, category, filename, lineno, line))
        yield stdout, stderr


# What Python does with a warning when no -W option or PYTHONWARNINGS says otherwise.
PYTHON_WARNING_FILTERS = [
    ("default", DeprecationWarning, "__main__"), ("ignore", DeprecationWarning, ""),
    ("ignore", PendingDeprecationWarning, ""), ("ignore", ImportWarning, ""), ("ignore", ResourceWarning, ""),
]


@contextlib.contextmanager
def using_example():
    """The registry (and any subprocess) reads tests/example_collection, through CORPORA_ROOT,
    inside the block: for a fixture of wider scope than one test."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CORPORA_ROOT", str(EXAMPLE_COLLECTION))
        yield EXAMPLE_COLLECTION


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


@pytest.fixture(scope="session")
def dummy_build(tmp_path_factory):
    """corpora.load(name, config, dummy=True), built once per session."""
    built = {}

    def get(name, config):
        if (name, config) not in built:
            cache = tmp_path_factory.mktemp(f"cache-{name}-{config}")
            built[name, config] = corpora.load(name, config, dummy=True, cache_dir=cache)
        return built[name, config]

    return get


@pytest.fixture(scope="session")
def dummy_export(tmp_path_factory):
    """The folder `corpora build NAME --dummy` writes, built once per corpus."""
    exported = {}

    def get(name):
        if name not in exported:
            out = tmp_path_factory.mktemp(f"export-{name}")
            export_folder.export(prepare.Request(registry.get(name), dummy=True), out)
            exported[name] = out / name
        return exported[name]

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


BAD_INPUT_DOCS = Path(__file__).resolve().parents[1] / "docs" / "bad_input.md"


def docs_table_rows(start: str, end: str) -> list[str]:
    """The rows (below the header) of the table of docs/bad_input.md between the markers."""
    text = BAD_INPUT_DOCS.read_text()
    return text[text.index(start) + len(start) : text.index(end)].strip().splitlines()[2:]


def write_docs_table(start: str, end: str, header: list[str], rows: list[str]) -> None:
    """Rewrite the table of docs/bad_input.md between the markers: `header` (column names), `rows`."""
    head, rest = BAD_INPUT_DOCS.read_text().split(start)
    _, tail = rest.split(end)
    table = "\n".join(["| " + " | ".join(header) + " |", "|" + "---|" * len(header), *rows])
    BAD_INPUT_DOCS.write_text(f"{head}{start}\n\n{table}\n\n{end}{tail}")
    print(f"wrote {BAD_INPUT_DOCS.relative_to(BAD_INPUT_DOCS.parents[1])}")


def official_sizes_of_the_dummy_data(monkeypatch, corpus) -> None:
    """Make the dummy data's counts the official sizes of every config (for the test's duration)."""
    for config, sizes in corpus.expected_dummy_counts().items():
        monkeypatch.setattr(corpus.config(config), "split_sizes", sizes)


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
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(registry.get(name).dummy_dir))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}/"
    for config in registry.get(name).builder_class.BUILDER_CONFIGS:  # the configs the builder is built from now
        monkeypatch.setattr(config, "url_prefix", base)
    yield base
    server.shutdown()
    server.server_close()


# --- bad input: declared by each tests/test_<name>.py as BAD_INPUT, run by tests/test_bad_input.py ---

# What an LFS clone without `git lfs pull` and a failed download leave in place of a file.
LFS = b"version https://git-lfs.github.com/spec/v1\noid sha256:" + b"0" * 64 + b"\nsize 2472563\n"
HTML = b"<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body>Not Found</body></html>\n"


@dataclass(frozen=True)
class BadInput:
    """One malformed variant of a corpus's dummy data and the exact line the user sees.

    `file` (relative to the dummy data) is replaced by `variant(its bytes)`; the build of `config`
    (default: the corpus's default config) must stop with `message`, or, with `message=None`,
    give the same rows as the dummy data."""

    file: str
    case: str
    variant: Callable[[bytes], bytes]
    message: str | None
    config: str | None = None


def build_error(name, config, data_dir, cache_dir=None):
    """The one line `corpora build` prints for a build of `data_dir` that fails with a ValueError."""
    from corpora.errors import one_line

    with pytest.raises(Exception) as caught:
        corpora.load(name, config, data_dir=data_dir, cache_dir=cache_dir, allow_modified_sources=True)
    error = caught.value
    cause = error
    while not isinstance(cause, ValueError) and cause.__cause__ is not None:
        cause = cause.__cause__
    assert isinstance(cause, ValueError), repr(error)
    return one_line(error)


# Hypothesis strategies for fuzzing a JSON record parser: any JSON value, and records like valid
# ones with one field replaced, removed or added.
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def near_valid(valid):
    """Records like the dummy ones, with one field replaced, removed or added."""
    return st.builds(
        lambda record, key, value, action: (
            {k: v for k, v in record.items() if k != key} if action == "drop"
            else dict(record, **{key if action == "set" else key + "_extra": value})
        ),
        st.sampled_from(valid), st.sampled_from(sorted(valid[0])), json_values, st.sampled_from(["set", "drop", "add"]),
    )


# --- what a tests/test_<name>.py declares, run by tests/test_declared.py -----------------------


def declared(name: str, attribute: str, default=None):
    """What tests/test_<name>.py declares as `attribute` (QUIRKS, DOWNLOADS, FULL_SIZE, FUZZ,
    BAD_INPUT), or `default` for a corpus without that file or that declaration."""
    import importlib

    if not (Path(__file__).parent / f"test_{name}.py").is_file():
        return default
    return getattr(importlib.import_module(f"test_{name}"), attribute, default)


@dataclass(frozen=True)
class Downloads:
    """The corpus's pinned URLs, served over real HTTP on 127.0.0.1: every URL starts with
    `pinned` (or one of them); each of `configs` builds from them, prepared and streaming, to its
    dummy rows."""

    pinned: str | tuple[str, ...]
    configs: tuple[str, ...]


@dataclass(frozen=True)
class FullSize:
    """`write(folder)` writes a copy of the release at the official sizes; its build, with these
    files recorded as the release, reads, writes and counts every official row. `rows`:
    (config, split, index, field, expected) read back from the export."""

    write: Callable[[Path], object]
    rows: tuple = ()


def written_once(name: str, write: Callable[[Path], object]) -> Path:
    """The folder `write(folder)` fills (large files: seconds of work), written once for each
    version of the test code (tests/*.py hashed) and shared by the legs and later runs under
    .cache/full-size; only read."""
    import hashlib

    import filelock

    code = b"".join(path.read_bytes() for path in sorted(Path(__file__).parent.glob("*.py")))
    folder = REPO / ".cache" / "full-size" / f"{name}-{hashlib.sha256(code).hexdigest()[:16]}"
    folder.parent.mkdir(parents=True, exist_ok=True)
    with filelock.FileLock(f"{folder}.lock"):  # the other legs wait for the one writing them
        if not folder.is_dir():
            partial = folder.with_name(f"{folder.name}.partial")  # what a killed run left is written again
            shutil.rmtree(partial, ignore_errors=True)
            partial.mkdir()
            write(partial)
            for older in folder.parent.glob(f"{name}-*"):  # written by an earlier version of the tests
                if not older.name.startswith(folder.name):
                    shutil.rmtree(older) if older.is_dir() else older.unlink()
            partial.rename(folder)
    return folder


@dataclass(frozen=True)
class Fuzz:
    """`variant` (a hypothesis strategy of functions bytes -> bytes) changes `file` of the dummy
    data; the builder of `config` gives the dummy data's number of rows, each fitting the features,
    or a ValueError whose message matches `error` (a regular expression). `found`: variants that
    once broke that promise, tried on every run before the drawn ones. `config_kwargs`: parameters
    of the config that narrow the build to the part that reads `file` (caption's `contests`)."""

    file: str
    config: str
    variant: object
    error: str
    examples: int = 200
    found: tuple = ()
    config_kwargs: dict = field(default_factory=dict)


def builder_rows(corpus, config, data_dir, **config_kwargs):
    """{split: rows} of the builder's own generators (no cache, no Arrow files)."""
    builder = corpus.builder(config, data_dir=data_dir, **config_kwargs)
    generate = getattr(builder, "_generate_tables", None) or builder._generate_examples
    rows = {}
    for generator in builder._split_generators(datasets.DownloadManager()):
        rows[generator.name] = []
        for _, item in generate(**generator.gen_kwargs):
            rows[generator.name] += item.to_pylist() if hasattr(item, "to_pylist") else [item]
    return rows


@pytest.fixture(scope="session")
def partial_export(tmp_path_factory):
    """The folder `corpora build NAME --config C ... --dummy` writes, built once per corpus and configs."""
    from corpora.cli import main

    built = {}

    def get(name, configs):
        key = (name, *configs)
        if key not in built:
            out = tmp_path_factory.mktemp("-".join(key))
            assert main(["build", name, "--dummy", *[f"--config={config}" for config in configs], "--out", str(out)]) == 0
            built[key] = out / name
        return built[key]

    return get
