"""Byte sizes in the committed card are measurements, kept when the card is generated again.

The datasets 3.x CI check of a loading script, `datasets-cli test loaders/<name> --all_configs
--save_info`, rewrites the committed card's `dataset_info` with what it measured: it changes the
byte sizes (and, on files that are not the release, the split sizes) and nothing else, and
`corpora card --check` passes after a run on the release files, whose byte sizes it keeps.

On a copy of the example collection (tests/example_collection), whose figures can be read off its
files."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from corpora import cards
from corpora import prepare
from corpora import registry
from corpora.cli import main
from helpers import EXAMPLE
from helpers import EXAMPLE_COLLECTION

# The only keys the run may change: measurements.
MEASURED = re.compile(r"^\s*(num_bytes|num_examples|download_size|dataset_size): \d+$")


@pytest.fixture
def repo_copy(tmp_path, monkeypatch):
    """A copy of the example collection (its release is the `example_release` fixture), whose
    card records no byte sizes yet, as when a corpus is added; the registry reads it through
    CORPORA_ROOT."""
    for folder in ("loaders", "dataset_cards", "dummy_data"):
        shutil.copytree(EXAMPLE_COLLECTION / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setenv("CORPORA_ROOT", str(tmp_path))
    registry.forget()
    corpus = registry.get(EXAMPLE)
    assert cards.card_byte_sizes(corpus)  # the committed card has the release's
    corpus.card_path.unlink()
    cards.write(corpus, prepare.dummy_examples(registry.get(EXAMPLE)))
    assert cards.card_byte_sizes(corpus) == {}
    yield tmp_path
    registry.forget()


# The example with its `sentences` config only: datasets writes the card's dataset_info of a
# loader with one config as a mapping, not a list.
ONE_CONFIG = """

# One config only (tests/test_save_info.py).
ExampleRatings.BUILDER_CONFIGS = [c for c in ExampleRatings.BUILDER_CONFIGS if c.name == "sentences"]
"""


def keep_only_sentences(root):
    """Cut the copy down to the `sentences` config: the loader, the fields, notes and figures of the card
    source, the dummy data's counts, the checksums of raters.csv; then write its card."""
    loader = root / "loaders" / EXAMPLE
    (loader / f"{EXAMPLE}.py").write_text((loader / f"{EXAMPLE}.py").read_text(encoding="utf-8") + ONE_CONFIG, encoding="utf-8")
    checksums = (loader / "checksums.tsv").read_text().splitlines(keepends=True)
    (loader / "checksums.tsv").write_text("".join(line for line in checksums if "/raters.csv\t" not in line))
    source_path = root / "dataset_cards" / f"{EXAMPLE}.yaml"
    source = yaml.safe_load(source_path.read_text(encoding="utf-8"))
    for field in ("rater", "score", "native_language", "years_rating"):
        del source["fields"][field]
    del source["config_notes"]["raters"]
    source["figures"] = {"non_ascii": source["figures"]["non_ascii"]}  # the others count fields of the configs cut
    source_path.write_text(yaml.safe_dump(source, sort_keys=False, allow_unicode=True), encoding="utf-8")
    counts = root / "dummy_data" / EXAMPLE / "expected_counts.json"
    counts.write_text(json.dumps({"sentences": json.loads(counts.read_text())["sentences"]}))
    registry.forget()
    assert registry.get(EXAMPLE).configs == ["sentences"]
    assert main(["card", EXAMPLE]) == 0
    assert "\ndataset_info:\n  config_name: sentences\n  features:\n" in (loader / "README.md").read_text(encoding="utf-8")


def record_the_release(release, out):
    """The committed card as after a release: `corpora build` of the release files and `corpora
    card --sizes-from` record its byte sizes (and, for the raters, of unknown official size, their
    5 rows). The example's card as committed has none (num_bytes: 0)."""
    assert main(["build", EXAMPLE, "--data-dir", str(release), "--out", str(out)]) == 0
    assert main(["card", EXAMPLE, "--sizes-from", str(out)]) == 0


@pytest.mark.datasets3
@pytest.mark.parametrize("configs", ["all", "sentences"])  # several configs; one
def test_save_info_changes_only_the_measurements(configs, repo_copy, example_release, tmp_path):
    name = EXAMPLE
    if configs == "sentences":
        keep_only_sentences(repo_copy)
    record_the_release(example_release, tmp_path / "release-export")
    released = cards.card_byte_sizes(registry.get(name))
    assert sorted(released) == (["raters", "ratings", "sentences"] if configs == "all" else ["sentences"])
    assert all(size > 0 for sizes in released.values() for size in sizes["splits"].values())
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
    # The dummy data's sizes (dummy_data/example_ratings/expected_counts.json).
    dummy = {
        "sentences": {"train": 4, "validation": 2, "test": 2},
        "ratings": {"train": 10, "validation": 5, "test": 6},
        "raters": {"train": 3},
    }
    assert list(measured) == (["raters", "ratings", "sentences"] if configs == "all" else ["sentences"])
    for config in corpus.configs:
        splits = measured[config]["splits"]
        assert {s["name"]: s["num_examples"] for s in splits} == dummy[config]
        assert all(s["num_bytes"] > 0 for s in splits)
        assert measured[config]["dataset_size"] == sum(s["num_bytes"] for s in splits)

    # The same run on the release files records the official sizes: simulated by putting them
    # back. The card then checks clean, and keeps the byte sizes measured.
    card.write_text(put_back_official_sizes(saved, corpus), encoding="utf-8")
    assert cards.check(corpus, prepare.dummy_examples(registry.get(name))) is None
    recorded = cards.card_byte_sizes(corpus)
    assert {config: recorded[config]["splits"] for config in corpus.configs} == {
        config: {s["name"]: s["num_bytes"] for s in measured[config]["splits"]} for config in corpus.configs
    }


def put_back_official_sizes(text: str, corpus) -> str:
    # One config: datasets writes a mapping, not a list (3.6 writes its config_name in it; if left out, the one config).
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
    # The example's raters have no official size: the first --save_info on the release files adds
    # their split block, which is then their record, kept by `corpora card`.
    name = EXAMPLE
    corpus = registry.get(name)
    unknown = [config for config in corpus.configs if None in corpus.split_sizes[config].values()]
    assert unknown == ["raters"]
    card = repo_copy / "loaders" / name / "README.md"
    committed = {info["config_name"]: info for info in cards.read_metadata(card)["dataset_info"]}
    assert "splits" not in committed["raters"]  # no record yet, as committed
    result = subprocess.run(
        [str(Path(sys.executable).with_name("datasets-cli")), "test", f"loaders/{name}", "--all_configs",
         "--save_info", "--data_dir", f"dummy_data/{name}", "--trust_remote_code", "--cache_dir",
         str(tmp_path / "cache")],
        cwd=repo_copy, env=dict(os.environ, HF_HOME=str(tmp_path / "hf-home")), capture_output=True, text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    card.write_text(put_back_official_sizes(card.read_text(encoding="utf-8"), corpus), encoding="utf-8")
    assert cards.check(corpus, prepare.dummy_examples(registry.get(name))) is None
    recorded = cards.card_byte_sizes(corpus)
    # The 3 raters of the dummy data (the run's files here) are the record.
    assert {config: recorded[config]["rows"] for config in unknown} == {"raters": {"train": 3}}
    assert recorded["raters"]["splits"]["train"] > 0
    infos = cards.committed_infos(corpus)
    assert {config: infos[config].splits["train"].num_examples for config in unknown} == {"raters": 3}


def test_a_build_of_the_release_records_its_byte_sizes(repo_copy, example_release, tmp_path, capsys):
    name = EXAMPLE
    corpus = registry.get(name)
    release = example_release  # the files checksums.tsv records, with the official sizes
    assert main(["build", name, "--data-dir", str(release), "--out", str(tmp_path / "out")]) == 0
    assert cards.card_byte_sizes(corpus) == {}  # a build writes nothing in loaders/
    capsys.readouterr()
    assert main(["card", name, "--sizes-from", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    # Every config: the raters, of unknown official size, too (their 5 rows are then the record).
    assert out == (
        f"wrote loaders/example_ratings/README.md: the byte sizes of {tmp_path / 'out' / name} for raters, ratings, "
        "sentences\n"
    )
    export = cards.read_metadata(tmp_path / "out" / name / "README.md")["dataset_info"]
    recorded = cards.card_byte_sizes(corpus)
    assert {config: sizes["splits"] for config, sizes in recorded.items()} == {
        info["config_name"]: {s["name"]: s["num_bytes"] for s in info["splits"]} for info in export
    }
    assert all(size > 0 for sizes in recorded.values() for size in sizes["splits"].values())
    assert {config: sizes.get("rows") for config, sizes in recorded.items()} == {
        "raters": {"train": 5}, "ratings": None, "sentences": None,  # rows recorded only where unknown
    }
    assert cards.check(corpus, prepare.dummy_examples(registry.get(name))) is None  # generated again, the card keeps them
    # an export of other files (here the dummy data) has no byte sizes of the release: of the
    # configs with official sizes (the raters': test_an_export_of_the_dummy_data_keeps_the_raters_record)
    assert main(["build", name, "--dummy", "--config", "sentences", "--config", "ratings", "--out",
                 str(tmp_path / "dummy")]) == 0
    capsys.readouterr()
    assert main(["card", name, "--sizes-from", str(tmp_path / "dummy")]) == 1
    assert capsys.readouterr().err == (
        f"corpora card: error: {tmp_path / 'dummy' / name} has no config with the official split sizes "
        "(not a build of the release)\n"
    )
    assert cards.card_byte_sizes(corpus) == recorded


def test_an_export_of_the_dummy_data_keeps_the_raters_record(repo_copy, example_release, tmp_path, capsys):
    """The raters have no official size: the rows and bytes a build of the release recorded (5
    raters) are their record, which an export of the dummy data (3 raters) must not replace."""
    corpus = registry.get(EXAMPLE)
    assert main(["build", EXAMPLE, "--data-dir", str(example_release), "--config", "raters", "--out",
                 str(tmp_path / "out")]) == 0
    assert main(["card", EXAMPLE, "--sizes-from", str(tmp_path / "out")]) == 0
    recorded = cards.card_byte_sizes(corpus)
    assert recorded["raters"]["rows"] == {"train": 5}
    assert main(["build", EXAMPLE, "--dummy", "--config", "raters", "--out", str(tmp_path / "dummy")]) == 0
    capsys.readouterr()
    assert main(["card", EXAMPLE, "--sizes-from", str(tmp_path / "dummy")]) == 1
    assert capsys.readouterr().err == (
        f"corpora card: error: {tmp_path / 'dummy' / EXAMPLE} has no config with the official split sizes "
        "(not a build of the release)\n"
    )
    assert cards.card_byte_sizes(corpus) == recorded
