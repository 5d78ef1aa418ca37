"""What each tests/test_<name>.py declares, run the same way for every corpus (TFDS's
DatasetBuilderTestCase): QUIRKS (exact values of the dummy build), DOWNLOADS (the pinned URLs
over real HTTP), FULL_SIZE (a copy of the release at the official sizes) and FUZZ (variants of a
dummy file). BAD_INPUT is run by tests/test_bad_input.py. Each test runs once per corpus, and
checks nothing for a corpus that declares nothing (a new corpus, README "Add a corpus")."""

import posixpath
import re

import datasets
import pytest
from hypothesis import HealthCheck
from hypothesis import example
from hypothesis import given
from hypothesis import settings

from corpora import export_folder
from corpora import load
from corpora import prepare
from corpora import registry
from corpora.cli import main
from corpora.errors import OFFLINE
from corpora.errors import CorporaError
from corpora.sources import DownloadError
from helpers import Downloads
from helpers import FullSize
from helpers import Fuzz
from helpers import builder_rows
from helpers import declarations
from helpers import declared
from helpers import official_sizes_of_the_dummy_data
from helpers import table_lines
from helpers import written_once

each_corpus = pytest.mark.parametrize("name", registry.names())


def decoded(value, feature):
    """`value` with each class label as its name (a row reads as its source file does)."""
    if isinstance(feature, datasets.ClassLabel):
        return None if value is None else feature.int2str(value)
    if isinstance(feature, dict) and isinstance(value, dict):
        return {k: decoded(v, feature[k]) if k in feature else v for k, v in value.items()}
    if isinstance(feature, list) and isinstance(value, list):  # datasets 3.6's [feature]
        return [decoded(v, feature[0]) for v in value]
    inner = getattr(feature, "feature", None)  # Sequence / List
    if inner is not None and isinstance(value, list):
        return [decoded(v, inner) for v in value]
    if inner is not None and isinstance(value, dict):  # Sequence of a dict: a dict of lists
        return {k: [decoded(x, inner[k]) for x in v] if k in inner else v for k, v in value.items()}
    return value


def field_of(value, feature, field):
    """The value at `field` of a row ("a.b.0.c"; "a.*.c" for c of every item of a; "" for the
    whole row), its class labels decoded."""
    if not field:
        return decoded(value, feature)
    part, _, rest = field.partition(".")
    if isinstance(value, list):
        inner = feature[0] if isinstance(feature, list) else feature.feature
        if part == "*":
            return [field_of(item, inner, rest) for item in value]
        return field_of(value[int(part)], inner, rest)
    inner = getattr(feature, "feature", None)
    return field_of(value[part], feature[part] if isinstance(feature, dict) else inner[part] if inner else None, rest)


def row_by_key(dataset, key_columns, key):
    """The row whose natural key is `key` (a value, or a tuple for a key of several columns); by
    position for a config without a key; for a dict {column: value}, every row that has those
    values, in order (a list)."""
    if isinstance(key, dict):
        found = [row for row in dataset if all(row[column] == value for column, value in key.items())]
        assert found, f"no row with {key!r}"
        return found
    if not key_columns:
        return dataset[key]
    wanted = key if isinstance(key, tuple) else (key,)
    found = [row for row in dataset if tuple(row[c] for c in key_columns) == wanted]
    assert len(found) == 1, f"{len(found)} rows with key {key!r}"
    return found[0]


@each_corpus
def test_each_declaration_is_under_its_name(name):
    """A corpus that declares nothing runs nothing here: a declaration under another name (a
    typo, an import under an alias) would pass unseen."""
    names = {Downloads: "DOWNLOADS", FullSize: "FULL_SIZE", Fuzz: "FUZZ"}
    misplaced = []
    for attribute, value in declarations(name).items():
        for item in value if isinstance(value, list) else [value]:
            if type(item) in names and attribute != names[type(item)]:
                misplaced.append(f"{attribute} holds a {type(item).__name__}, which only {names[type(item)]} runs")
    assert not misplaced, misplaced


@each_corpus
def test_quirks_have_their_exact_values(name, dummy_build):
    """QUIRKS: (config, split, key, field, expected) rows of the dummy build (for a dict key,
    `expected` is the list of the field's values over the rows it selects)."""
    corpus = registry.get(name)
    wrong = []
    for config, split, key, field, expected in declared(name, "QUIRKS", []):
        dataset = dummy_build(name, config)[split]
        found = row_by_key(dataset, corpus.key(config), key)
        if isinstance(key, dict):
            actual = [field_of(row, dataset.features, field) for row in found]
        else:
            actual = field_of(found, dataset.features, field)
        if actual != expected:
            wrong.append(f"{config}/{split} {key!r} {field}: {actual!r} != {expected!r}")
    assert not wrong, "\n".join(wrong)


# --- downloads over real HTTP (127.0.0.1), as from the pinned URLs -----------------------------


@each_corpus
@pytest.mark.both_legs
def test_download_from_urls_prepared_and_streaming(name, mirror, tmp_path, dummy_build):
    downloads = declared(name, "DOWNLOADS")
    for config in downloads.configs if downloads else ():
        prepared = load(name, config, cache_dir=tmp_path / config, allow_modified_sources=True)
        streamed = load(name, config, streaming=True)
        for split, expected in dummy_build(name, config).items():
            assert prepared[split].to_list() == expected.to_list(), (config, split)
            assert list(streamed[split]) == expected.to_list(), (config, split)


@each_corpus
@pytest.mark.both_legs
def test_build_from_the_urls_checks_the_release_and_exports(name, mirror, tmp_path, monkeypatch, record_release):
    # The whole path of a real build: download, size and sha256 against the recorded release,
    # build, rows in = rows out, official sizes, export. The dummy files stand in for the release.
    if not declared(name, "DOWNLOADS"):
        return
    corpus = registry.get(name)
    record_release(name, corpus.dummy_dir, urls=corpus.urls)
    official_sizes_of_the_dummy_data(monkeypatch, corpus)
    rows = export_folder.export(prepare.Request(registry.get(name)), tmp_path / "out")
    counts = corpus.expected_dummy_counts()
    assert [(r.config, r.split, r.read, r.rows, r.official) for r in rows] == [
        (config, split, n, n, n) for config in corpus.configs for split, n in counts[config].items()
    ]


@each_corpus
@pytest.mark.both_legs
def test_downloaded_files_that_are_not_the_release_are_refused(name, mirror, tmp_path):
    if not declared(name, "DOWNLOADS"):
        return
    first = registry.get(name).source_files()[0]  # the first the message lists
    with pytest.raises(CorporaError, match=rf"differ from the recorded release: {re.escape(mirror + first)} \(no recorded checksum\)"):
        export_folder.export(prepare.Request(registry.get(name)), tmp_path / "out")


@each_corpus
def test_without_a_data_dir_the_pinned_urls_are_downloaded(name, tmp_path):
    downloads = declared(name, "DOWNLOADS")
    if not downloads:
        return
    corpus = registry.get(name)
    pinned = (downloads.pinned,) if isinstance(downloads.pinned, str) else downloads.pinned
    urls = corpus.urls
    assert sorted(urls) == sorted(corpus.source_files())
    assert all(any(url == base + path for base in pinned) for path, url in urls.items()), urls
    # ...which tests may not reach: offline mode (and the socket guard) stop the download.
    config = downloads.configs[0]
    with pytest.raises(DownloadError) as caught:
        load(name, config, cache_dir=tmp_path)
    paths = corpus.config(config).paths  # one file: its pinned URL; several: how many, and their folder
    folder = posixpath.commonpath([posixpath.dirname(path) for path in paths])
    assert str(caught.value) == (
        f"{name}: cannot download {urls[paths[0]]}: {OFFLINE}. To build from a local copy of the upstream files "
        f"instead, pass --data-dir DIR (data_dir= in Python) with this file at DIR/{paths[0]}"
        if len(paths) == 1
        else f"{name}: cannot download {len(paths)} files{f' in {folder}/' if folder else ''}, {OFFLINE}; "
        "or build from a local copy: --data-dir DIR"
    )


# --- a copy of the release at the official sizes --------------------------------------------------


@pytest.mark.main_leg  # the loader's own code at scale; the builder, the export and its read-back: test_generic
@each_corpus
def test_full_size_files_build_with_every_record_accounted_for(name, tmp_path, capsys, record_release, monkeypatch):
    full_size = declared(name, "FULL_SIZE")
    if not full_size:
        return
    upstream = written_once(name, full_size.write)
    record_release(name, upstream)  # as if these were the recorded release files
    corpus = registry.get(name)
    keys = record_keys(corpus, monkeypatch)
    assert main(["build", name, "--data-dir", str(upstream), "--out", str(tmp_path / "out")]) == 0
    assert table_lines(capsys.readouterr().out) == [
        [name, config, split, f"{n:,}", f"{n:,}", f"{n:,}"]
        for config in corpus.configs for split, n in corpus.split_sizes[config].items()
    ]
    # Keys unique at the official sizes, not only in the dummy data: the builder's, in each split...
    assert sum(sum(split.values()) for split in keys) == sum(n for sizes in corpus.split_sizes.values() for n in sizes.values())
    # ...and the loader's key columns, by which `corpora diff` matches rows (it refuses a repeated key).
    assert main(["diff", str(tmp_path / "out" / name), str(tmp_path / "out" / name)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "identical"
    for config, split, index, field, expected in full_size.rows:
        reloaded = datasets.load_dataset(str(tmp_path / "out" / name), config, cache_dir=str(tmp_path / "c"))
        assert field_of(reloaded[split][index], reloaded[split].features, field) == expected


def record_keys(corpus, monkeypatch) -> list[dict[str, int]]:
    """The keys the builder yields from now on, for each split it generates: {key: rows} (a
    table's rows for an Arrow builder, else 1), a repeated key counted once."""
    arrow = issubclass(corpus.builder_class, datasets.ArrowBasedBuilder)
    method = "_generate_tables" if arrow else "_generate_examples"
    generate, keys = getattr(corpus.builder_class, method), []

    def recording(self, **gen_kwargs):
        keys.append({})
        for key, item in generate(self, **gen_kwargs):
            keys[-1][str(key)] = item.num_rows if arrow else 1
            yield key, item

    monkeypatch.setattr(corpus.builder_class, method, recording)
    return keys


# --- fuzzing: any variant of a file gives rows or one clear line ------------------------------------


def fuzz(corpus, fuzz, data_dir):
    features = corpus.features(fuzz.config)
    expected = corpus.expected_dummy_counts()[fuzz.config]
    if fuzz.config_kwargs:  # the narrowed build: its rows of the dummy data, each a row of the whole build
        whole, narrowed = (builder_rows(corpus, fuzz.config, str(corpus.dummy_dir), **kwargs)
                           for kwargs in ({}, fuzz.config_kwargs))
        assert {split: len(rows) for split, rows in whole.items()} == expected
        assert all(rows and all(row in whole[split] for row in rows) for split, rows in narrowed.items()), narrowed
        expected = {split: len(rows) for split, rows in narrowed.items()}

    original = (corpus.dummy_dir / fuzz.file).read_bytes()

    def run(variant):
        (data_dir / fuzz.file).write_bytes(variant(original))
        try:
            rows = builder_rows(corpus, fuzz.config, str(data_dir), **fuzz.config_kwargs)
        except ValueError as error:
            assert re.match(fuzz.error, str(error)), str(error)
            return
        assert {split: len(r) for split, r in rows.items()} == expected
        for split_rows in rows.values():
            for row in split_rows:
                features.encode_example(row)  # fits the declared features

    for found in fuzz.found:  # tried on every run, before the drawn variants
        run = example(found)(run)
    run = given(fuzz.variant)(run)
    settings(max_examples=fuzz.examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])(run)()


@pytest.mark.hypothesis  # `make fuzz` runs it (-m hypothesis)
@each_corpus
def test_fuzzed_files_give_their_rows_or_one_clear_line(name, dummy_copy, tmp_path):
    for number, declaration in enumerate(declared(name, "FUZZ", [])):
        data_dir = dummy_copy(name, changed=declaration.file, target=tmp_path / f"fuzz-{number}")
        fuzz(registry.get(name), declaration, data_dir)
