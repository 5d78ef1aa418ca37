"""`corpora.load`: load_dataset's arguments (split names and slices, streaming, num_proc), with the
release checks of `corpora build` (recorded checksums, official sizes, allow_modified_sources);
and the datasets 3.x script route, which checks the official sizes of the committed card."""

import datasets
import pytest

from conftest import REPO
from corpora import load
from corpora import registry
from corpora import sources
from corpora.errors import CorporaError
from synthetic import write_diplomacy

NAME = "diplomacy_detection"
TEST_MESSAGES = 2741  # the official size of messages/test


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    """A full-size copy with the official sizes (synthetic: it stands in for the release files)."""
    return write_diplomacy(tmp_path_factory.mktemp("release"))


@pytest.fixture
def cut_copy(tmp_path, release):
    """The release with the last dialog (one line) of data/test.jsonl cut off."""
    import shutil

    copy = tmp_path / "cut"
    shutil.copytree(release, copy)
    path = copy / "data" / "test.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:-1]), encoding="utf-8")
    return copy


def test_split_names_and_slices(dummy_build, tmp_path):
    full = dummy_build(NAME, "messages")
    validation = load(NAME, "messages", split="validation", dummy=True, cache_dir=tmp_path)
    assert isinstance(validation, datasets.Dataset)
    assert validation.to_list() == full["validation"].to_list()
    half = load(NAME, "messages", split="train[:50%]", dummy=True, cache_dir=tmp_path)
    assert half.to_list() == full["train"].to_list()[:5]
    middle = load(NAME, "messages", split="train[2:4]", dummy=True, cache_dir=tmp_path)
    assert middle.to_list() == full["train"].to_list()[2:4]
    both = load(NAME, "messages", split="train+validation", dummy=True, cache_dir=tmp_path)
    assert both.to_list() == full["train"].to_list() + full["validation"].to_list()


def test_an_unknown_split_is_named_before_any_work(tmp_path):
    with pytest.raises(CorporaError) as caught:
        load(NAME, "messages", split="train+dev[:10]", dummy=True, cache_dir=tmp_path)
    assert str(caught.value) == "diplomacy_detection/messages has no split 'dev[:10]'; splits: train, validation, test"
    assert list(tmp_path.iterdir()) == []


def test_streaming_one_split(dummy_build):
    stream = load(NAME, "messages", split="test", dummy=True, streaming=True)
    assert isinstance(stream, datasets.IterableDataset)
    assert list(stream) == dummy_build(NAME, "messages")["test"].to_list()
    with pytest.raises(CorporaError) as caught:
        load(NAME, "messages", split="test[:2]", dummy=True, streaming=True)
    assert str(caught.value) == (
        "diplomacy_detection/messages: streaming takes one split name (train, validation, test), not 'test[:2]'; "
        "take a part of a stream with .take(n) and .skip(n)"
    )


def test_num_proc_gives_the_rows_of_one_process(dummy_build, tmp_path):
    loaded = load(NAME, "conversations", dummy=True, num_proc=2, cache_dir=tmp_path)
    assert {split: loaded[split].to_list() for split in loaded} == {
        split: part.to_list() for split, part in dummy_build(NAME, "conversations").items()
    }


def test_the_recorded_release_loads(release, record_release, tmp_path):
    record_release(NAME, release)
    test = load(NAME, "messages", split="test", data_dir=release, cache_dir=tmp_path)
    assert test.num_rows == TEST_MESSAGES


def test_a_cut_copy_is_refused_by_its_checksums(release, cut_copy, record_release, tmp_path):
    record_release(NAME, release)
    url = registry.get(NAME).module._URLS["data/test.jsonl"]
    found = sources.measure(cut_copy / "data" / "test.jsonl")
    recorded = sources.measure(release / "data" / "test.jsonl")
    with pytest.raises(CorporaError) as caught:
        load(NAME, "messages", data_dir=cut_copy, cache_dir=tmp_path)
    assert str(caught.value) == (
        f"diplomacy_detection: 1 source file(s) differ from the recorded release: {url}: expected size "
        f"{recorded.size}, sha256 {recorded.sha256}; found size {found.size}, sha256 {found.sha256}. If the new "
        "files are right, record them with `corpora checksums diplomacy_detection --update`; to build them once "
        "without recording, use --allow-modified-sources."
    )


def test_a_cut_copy_recorded_as_the_release_is_refused_by_the_official_sizes(cut_copy, record_release, tmp_path):
    record_release(NAME, cut_copy)  # e.g. `corpora checksums --update` run on the wrong files
    cut_rows = load(NAME, "messages", split="test", data_dir=cut_copy, cache_dir=tmp_path / "a",
                    allow_modified_sources=True).num_rows
    assert cut_rows < TEST_MESSAGES
    with pytest.raises(CorporaError) as caught:
        load(NAME, "messages", data_dir=cut_copy, cache_dir=tmp_path / "b")
    assert str(caught.value) == (
        f"diplomacy_detection: split sizes differ from the official ones: messages/test: {cut_rows:,} rows "
        "(official 2,741). To build a fixed, extended or cut copy anyway, use --allow-modified-sources "
        "(allow_modified_sources=True in Python)"
    )


def test_allow_modified_sources_loads_a_cut_copy(release, cut_copy, record_release, tmp_path, dummy_build):
    record_release(NAME, release)
    loaded = load(NAME, "messages", data_dir=cut_copy, cache_dir=tmp_path, allow_modified_sources=True)
    assert loaded["validation"].num_rows == 1416
    assert 0 < loaded["test"].num_rows < TEST_MESSAGES
    # the dummy data are no release either, and load as such only with dummy=True or the flag
    with pytest.raises(CorporaError, match="3 source file"):
        load(NAME, "messages", data_dir=registry.get(NAME).dummy_dir, cache_dir=tmp_path / "d")


@pytest.mark.datasets3
def test_the_script_route_refuses_a_cut_copy(cut_copy, tmp_path, monkeypatch):
    """datasets 3.x checks a script's builds against the committed card's official sizes."""
    monkeypatch.chdir(REPO)
    with pytest.raises(datasets.utils.info_utils.NonMatchingSplitsSizesError) as caught:
        datasets.load_dataset(f"loaders/{NAME}", "messages", data_dir=str(cut_copy), trust_remote_code=True,
                              cache_dir=str(tmp_path))
    assert "'expected': SplitInfo(name='test', num_bytes=0, num_examples=2741," in str(caught.value)
    assert str(caught.value).count("'expected'") == 1  # only the test split differs
