"""The same checks for every corpus x config, on its dummy data, and the module contract every
loader keeps (README, "Add a corpus")."""

import json
import shutil

import datasets
import pytest

from corpora import export_folder
from corpora import prepare
from corpora import registry
from corpora import validate
from corpora.cli import main
from corpora.errors import CorporaError
from helpers import CASES
from helpers import COLLECTION
from helpers import LFS

each_config = pytest.mark.parametrize("name,config", CASES, ids=[f"{n}-{c}" for n, c in CASES])
each_corpus = pytest.mark.parametrize("name", registry.names())


@pytest.mark.both_legs
@each_config
def test_dummy_build_has_the_declared_rows_per_split(name, config, dummy_build):
    expected = registry.get(name).expected_dummy_counts()[config]
    dataset = dummy_build(name, config)
    assert {split: dataset[split].num_rows for split in dataset} == expected


@each_config
def test_dummy_data_covers_every_official_split(name, config):
    corpus = registry.get(name)
    assert list(corpus.expected_dummy_counts()[config]) == list(corpus.split_sizes[config])


@pytest.mark.both_legs
@each_config
def test_features_are_the_declared_ones(name, config, dummy_build):
    declared = registry.get(name).features(config)
    for split, dataset in dummy_build(name, config).items():
        assert dataset.features == declared, split


@pytest.mark.both_legs
@each_config
def test_keys_are_unique_and_deterministic(name, config):
    corpus = registry.get(name)
    builder = corpus.builder(config, data_dir=corpus.dummy_dir)
    # Arrow-based builders yield (key, table) from _generate_tables, the others (key, example).
    generate = getattr(builder, "_generate_tables", None) or builder._generate_examples
    for generator in builder._split_generators(datasets.DownloadManager()):
        first = [str(key) for key, _ in generate(**generator.gen_kwargs)]
        again = [str(key) for key, _ in generate(**generator.gen_kwargs)]
        assert len(set(first)) == len(first), generator.name
        assert first == again
        assert all(str(corpus.dummy_dir) not in str(key) for key in first)


@pytest.mark.both_legs
@each_config
def test_no_example_is_in_two_splits(name, config, dummy_build):
    seen = {}
    for split, dataset in dummy_build(name, config).items():
        for row in dataset:
            text = json.dumps(row, sort_keys=True, default=str)
            assert text not in seen, f"{split} repeats an example of {seen.get(text)}"
            seen[text] = split


@pytest.mark.both_legs
@each_config
def test_streaming_yields_the_prepared_rows(name, config, dummy_build):
    from corpora import load

    streamed = load(name, config, dummy=True, streaming=True)
    prepared = dummy_build(name, config)
    assert sorted(streamed) == sorted(prepared)
    for split in prepared:
        assert list(streamed[split]) == prepared[split].to_list(), split


@pytest.mark.both_legs
@each_config
def test_export_reloads_with_the_same_rows_and_features(name, config, dummy_build, dummy_export, tmp_path):
    folder = dummy_export(name)
    reloaded = datasets.load_dataset(str(folder), config, cache_dir=str(tmp_path))
    assert validate.compare(dummy_build(name, config), reloaded) is None
    splits = registry.get(name).split_sizes[config]
    assert sorted(p.name for p in (folder / config).iterdir()) == sorted(
        f"{split}-00000-of-00001.parquet" for split in splits
    )


@pytest.mark.both_legs  # the loader's error reaches the user through datasets' builder
@each_corpus
def test_a_git_lfs_pointer_for_a_source_file_is_one_clear_line(name, dummy_copy, tmp_path, capsys):
    from corpora.cli import main

    corpus = registry.get(name)
    config = corpus.default_config
    path = corpus.config(config).paths[0]
    data_dir = dummy_copy(name)
    (data_dir / path).write_bytes(LFS)
    args = ["build", name, "--config", config, "--data-dir", str(data_dir), "--allow-modified-sources"]
    assert main([*args, "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    last = err.rstrip("\n").split("\n")[-1].split("\r")[-1]  # datasets' progress bars come before it
    assert last.startswith(f"corpora build: error: {path}: is a Git LFS pointer, not the "), err
    assert "Traceback" not in err
    assert not (tmp_path / "out" / name).exists()


@each_config
def test_source_records_are_counted_apart_from_the_builder(name, config, tmp_path):
    # The rows-in side of rows in = rows out, on the dummy files and on copies named as datasets'
    # download cache names them (no extension, no upstream name).
    corpus = registry.get(name)
    expected = corpus.expected_dummy_counts()[config]
    for split, paths in corpus.config(config).files.items():
        assert corpus.count_source_records(config, split, [str(corpus.dummy_dir / p) for p in paths]) == expected[split]
        cached = [tmp_path / split / f"{index:04d}" for index in range(len(paths))]
        for path, copy in zip(paths, cached, strict=True):
            copy.parent.mkdir(exist_ok=True)
            shutil.copyfile(corpus.dummy_dir / path, copy)
        assert corpus.count_source_records(config, split, [str(p) for p in cached]) == expected[split], split


@each_config
def test_every_missing_source_file_is_listed_before_any_work(name, config, dummy_copy, tmp_path):
    """The first and the last file the config reads are gone: corpora.load of the config and an
    export of every config name both before any work (with the configs the folder still holds),
    and so does the loader alone (datasets' own path, without the toolkit's check)."""
    from corpora import load
    from corpora.sources import MissingSourceFiles

    corpus = registry.get(name)
    paths = corpus.config(config).paths
    gone = list(dict.fromkeys([paths[0], paths[-1]]))
    data_dir = dummy_copy(name)
    for path in gone:
        (data_dir / path).unlink()
    complete = [c for c in corpus.configs if not set(gone) & set(corpus.config(c).paths)]
    hint = (f". {data_dir} holds the files of config {', '.join(map(repr, complete))}: build only that with "
            + " or ".join(f"--config {c}" for c in complete)) if complete else ""

    def listed(order):
        return f"{name}: {len(gone)} source file(s) missing: {', '.join(str(data_dir / p) for p in order if p in gone)}{hint}"

    with pytest.raises(MissingSourceFiles) as caught:
        load(name, config, data_dir=data_dir, cache_dir=tmp_path / "cache", allow_modified_sources=True)
    assert str(caught.value) == listed(paths)
    with pytest.raises(MissingSourceFiles) as caught:
        export_folder.export(prepare.Request(registry.get(name), data_dir=data_dir, allow_modified_sources=True), tmp_path / "out")
    assert str(caught.value) == listed(corpus.source_files())
    assert not (tmp_path / "out" / name).exists()
    builder = corpus.builder(config, data_dir=data_dir, cache_dir=tmp_path / "builder")
    with pytest.raises(FileNotFoundError) as caught:
        builder.download_and_prepare()
    assert str(caught.value) == f"{len(gone)} source file(s) missing in {data_dir}: {', '.join(gone)}"


@each_corpus
def test_an_unknown_config_is_refused_with_the_configs_there_are(name):
    from corpora import load

    with pytest.raises(CorporaError) as caught:
        load(name, "no_such_config", dummy=True)
    assert str(caught.value) == f"{name} has no config 'no_such_config'; configs: {', '.join(registry.get(name).configs)}"


# --- the module contract: checked when the registry imports a loader ---------------------------


@each_corpus
def test_the_loader_keeps_the_module_contract(name):
    corpus = registry.get(name)  # registry.check_contract ran here
    for config in corpus.configs:  # the facts of each config on the config itself
        facts = corpus.config(config)
        assert list(facts.split_sizes) == list(facts.files) and facts.paths
        assert corpus.split_sizes[config] == facts.split_sizes and corpus.key(config) == list(facts.key)
    assert set(corpus.source_files()) <= set(corpus.urls)


@pytest.fixture
def loader_copy(tmp_path, monkeypatch):
    """copy(name): a collection of one corpus, a copy of its loader folder, which the registry
    reads (through CORPORA_ROOT) until the test ends. Returns the copy's root."""
    def copy(name):
        shutil.copytree(COLLECTION / "loaders" / name, tmp_path / "loaders" / name)
        monkeypatch.setenv("CORPORA_ROOT", str(tmp_path))
        registry.forget()
        return tmp_path

    yield copy
    registry.forget()


def loader_with(root, name, lines):
    """Append lines to the loader of name under root; the loader file's name as errors give it."""
    script = root / "loaders" / name / f"{name}.py"
    script.write_text(script.read_text() + "\n" + "\n".join(lines) + "\n")
    registry.forget()
    return f"loaders/{name}/{name}.py"


@each_corpus
@pytest.mark.parametrize("fact", registry.INFO_TEXTS)
def test_a_loader_whose_info_lacks_a_text_is_refused_by_name(name, fact, loader_copy):
    builder_class = registry.get(name).builder_class
    builder = builder_class.__name__
    label = loader_with(loader_copy(name), name, [
        f"_info_of = {builder}._info",
        "def _without(self):",
        "    info = _info_of(self)",
        f"    info.{fact} = ''",
        "    return info",
        f"{builder}._info = _without",
    ])
    with pytest.raises(CorporaError) as caught:
        registry.get(name)
    configs = ", ".join(repr(config.name) for config in builder_class.BUILDER_CONFIGS)
    assert str(caught.value) == (
        f'{label}: _info must give a {fact} (a non-empty string) for config(s) {configs} (README, "Add a corpus")'
    )


@each_corpus
def test_a_loader_whose_facts_are_missing_is_refused_with_every_reason(name, loader_copy):
    corpus = registry.get(name)
    root = loader_copy(name)
    first = corpus.configs[0]
    builder = corpus.builder_class.__name__
    label = loader_with(root, name, [
        f"_first = [c for c in {builder}.BUILDER_CONFIGS if c.name == {first!r}][0]",
        "_first.license = ''",
        "_first.url_prefix = None",
        "_first.counter = 3",
        f"{builder}.BUILDER_CONFIGS = [*{builder}.BUILDER_CONFIGS, datasets.BuilderConfig(name='plain')]",
    ])
    with pytest.raises(CorporaError) as caught:
        registry.get(name)
    assert str(caught.value) == (
        f"{label}: config {first!r} must give url_prefix, the pinned URL of its files' root; "
        f"config {first!r} must give counter, a function (config, split, paths) -> records; "
        "config 'plain' must be a SourceConfig (files, url_prefix, split_sizes, key, ...); "
        f'_info must give a license (a non-empty string) for config(s) {first!r} (README, "Add a corpus")'
    )


def test_two_configs_that_give_a_path_two_urls_are_refused(loader_copy):
    # The first corpus whose last config reads a file that an earlier config reads too.
    corpus, last = next(
        (corpus, corpus.builder_class.BUILDER_CONFIGS[-1])
        for corpus in registry.all_corpora()
        if any(set(config.paths) & set(corpus.builder_class.BUILDER_CONFIGS[-1].paths)
               for config in corpus.builder_class.BUILDER_CONFIGS[:-1])
    )
    label = loader_with(loader_copy(corpus.name), corpus.name, [
        f"{corpus.builder_class.__name__}.BUILDER_CONFIGS[-1].url_prefix = 'https://example.org/'",
    ])
    with pytest.raises(CorporaError) as caught:
        registry.get(corpus.name)
    owners = {}
    for config in corpus.builder_class.BUILDER_CONFIGS[:-1]:
        owners.update({path: config.name for path in config.paths if path not in owners})
    assert str(caught.value) == f"{label}: " + "; ".join(
        f"configs {owners[path]!r} and {last.name!r} give {path} different URLs" for path in last.paths if path in owners
    ) + ' (README, "Add a corpus")'


@each_corpus
def test_official_sizes_must_follow_the_splits_of_the_files(name, loader_copy):
    corpus = registry.get(name)
    config = corpus.configs[0]
    splits = list(corpus.config(config).files)
    # A config whose official sizes name other splits than its files is refused where it is made.
    builder = corpus.builder_class.__name__
    label = loader_with(loader_copy(name), name, [
        f"_first = [c for c in {builder}.BUILDER_CONFIGS if c.name == {config!r}][0]",
        "_first.split_sizes = {'elsewhere': 1}",
        "_first.__post_init__()",
    ])
    with pytest.raises(CorporaError) as caught:
        registry.get(name)
    assert str(caught.value) == f"{label}: config {config!r}: split_sizes must have the splits of files, {splits}"


@each_corpus
def test_a_broken_loader_is_one_clear_line_from_the_cli(name, loader_copy, capsys):
    from corpora.cli import main

    root = loader_copy(name)
    first = registry.get(name).builder_class.BUILDER_CONFIGS[0].name
    label = loader_with(root, name, ["del _HOMEPAGE"])
    assert main(["build", name, "--dummy", "--out", str(root / "out")]) == 1
    assert capsys.readouterr().err == (
        f"corpora build: error: {label}: _info failed for config {first!r}: NameError: name '_HOMEPAGE' is not "
        'defined (README, "Add a corpus")\n'
    )


# --- exports: reproducible, with keys for `corpora diff`, and valid -------------------------------


@each_corpus
def test_two_dummy_builds_are_identical(name, dummy_export, tmp_path, capsys):
    export_folder.export(prepare.Request(registry.get(name), dummy=True), tmp_path)
    assert main(["diff", str(dummy_export(name)), str(tmp_path / name)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "identical"
    corpus = registry.get(name)
    keys = {config: corpus.key(config) for config in corpus.configs}
    expected = [
        f"config {c} (rows matched {'by ' + ', '.join(keys[c]) if keys[c] else 'by position'}):" for c in corpus.configs
    ]
    assert [line for line in out.splitlines() if line.startswith("config ")] == expected


def test_every_loader_key_is_a_column_of_its_config():
    for corpus in registry.all_corpora():
        for config in corpus.configs:
            assert set(corpus.key(config)) <= set(corpus.features(config)), (corpus.name, config)


@each_corpus
def test_the_dummy_export_validates(name, dummy_export):
    # What `corpora push` and `corpora validate` check before anything leaves the machine.
    assert validate.export_problems(registry.get(name), dummy_export(name)) == []
