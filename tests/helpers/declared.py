"""What each corpus's own test files declare, and the generic tests run: its bad inputs
(tests/test_bad_input.py), its pinned downloads, full-size copy and fuzzed files (tests/test_declared.py)."""

import hashlib
import importlib
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

import datasets
import filelock
import pytest
from hypothesis import strategies as st

import corpora
from corpora import registry
from corpora.errors import one_line

from .collection import REPO
from .collection import TESTS

# --- bad input: declared by each corpus's own tests as BAD_INPUT, run by tests/test_bad_input.py ---

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


def declarations(name: str) -> dict:
    """Every name the corpus's own tests define (tests/test_<name>.py, and tests/test_<name>_bad_input.py
    where its long BAD_INPUT table sits): the generic tests' way in, so no test file imports another."""
    found = {}
    for module in (f"test_{name}_bad_input", f"test_{name}"):
        if (TESTS / f"{module}.py").is_file():
            found.update(vars(importlib.import_module(module)))
    return found


def declared(name: str, attribute: str, default=None):
    """What the corpus's own tests declare as `attribute` (QUIRKS, DOWNLOADS, FULL_SIZE, FUZZ,
    BAD_INPUT), or `default` for a corpus without those files or that declaration."""
    return declarations(name).get(attribute, default)


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
    version of the test code (tests/*.py and tests/helpers/*.py hashed) and shared by the legs and
    later runs under .cache/full-size; only read."""
    code = b"".join(path.read_bytes() for pattern in ("*.py", "helpers/*.py") for path in sorted(TESTS.glob(pattern)))
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




# Files that are not the data, each named as such before any parsing (loader_common.check_is_data):
# (case, the file's bytes -> the variant, the line after the file's path). No corpus declares
# them: tests/test_bad_input.py makes them for every config, from the files it reads.
NOT_THE_DATA = [
    ("Git LFS pointer", lambda raw: LFS, "is a Git LFS pointer, not the data; fetch the real file (git lfs pull)"),
    ("HTML error page", lambda raw: HTML, "is an HTML page, not the data (an error page saved in its place?)"),
    ("UTF-8 BOM", lambda raw: b"\xef\xbb\xbf" + raw, "starts with a UTF-8 byte order mark; the release files have none"),
]


def one_of_each_kind(name, config):
    """The first file of each kind `config` reads (paths alike but for their numbers: a split of
    199 summary files is read by one reader)."""
    kinds = {}
    for path in registry.get(name).config(config).paths:
        kinds.setdefault(re.sub(r"[0-9]+", "#", path), path)
    return list(kinds.values())


def files_not_the_data(name, config):
    """The files of `config` that get the NOT_THE_DATA cases, in its order: one of each kind, and
    each file a declared case of the config changes (the file its table shows)."""
    corpus = registry.get(name)
    changed = {bad.file for bad in declared(name, "BAD_INPUT", []) if (bad.config or corpus.default_config) == config}
    kinds = one_of_each_kind(name, config)
    return [path for path in corpus.config(config).paths if path in kinds or path in changed]


def not_the_data(name):
    """The NOT_THE_DATA cases of corpus `name`: each kind of file every config reads."""
    return [BadInput(path, case, variant, f"{path}: {line}", config)
            for config in registry.get(name).configs for path in files_not_the_data(name, config)
            for case, variant, line in NOT_THE_DATA]


def generated_id(bad):
    """A generated case's test id after the corpus name: no spaces (tests/test_add_a_corpus.py reads ids as words)."""
    return f"{bad.config}-{bad.file}-{bad.case.replace(' ', '-')}"
