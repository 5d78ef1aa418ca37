"""Integrity of every corpus: recorded checksums, repeatable and atomic exports, safe code."""

import ast
import os
import signal
import subprocess
import sys
from pathlib import Path

import datasets
import pytest

import corpora
from corpora import export_folder
from corpora import prepare
from corpora import registry
from corpora import sources
from corpora import validate
from helpers import CASES

ROOT = registry.repo_root()


class RecordingDownloadManager(datasets.DownloadManager):
    """Records every URL a builder downloads and serves it from the corpus's dummy data."""

    def __init__(self, corpus):
        super().__init__(dataset_name=corpus.name)
        self.local = {url: str(corpus.dummy_dir / path) for path, url in corpus.urls.items()}
        self.requested = []

    def download(self, url_or_urls):
        def fetch(url):
            self.requested.append(url)
            return self.local[url]

        return datasets.utils.py_utils.map_nested(fetch, url_or_urls)


@pytest.mark.both_legs
@pytest.mark.parametrize("name,config", CASES, ids=[f"{n}-{c}" for n, c in CASES])
def test_every_url_a_builder_asks_for_has_a_record(name, config):
    corpus = registry.get(name)
    manager = RecordingDownloadManager(corpus)
    builder = corpus.builder(config)  # no data_dir: the pinned URLs
    generators = builder._split_generators(manager)
    assert [g.name for g in generators] == list(corpus.split_sizes[config])
    records = sources.read_records(corpus)
    assert manager.requested, "the builder downloaded nothing"
    assert sorted(set(manager.requested)) == sorted(sources.urls(corpus, [config]).values())
    assert [url for url in manager.requested if url not in records] == []


@pytest.mark.parametrize("name", registry.names())
def test_the_records_are_exactly_the_pinned_urls(name):
    corpus = registry.get(name)
    records = sources.read_records(corpus)
    assert sorted(records) == sorted(corpus.urls.values())
    lines = corpus.checksums_path.read_text().splitlines()
    assert lines == sorted(lines), "checksums.tsv is sorted by URL"


@pytest.mark.parametrize("name", registry.names())
def test_sources_not_yet_measured_are_named_as_such_in_the_card(name):
    """A URL listed with `-` in checksums.tsv cannot be verified: a real build of it needs
    --allow-modified-sources, and the card says so (and how to record it)."""
    corpus = registry.get(name)
    unmeasured = [url for url, record in sources.read_records(corpus).items() if record is None]
    card = " ".join(corpus.card_path.read_text().split())
    says_so = "not yet measured" in card and f"corpora checksums {name} --update" in card
    assert says_so == bool(unmeasured), unmeasured


@pytest.mark.both_legs  # datasets prepares the tables the Parquet files are written from
@pytest.mark.parametrize("name", registry.names())
def test_two_builds_of_the_same_sources_are_byte_identical(name, tmp_path, dummy_export):
    first = dummy_export(name)  # the session's build, in another folder
    export_folder.export(prepare.Request(registry.get(name), dummy=True), tmp_path)
    second = tmp_path / name
    assert validate.parquet_problems(second) == []  # written by corpora.parquet_files, with its settings
    first = {p.relative_to(first): p.read_bytes() for p in first.rglob("*") if p.is_file()}
    second = {p.relative_to(second): p.read_bytes() for p in second.rglob("*") if p.is_file()}
    assert sorted(first) == sorted(second)
    assert [path for path in first if first[path] != second[path]] == []


# A build that pauses just before it swaps its finished export into place (the moment when the
# most is written and nothing may have reached OUT/NAME yet), run as `corpora build` with a test's
# hooks (tests/hooked_corpora.py).
def wait_for_pause(process) -> str:
    line = process.stderr.readline()
    while line and not line.startswith("corpora: paused at"):
        line = process.stderr.readline()
    return line


@pytest.mark.both_legs
def test_an_interrupted_build_leaves_the_previous_export(tmp_path, request):
    # More than one config written; the smallest such dummy data, the quickest to build three times.
    name = min((c for c in registry.all_corpora() if len(c.configs) > 1),
               key=lambda c: sum(p.stat().st_size for p in c.dummy_dir.rglob("*") if p.is_file())).name
    out = tmp_path / "out"
    export_folder.export(prepare.Request(registry.get(name), dummy=True), out)  # the previous export
    before = {p: p.read_bytes() for p in (out / name).rglob("*") if p.is_file()}
    process = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("hooked_corpora.py")), "--pause-at", "swapping",
         "build", name, "--dummy", "--out", str(out)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=dict(os.environ, CORPORA_ROOT=str(ROOT)),
    )
    request.addfinalizer(lambda: process.poll() is None and (process.kill(), process.wait()))  # whatever the outcome
    assert wait_for_pause(process) == "corpora: paused at swapping\n"
    configs = registry.get(name).configs
    (new,) = out.glob(f".{name}.partial-*/{name}")  # finished, not yet swapped in
    assert sorted(p.name for p in new.iterdir()) == sorted([*configs, ".corpora-export.json", "README.md",
                                                            "croissant.json"])
    process.send_signal(signal.SIGKILL)  # as a power cut would
    process.wait()
    process.stderr.close()
    after = {p: p.read_bytes() for p in (out / name).rglob("*") if p.is_file()}
    assert after == before
    reloaded = datasets.load_dataset(str(out / name), configs[-1], cache_dir=str(tmp_path / "cache"))
    expected = registry.get(name).expected_dummy_counts()[configs[-1]]
    assert {split: reloaded[split].num_rows for split in reloaded} == expected
    # The next build clears the leftover and replaces the export.
    export_folder.export(prepare.Request(registry.get(name), dummy=True), out)
    assert list(out.glob(f".{name}.partial*")) == []
    assert {p: p.read_bytes() for p in (out / name).rglob("*") if p.is_file()} == before


FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__"}
FORBIDDEN_MODULES = {"pickle", "marshal", "shelve", "dill", "cloudpickle"}


def python_files():
    return sorted([*ROOT.glob("loaders/*/*.py"), *Path(corpora.__file__).parent.rglob("*.py")])  # loader_shared too


@pytest.mark.parametrize("path", python_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_code_runs_from_data(path):
    """No eval/exec and no pickle in the loaders and the toolkit: data is parsed, never run."""
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FORBIDDEN_CALLS:
            found.append(f"line {node.lineno}: {node.func.id}()")
        if isinstance(node, ast.Import):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names if a.name in FORBIDDEN_MODULES]
        if isinstance(node, ast.ImportFrom) and node.module in FORBIDDEN_MODULES:
            found.append(f"line {node.lineno}: from {node.module} import")
    assert found == []
