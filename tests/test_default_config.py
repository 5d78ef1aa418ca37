"""A corpus whose one config is named `default` (the Hub's name for a dataset without configs,
which its card's `dataset_info` then carries without `config_name`) works through build, card,
validate, push and diff. The corpus is the example corpus cut to its `sentences` config, renamed
`default`, in a collection of the test's own."""

import json
import re
import shutil

import pytest
import yaml

from corpora import registry
from helpers import EXAMPLE
from helpers import EXAMPLE_COLLECTION
from helpers import corpora_here

NAME = EXAMPLE
DROPPED = ["ratings", "raters"]  # the configs cut from the example


def without_config(text, config):
    """The loader's text without the config's `ExampleConfig(...)` block."""
    block = re.search(rf'\n    ExampleConfig\(\n        name="{config}",\n.*?\n    \),', text, re.DOTALL)
    assert block, config
    return text[: block.start()] + text[block.end() :]


@pytest.fixture
def one_default_config(tmp_path, monkeypatch):
    root = tmp_path / "collection"
    shutil.copytree(EXAMPLE_COLLECTION, root, ignore=shutil.ignore_patterns("release"))
    loader = root / "loaders" / NAME / f"{NAME}.py"
    text = loader.read_text()
    for config in DROPPED:
        text = without_config(text, config)
    loader.write_text(text.replace('"sentences"', '"default"'))
    card = root / "dataset_cards" / f"{NAME}.yaml"
    source = yaml.safe_load(card.read_text())
    source["config_notes"] = {"default": source["config_notes"]["sentences"]}
    for field in ("rater", "score", "native_language", "years_rating"):
        del source["fields"][field]
    source["figures"] = {"non_ascii": source["figures"]["non_ascii"]}  # the others count fields of the configs cut
    card.write_text(yaml.safe_dump(source, allow_unicode=True, sort_keys=False))
    counts = root / "dummy_data" / NAME / "expected_counts.json"
    counts.write_text(json.dumps({"default": json.loads(counts.read_text())["sentences"]}))
    monkeypatch.setenv("CORPORA_ROOT", str(root))
    registry.forget()
    yield root
    registry.forget()


def test_a_single_config_named_default_builds_cards_validates_pushes_and_diffs(capsys, tmp_path, one_default_config):
    assert registry.get(NAME).configs == ["default"]
    assert corpora_here("card", NAME)[:2] == (0, f"wrote loaders/{NAME}/README.md\n")
    code, out, err = corpora_here("build", NAME, "--dummy", "--out", str(tmp_path / "out"))
    assert (code, err) == (0, "")
    folder = tmp_path / "out" / NAME
    header = yaml.safe_load((folder / "README.md").read_text().split("---\n")[1])
    assert "config_name" not in header["dataset_info"]  # the Hub's form for the one config `default`
    assert [s["num_examples"] for s in header["dataset_info"]["splits"]] == [4, 2, 2]
    assert [c["config_name"] for c in header["configs"]] == ["default"]
    checks = ["mark", "card", "files", "croissant.json", "parquet files", "reload default"]
    assert corpora_here("validate", str(folder)) == (0, "".join(f"{folder}: {c}: ok\n" for c in checks), "")
    assert corpora_here("validate", NAME) == (0, "".join(
        f"{NAME}: {check}: ok\n" for check in ("dummy build default", "card", "export round trip")), "")
    code, out, err = corpora_here("push", NAME, "--repo-id", "a/b", "--dry-run", "--allow-modified-sources",
                         "--data-dir", str(registry.get(NAME).dummy_dir), "--out", str(tmp_path / "pushed"))
    assert (code, err) == (0, "")
    code, out, err = corpora_here("diff", str(folder), str(tmp_path / "pushed" / NAME))
    assert (code, err) == (0, "")
    assert out.splitlines() == [f"old: {folder}", f"new: {tmp_path / 'pushed' / NAME}",
                                "config default (rows matched by sentence_id):", "  train: identical (4 rows)",
                                "  validation: identical (2 rows)", "  test: identical (2 rows)", "identical"]
