"""Cards as people read them: every export card renders as the Hub renders Markdown (CommonMark
with GitHub tables), with whole tables and every section, short lines, a small size even for
huge values; the YAML sizes mean what the Hub means; ClassLabel names for pandas users; the
terminal stays quiet when it is not a terminal; and the toolkit's modules import in layers."""

import ast
import re
import subprocess
import sys

import pyarrow.parquet as pq
import pytest
from markdown_it import MarkdownIt

from conftest import REPO
from corpora import cards
from corpora import registry
from corpora import stats

NAMES = registry.names()
TEMPLATE = (REPO / "src" / "corpora" / "templates" / "dataset_card.md.j2").read_text()
MAX_CARD_BYTES = 60_000
MAX_LINE = 500  # a table row is one line: the longest field description sets it


def template_headings():
    """The headings of the template: (level, text), with Jinja expressions left out."""
    headings = []
    for line in TEMPLATE.splitlines():
        match = re.match(r"(#{1,4}) (.+)", line)
        if match and "{{" not in match.group(2):
            headings.append((len(match.group(1)), match.group(2).replace("`", "")))
    return headings


def body(text):
    return text.split("\n---\n", 1)[1]


def check_renders(text, source, exported):
    html = MarkdownIt("commonmark").enable("table").render(body(text))
    tables = re.findall(r"<table>(.*?)</table>", html, re.DOTALL)
    assert len(tables) >= 3
    for table in tables:
        cells = [len(re.findall(r"<t[hd][ >]", row)) for row in re.findall(r"<tr>(.*?)</tr>", table, re.DOTALL)]
        assert len(set(cells)) == 1, cells  # the same number of cells in every row
    found = [(int(level), re.sub(r"<[^>]+>", "", inner)) for level, inner in re.findall(r"<h(\d)>(.*?)</h\d>", html)]
    assert found[0] == (1, source["pretty_name"])
    for heading in template_headings():
        optional = {"Statistics of this Build": exported, "Migrating from the Earlier Hub Loader": "migration" in source}
        if optional.get(heading[1], True):
            assert heading in found, heading
        else:
            assert heading not in found, heading
    assert max(len(line) for line in body(text).splitlines()) <= MAX_LINE


@pytest.mark.parametrize("name", NAMES)
def test_export_card_renders_whole_and_short(name, dummy_export):
    corpus = registry.get(name)
    text = (dummy_export(name) / "README.md").read_text(encoding="utf-8")
    check_renders(text, cards.card_source(corpus), exported=True)
    assert len(text.encode()) < MAX_CARD_BYTES


@pytest.mark.parametrize("name", NAMES)
def test_committed_card_renders_whole_and_short(name):
    corpus = registry.get(name)
    check_renders(corpus.card_path.read_text(encoding="utf-8"), cards.card_source(corpus), exported=False)


def test_the_title_is_the_pretty_name_and_sizes_mean_what_the_hub_means(dummy_export):
    folder = dummy_export("diplomacy_detection")
    metadata = cards.read_metadata(folder / "README.md")
    assert (folder / "README.md").read_text().count("\n# ") == 1
    assert "\n# Diplomacy Deception Detection: It Takes Two to Lie\n" in (folder / "README.md").read_text()
    for info in metadata["dataset_info"]:
        files = list((folder / info["config_name"]).glob("*.parquet"))
        assert info["download_size"] == sum(f.stat().st_size for f in files) > 0
        assert info["dataset_size"] == sum(split["num_bytes"] for split in info["splits"]) > 0


def test_a_huge_value_is_shown_cut():
    text = "x" * 10_000_000  # a 10 MB cell
    shown = cards.example_text({"text": text, "words": [str(i) for i in range(1000)], "blob": b"\0" * 5})
    assert shown == (
        "{\n"
        f'  "text": "{"x" * cards.SHOWN_CHARACTERS}… (10,000,000 characters)",\n'
        '  "words": ["0", "1", "2", "… 997 more (1,000 items)"],\n'
        '  "blob": "<5 bytes>"\n'
        "}"
    )
    assert cards.cut([{"a": 1}, {"a": 2}, {"a": 3}]) == [{"a": 1}, "… 2 more (3 items)"]
    assert cards.cut(list(range(5))) == [0, 1, 2, 3, 4]  # a short list stays whole


def test_an_export_card_with_huge_values_stays_small(dummy_export, tmp_path):
    """The real first rows can be huge (issue: a 59,420-character first example); the card
    shows them cut and stays under the size limit."""
    corpus = registry.get("diplomacy_detection")
    folder = dummy_export("diplomacy_detection")
    example = pq.read_table(folder / "conversations" / "train-00000-of-00001.parquet").slice(0, 1).to_pylist()[0]
    example["messages"] = ["y" * 10_000_000] + ["z" * 60_000] * 700
    report = {
        "conversations": stats.ConfigReport(read={"train": 1}, statistics={"train": stats.SplitStatistics(1)}, example=example)
    }
    text = cards.render(corpus, None, None, None, report, "the test")
    assert len(text.encode()) < MAX_CARD_BYTES
    assert max(len(line) for line in body(text).splitlines()) <= MAX_LINE
    assert "… (10,000,000 characters)" in text and "… 698 more (701 items)" in text


def test_source_files_are_listed_by_pattern():
    rows = cards.source_files(registry.get("saf_micro_job_german"))
    assert [(r["pattern"], r["files"]) for r in rows] == [
        ("data/*.parquet", 4),
        ("data/training/german/*.xml", 6),
        ("data/unseen_answers/german/*.xml", 6),
        ("data/unseen_questions/german/*.xml", 2),
    ]
    assert rows[3]["bytes"] == sum(
        int(line.split("\t")[1])
        for line in (REPO / "loaders/saf_micro_job_german/checksums.tsv").read_text().splitlines()
        if "/unseen_questions/" in line
    )


def test_wrapped_prose_never_starts_a_markdown_block():
    text = "a " * 60 + "- b " + "c " * 50 + "1. d"
    wrapped = cards.wrap(text, width=100)
    assert all(len(line) <= 100 for line in wrapped.splitlines())
    assert not any(re.match(r"(- |\d+\. )", line) for line in wrapped.splitlines())
    assert " ".join(wrapped.split()) == " ".join(text.split())


def readme_snippet():
    readme = (REPO / "README.md").read_text()
    section = readme.split("## Class labels outside `datasets`", 1)[1]
    return section.split("```python\n", 1)[1].split("\n```", 1)[0]


def test_the_readme_turns_class_label_ids_into_names(dummy_export, monkeypatch):
    """The README's snippet, run as written on a dummy export, with pandas."""
    folder = dummy_export("diplomacy_detection")
    monkeypatch.chdir(folder.parent)
    namespace = {}
    exec(readme_snippet(), namespace)  # noqa: S102 - the README's own code
    frame = namespace["df"]
    rows = pq.read_table(folder / "messages" / "train-00000-of-00001.parquet").to_pylist()
    countries = ["austria", "england", "france", "germany", "italy", "russia", "turkey"]
    assert list(frame["speaker"]) == [countries[row["speaker"]] for row in rows]
    assert list(frame["season"]) == [["Spring", "Fall", "Winter"][row["season"]] for row in rows]


@pytest.mark.parametrize(
    "argv", [["build", "diplomacy_detection", "--dummy", "--out", "OUT"], ["card", "diplomacy_detection", "--check"]]
)
def test_no_progress_bars_when_the_output_is_not_a_terminal(argv, tmp_path):
    argv = [str(tmp_path) if a == "OUT" else a for a in argv]
    with open(tmp_path / "log", "w") as log:
        done = subprocess.run([sys.executable, "-m", "corpora.cli", *argv], stdout=log, stderr=subprocess.STDOUT)
    output = (tmp_path / "log").read_text()
    assert done.returncode == 0, output
    assert [line for line in output.splitlines() if "split" in line and ("it/s" in line or "examples" in line)] == []
    assert "\r" not in output and "\n\n" not in output
    if argv[0] == "build":
        assert output.splitlines()[:3] == [
            f"exported to {tmp_path}/:",
            "corpus               config         split       source records  rows written  dummy data expects",
            "diplomacy_detection  conversations  train                    4             4                   4",
        ]


def test_list_aligns_numbers_and_unknown_to_the_right():
    done = subprocess.run([sys.executable, "-m", "corpora.cli", "list"], capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    assert lines[0].endswith("official rows")
    widths = {len(line) for line in lines}
    assert len(widths) == 1  # every row ends at the right edge of the numbers
    assert any(line.endswith("  unknown") for line in lines)
    assert any(line.endswith("  1,081,771") for line in lines)


# Each module may import only those of earlier layers (errors, feature_types, datasets_adapter and
# swap are leaves).
LAYERS = [
    {"errors", "feature_types", "datasets_adapter", "swap"},
    {"registry"},
    {"sources"},
    {"build"},
    {"stats", "cards", "croissant", "diff"},
    {"export"},
    {"validate"},
    {"push"},
    {"cli"},
]


def test_modules_import_in_layers_without_circles():
    layer_of = {module: index for index, layer in enumerate(LAYERS) for module in layer}
    source = REPO / "src" / "corpora"
    modules = {path.stem for path in source.glob("*.py")} - {"__init__", "__main__"}
    assert modules == set(layer_of), "every module has a layer"
    wrong = []
    for module in sorted(modules):
        tree = ast.parse((source / f"{module}.py").read_text())
        for node in ast.walk(tree):
            imported = []
            if isinstance(node, ast.ImportFrom) and node.module == "corpora":
                imported = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("corpora."):
                imported = [node.module.split(".")[1]]
            for name in imported:
                if layer_of[name] >= layer_of[module] and name != module and not (
                    layer_of[name] == layer_of[module] == 0
                ):
                    wrong.append(f"{module} imports {name}")
    assert wrong == []
