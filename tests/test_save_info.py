"""Byte sizes in the committed card are measurements, kept when the card is generated again.

The datasets 3.x CI check of a loading script, `datasets-cli test loaders/<name> --all_configs
--save_info`, rewrites the committed card's `dataset_info` with what it measured: it changes the
byte sizes (and, on files that are not the release, the split sizes) and nothing else, and
`corpora card --check` passes after a run on the release files, whose byte sizes it keeps."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from corpora import build
from corpora import cards
from corpora import registry
from corpora.cli import main
from synthetic import write_diplomacy

# The only keys the run may change: measurements.
MEASURED = re.compile(r"^\s*(num_bytes|num_examples|download_size|dataset_size): \d+$")


@pytest.fixture
def repo_copy(tmp_path, monkeypatch):
    for folder in ("loaders", "dataset_cards", "dummy_data"):
        shutil.copytree(REPO / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setenv("CORPORA_ROOT", str(tmp_path))
    registry.forget()
    yield tmp_path
    registry.forget()


@pytest.mark.datasets3
@pytest.mark.parametrize("name", ["diplomacy_detection", "curiosity_dialogs"])  # several configs; one
def test_save_info_changes_only_the_measurements(name, repo_copy, tmp_path):
    card = repo_copy / "loaders" / name / "README.md"
    committed = card.read_text(encoding="utf-8")
    env = dict(os.environ, HF_HOME=str(tmp_path / "hf-home"))  # datasets keeps a copy of the card there
    result = subprocess.run(
        [str(Path(sys.executable).with_name("datasets-cli")), "test", f"loaders/{name}", "--all_configs",
         "--save_info", "--data_dir", f"dummy_data/{name}", "--trust_remote_code", "--cache_dir",
         str(tmp_path / "cache")],
        cwd=repo_copy, env=env, capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Test successful." in result.stdout
    saved = card.read_text(encoding="utf-8")
    assert saved != committed
    # Without the measured lines, the two cards are the same lines in the same order.
    assert [line for line in saved.splitlines() if not MEASURED.match(line)] == [
        line for line in committed.splitlines() if not MEASURED.match(line)
    ]
    corpus = registry.get(name)
    metadata = cards.read_metadata(card)
    infos = metadata["dataset_info"] if isinstance(metadata["dataset_info"], list) else [metadata["dataset_info"]]
    measured = {info.get("config_name", "default"): info for info in infos}
    dummy = corpus.expected_dummy_counts()
    for config in corpus.configs:
        splits = measured[config]["splits"]
        assert {s["name"]: s["num_examples"] for s in splits} == dummy[config]  # the dummy data's sizes
        assert all(s["num_bytes"] > 0 for s in splits)
        assert measured[config]["dataset_size"] == sum(s["num_bytes"] for s in splits)

    # The same run on the release files records the official sizes: simulated by putting them
    # back. The card then checks clean, and keeps the byte sizes measured.
    card.write_text(put_back_official_sizes(saved, corpus), encoding="utf-8")
    assert cards.check(corpus, build.dummy_examples(name)) is None
    recorded = cards.recorded_byte_sizes(corpus)
    assert {config: recorded[config]["splits"] for config in corpus.configs} == {
        config: {s["name"]: s["num_bytes"] for s in measured[config]["splits"]} for config in corpus.configs
    }


def put_back_official_sizes(text: str, corpus) -> str:
    # One config: datasets writes a mapping without config_name.
    config = corpus.configs[0] if len(corpus.configs) == 1 else None
    lines, split = [], None
    for line in text.splitlines(keepends=True):
        if m := re.fullmatch(r"-? *config_name: (\S+)", line.strip()):
            config = m.group(1)
        if m := re.fullmatch(r"- name: (\S+)", line.strip()):
            split = m.group(1)
        if line.strip().startswith("num_examples:") and corpus.split_sizes[config][split] is not None:
            line = re.sub(r"\d+", str(corpus.split_sizes[config][split]), line)  # unknown: the count is the record
        lines.append(line)
    return "".join(lines)


@pytest.mark.datasets3
def test_save_info_records_the_rows_of_a_config_without_official_sizes(repo_copy, tmp_path):
    # caption_contest_ratings' response configs have no official size: the first --save_info on
    # the release files adds their split block, which is then their record, kept by `corpora card`.
    name = "caption_contest_ratings"
    corpus = registry.get(name)
    unknown = [config for config in corpus.configs if None in corpus.split_sizes[config].values()]
    assert unknown == ["cardinal_responses", "dueling_responses"]
    card = repo_copy / "loaders" / name / "README.md"
    result = subprocess.run(
        [str(Path(sys.executable).with_name("datasets-cli")), "test", f"loaders/{name}", "--all_configs",
         "--save_info", "--data_dir", f"dummy_data/{name}", "--trust_remote_code", "--cache_dir",
         str(tmp_path / "cache")],
        cwd=repo_copy, env=dict(os.environ, HF_HOME=str(tmp_path / "hf-home")), capture_output=True, text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    card.write_text(put_back_official_sizes(card.read_text(encoding="utf-8"), corpus), encoding="utf-8")
    assert cards.check(corpus, build.dummy_examples(name)) is None
    recorded = cards.recorded_byte_sizes(corpus)
    dummy = corpus.expected_dummy_counts()
    assert {config: recorded[config]["rows"] for config in unknown} == {config: dummy[config] for config in unknown}
    infos = cards.committed_infos(corpus)
    assert {config: infos[config].splits["train"].num_examples for config in unknown} == {
        config: dummy[config]["train"] for config in unknown
    }


def test_a_build_of_the_release_records_its_byte_sizes(repo_copy, record_release, tmp_path, capsys):
    name = "diplomacy_detection"
    corpus = registry.get(name)
    release = write_diplomacy(tmp_path / "release")  # synthetic, with the official sizes
    record_release(name, release)
    assert main(["build", name, "--data-dir", str(release), "--out", str(tmp_path / "out")]) == 0
    assert cards.recorded_byte_sizes(corpus) == {}  # a build writes nothing in loaders/
    capsys.readouterr()
    assert main(["card", name, "--sizes-from", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert out == f"wrote loaders/{name}/README.md: the byte sizes of {tmp_path / 'out' / name} for conversations, messages\n"
    export = cards.read_metadata(tmp_path / "out" / name / "README.md")["dataset_info"]
    recorded = cards.recorded_byte_sizes(corpus)
    assert {config: sizes["splits"] for config, sizes in recorded.items()} == {
        info["config_name"]: {s["name"]: s["num_bytes"] for s in info["splits"]} for info in export
    }
    assert all(size > 0 for sizes in recorded.values() for size in sizes["splits"].values())
    assert cards.check(corpus, build.dummy_examples(name)) is None  # generated again, the card keeps them
    # an export of other files (here the dummy data) has no byte sizes of the release
    assert main(["build", name, "--dummy", "--out", str(tmp_path / "dummy")]) == 0
    capsys.readouterr()
    assert main(["card", name, "--sizes-from", str(tmp_path / "dummy")]) == 1
    assert capsys.readouterr().err == (
        f"corpora card: error: {tmp_path / 'dummy' / name} has no config with the official split sizes "
        "(not a build of the release)\n"
    )
    assert cards.recorded_byte_sizes(corpus) == recorded
