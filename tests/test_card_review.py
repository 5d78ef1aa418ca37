"""Cards reviewers accept: `corpora validate PATH` of a real export (`corpora build --dummy --out DIR`
of the example corpus), its README.md then broken one field at a time, fails with one line naming
the field; the YAML header is read by huggingface_hub's DatasetCard, and the Hub's conventions for
`configs:`, `dataset_info:` and split names are checked. `corpora validate NAME` checks the
committed card the same way."""

import shutil
from pathlib import Path

import pytest

from corpora.cards import review
from corpora.cli import main
from helpers import EXAMPLE
from helpers import EXAMPLE_COLLECTION
from helpers import using_example

pytestmark = pytest.mark.usefixtures("example_collection")

NAME = EXAMPLE
CHECKS = ["mark", "card", "files", "croissant.json", "parquet files", "reload sentences", "reload ratings",
          "reload raters"]


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    out = tmp_path_factory.mktemp("export")
    with using_example():
        assert main(["build", NAME, "--dummy", "--out", str(out)]) == 0
    return out / NAME


def validate(capsys, folder) -> tuple[int, list[str]]:
    capsys.readouterr()
    code = main(["validate", str(folder)])
    return code, capsys.readouterr().out.splitlines()


def broken(export: Path, tmp_path: Path, old: str, new: str) -> Path:
    """A copy of the export whose README.md has `old` (found once) replaced by `new`."""
    folder = Path(shutil.copytree(export, tmp_path / NAME))
    card = folder / "README.md"
    text = card.read_text()
    assert text.count(old) == 1, old
    card.write_text(text.replace(old, new))
    return folder


def summary(text: str) -> str:
    """The text under ### Dataset Summary, up to the next heading."""
    start = text.index("### Dataset Summary\n")
    return text[start:text.index("\n### ", start + 1) + 1]


def citation(text: str) -> str:
    start = text.index("### Citation Information\n")
    return text[start:text.index("\n### ", start + 1) + 1]


def test_the_export_and_the_committed_cards_pass(export, capsys):
    assert validate(capsys, export) == (0, [f"{export}: {check}: ok" for check in CHECKS])
    for card in [*Path(__file__).parents[1].glob("loaders/*/README.md"), EXAMPLE_COLLECTION / f"loaders/{NAME}/README.md"]:
        assert review.problems(card) == [], card


BREAKS = [
    # the fields a reviewer asks for
    ("license: cc-by-4.0\n", "", "license: missing from the YAML header"),
    ("pretty_name: Example Ratings\n", "", "pretty_name: missing from the YAML header"),
    ("pretty_name: Example Ratings\n", "pretty_name: ''\n", "pretty_name: missing from the YAML header"),
    ("task_categories:\n- text-classification\n", "", "task_categories: missing from the YAML header"),
    ("task_categories:\n- text-classification\n", "task_categories: []\n", "task_categories: missing from the YAML header"),
    ("SUMMARY", "### Dataset Summary\n\n", "description: no text under '### Dataset Summary'"),
    ("CITATION", "### Citation Information\n\n```bibtex\n```\n", "citation: no BibTeX entry under '### Citation Information'"),
    # what huggingface_hub's DatasetCard / DatasetCardData rejects, drops or declares otherwise
    ("---\nannotations_creators:", "---\n- a list\n- not a mapping\nannotations_creators:",
     "YAML header: huggingface_hub's DatasetCard rejects it: while parsing a block collection in \"<unicode string>\", "
     "line 1, column 1: - a list ^ expected <block end>, but found '?' in \"<unicode string>\", line 3, column 1: "
     "annotations_creators: ^"),
    ("HEADER", "---\n- a list\n---\n", "YAML header: huggingface_hub's DatasetCard rejects it: repo card metadata block "
     "should be a dict"),
    ("tags:\n- example\n- clarity-rating\n", "tags:\n", "tags: empty, and huggingface_hub's DatasetCardData drops it"),
    ("pretty_name: Example Ratings\n", "pretty_name:\n- Example\n- Ratings\n",
     "pretty_name: ['Example', 'Ratings'] is not a string, as huggingface_hub's DatasetCardData declares it"),
    ("multilinguality: multilingual\n", "multilinguality:\n  kind: multilingual\n",
     "multilinguality: {'kind': 'multilingual'} is not a string or a list of strings, as huggingface_hub's "
     "DatasetCardData declares it"),
    # the Hub's conventions for configs:, dataset_info: and split names
    ("- config_name: raters\n  data_files:", "- data_files:",
     "configs: entry 1 has no config_name; dataset_info: raters is not a config of configs:"),
    ("    path: ratings/test-*\n", "    path: ratings/dev-*\n",
     "ratings: dataset_info says download_size DOWNLOAD_SIZE, its files hold TWO_SPLITS bytes; "
     "configs: ratings: data_files path 'ratings/dev-*' matches no file of the export"),
    ("  - split: test\n    path: ratings/test-*\n", "  - split: test-unseen\n    path: ratings/test-*\n",
     "configs: ratings: split name 'test-unseen' breaks the Hub's rule \\w+(\\.\\w+)*; "
     "dataset_info: ratings: splits train, validation, test, but configs: has train, validation, test-unseen"),
    ("- config_name: ratings\n  data_files:", "- config_name: ratings\n  default: true\n  data_files:",
     "configs: more than one default: ratings, sentences"),
]


@pytest.mark.parametrize("old, new, says", BREAKS, ids=[says.split(":")[0] + f"-{i}" for i, (_, _, says) in enumerate(BREAKS)])
def test_validate_path_names_the_broken_field(export, tmp_path, capsys, old, new, says):
    text = (export / "README.md").read_text()
    header = text[:text.index("\n---\n") + 5]
    old = {"SUMMARY": summary(text), "CITATION": citation(text), "HEADER": header}.get(old, old)
    if "DOWNLOAD_SIZE" in says:  # the sizes as this build wrote them
        ratings = export / "ratings"
        files = sum(p.stat().st_size for p in ratings.glob("*.parquet") if not p.name.startswith("test-"))
        says = says.replace("DOWNLOAD_SIZE", str(sum(p.stat().st_size for p in ratings.glob("*.parquet"))))
        says = says.replace("TWO_SPLITS", str(files))
    folder = broken(export, tmp_path, old, new)
    code, lines = validate(capsys, folder)
    assert code == 1
    assert [line for line in lines if line.startswith(f"{folder}: card: ")] == [f"{folder}: card: FAILED: {says}"]


def test_validate_name_checks_the_committed_card(tmp_path, monkeypatch, capsys):
    root = Path(shutil.copytree(EXAMPLE_COLLECTION, tmp_path / "collection"))
    monkeypatch.setenv("CORPORA_ROOT", str(root))
    source = root / "dataset_cards" / f"{NAME}.yaml"
    source.write_text(source.read_text().replace("task_categories: [text-classification]\n", "task_categories: []\n", 1))
    assert main(["card", NAME]) == 0  # the card source allows it; the review of the card does not
    capsys.readouterr()
    assert main(["validate", NAME]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        *(f"{NAME}: dummy build {config}: ok" for config in ("sentences", "ratings", "raters")),
        f"{NAME}: card: FAILED: loaders/{NAME}/README.md: task_categories: missing from the YAML header",
        f"{NAME}: export round trip: FAILED: export card: task_categories: missing from the YAML header",
    ]
