"""Cards as people read them: every export card renders as the Hub renders Markdown (CommonMark
with GitHub tables), with whole tables and every section, short lines, a small size even for
huge values; the YAML sizes mean what the Hub means; ClassLabel names for pandas users; the
terminal stays quiet when it is not a terminal; and the toolkit's modules import in layers.

The generic tests run on every corpus of the collection; the others on the example corpus
(tests/example_collection), whose figures can be read off its files."""

import ast
import re
import subprocess
import sys

import pyarrow.parquet as pq
import pytest
from markdown_it import MarkdownIt

from corpora import cards
from corpora import registry
from corpora import sources
from corpora.cards import figures
from corpora.cli import main
from corpora.commands import print_table
from helpers import EXAMPLE
from helpers import REPO
from helpers import class_labels_snippet

NAMES = registry.names()
TEMPLATE = (REPO / "src" / "corpora" / "templates" / "dataset_card.md.j2").read_text()
# The largest dummy export card (of the deliberations corpus): 59,098 bytes, of which 16,201 are the YAML header
# (14,883 the features, which datasets 3.6 loads the export by: docs/cards.md) and 17,844 the field tables, now
# with a row per statistic for its 273 statistics fields (56,193 bytes when the card left them to croissant.json).
MAX_CARD_BYTES = 59_500
MAX_LINE = 500  # a table row is one line: the longest field description sets it


def template_headings():
    """The headings of the template: (level, text), with Jinja expressions left out."""
    headings = []
    for line in TEMPLATE.splitlines():
        match = re.match(r"(#{1,4}) (.+)", line)
        if match and "{{" not in match.group(2):
            headings.append((len(match.group(1)), match.group(2).replace("`", "")))
    return headings


def any_class_labels(corpus):
    return any(cards.has_class_labels(corpus.features(config)) for config in corpus.configs)


def body(text):
    return text.split("\n---\n", 1)[1]


def check_renders(text, source, exported, class_labels):
    html = MarkdownIt("commonmark").enable("table").render(body(text))
    tables = re.findall(r"<table>(.*?)</table>", html, re.DOTALL)
    assert len(tables) >= 3
    for table in tables:
        cells = [len(re.findall(r"<t[hd][ >]", row)) for row in re.findall(r"<tr>(.*?)</tr>", table, re.DOTALL)]
        assert len(set(cells)) == 1, cells  # the same number of cells in every row
    found = [(int(level), re.sub(r"<[^>]+>", "", inner)) for level, inner in re.findall(r"<h(\d)>(.*?)</h\d>", html)]
    assert found[0] == (1, source["pretty_name"])
    for heading in template_headings():
        optional = {"Statistics of this Build": exported, "Migrating from the Earlier Hub Loader": "migration" in source,
                    "Statistics": not exported and bool(source.get("figures")),  # the definitions of its figures
                    "Class Labels Outside datasets": class_labels}
        if optional.get(heading[1], True):
            assert heading in found, heading
        else:
            assert heading not in found, heading
    assert max(len(line) for line in body(text).splitlines()) <= MAX_LINE


@pytest.mark.parametrize("name", NAMES)
def test_export_card_renders_whole_and_short(name, dummy_export):
    corpus = registry.get(name)
    text = (dummy_export(name) / "README.md").read_text(encoding="utf-8")
    check_renders(text, cards.card_source(corpus), exported=True, class_labels=any_class_labels(corpus))
    assert len(text.encode()) < MAX_CARD_BYTES


@pytest.mark.parametrize("name", NAMES)
def test_committed_card_renders_whole_and_short(name):
    corpus = registry.get(name)
    check_renders(corpus.card_path.read_text(encoding="utf-8"), cards.card_source(corpus), exported=False,
                  class_labels=any_class_labels(corpus))


@pytest.mark.usefixtures("example_collection")
def test_the_title_is_the_pretty_name_and_sizes_mean_what_the_hub_means(dummy_export):
    folder = dummy_export(EXAMPLE)
    metadata = cards.read_metadata(folder / "README.md")
    assert (folder / "README.md").read_text().count("\n# ") == 1
    assert "\n# Example Ratings\n" in (folder / "README.md").read_text()
    assert [info["config_name"] for info in metadata["dataset_info"]] == ["raters", "ratings", "sentences"]
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


@pytest.mark.usefixtures("example_collection")
def test_an_export_card_with_huge_values_stays_small(dummy_export, tmp_path):
    """The real first rows can be huge (issue: a 59,420-character first example); the card
    shows them cut and stays under the size limit."""
    corpus = registry.get(EXAMPLE)
    folder = dummy_export(EXAMPLE)
    example = pq.read_table(folder / "sentences" / "train-00000-of-00001.parquet").slice(0, 1).to_pylist()[0]
    assert example["sentence_id"] == "s01"  # the first dummy sentence, made huge below
    example["text"] = "x" * 5_000_000
    example["raters"] = ["y" * 10_000_000] + ["z" * 60_000] * 700
    report = {
        "sentences": figures.ConfigReport(read={"train": 1}, statistics={"train": figures.SplitStatistics(1)}, example=example)
    }
    text = cards.render(corpus, None, None, None, report, "the test")
    assert len(text.encode()) < MAX_CARD_BYTES
    assert max(len(line) for line in body(text).splitlines()) <= MAX_LINE
    assert "… (10,000,000 characters)" in text and "… 698 more (701 items)" in text
    assert "… (5,000,000 characters)" in text


@pytest.mark.usefixtures("example_collection")
def test_source_files_are_listed_by_pattern():
    # The example's checksums.tsv: five JSON Lines files in data/ (589 + 759 + 601 + 433 + 439
    # bytes: test, train-1, train-2, train-3, validation) and raters.csv (84 bytes), a pattern alone.
    corpus = registry.get(EXAMPLE)
    rows = cards.source_files(sources.urls(corpus), sources.read_records(corpus))
    assert rows == [
        {
            "pattern": "data/*.jsonl",
            "files": 5,
            "bytes": 2_821,
            "url": "https://example.org/corpora-example/ratings/v1/data/*.jsonl",
        },
        {
            "pattern": "raters.csv",
            "files": 1,
            "bytes": 84,
            "url": "https://example.org/corpora-example/ratings/v1/raters.csv",
        },
    ]


def test_wrapped_prose_never_starts_a_markdown_block():
    text = "a " * 60 + "- b " + "c " * 50 + "1. d"
    wrapped = cards.wrap(text, width=100)
    assert all(len(line) <= 100 for line in wrapped.splitlines())
    assert not any(re.match(r"(- |\d+\. )", line) for line in wrapped.splitlines())
    assert " ".join(wrapped.split()) == " ".join(text.split())


def on_corpus(snippet, name, config):
    """The snippet with its corpus and config replaced: docs/class_labels.md shows it on a corpus of
    the collection, the test runs it on the example corpus."""
    corpus, shown = re.search(r'path = "(\w+)/(\w+)/train-00000-of-00001\.parquet"', snippet).groups()
    assert snippet.count(f"{corpus}/") == 1  # the Parquet file, read alone
    return snippet.replace(f"{corpus}/{shown}/", f"{name}/{config}/")


@pytest.mark.both_legs  # Features.from_arrow_schema of each datasets version
@pytest.mark.usefixtures("example_collection")
def test_the_class_labels_doc_turns_class_label_ids_into_names(dummy_export, monkeypatch):
    """The snippet of docs/class_labels.md, run on a dummy export (its corpus and config replaced), with pandas:
    the names come from the Parquet file's own schema metadata, no card read."""
    folder = dummy_export(EXAMPLE)
    monkeypatch.chdir(folder.parent)
    namespace = {}
    exec(on_corpus(class_labels_snippet(), EXAMPLE, "sentences"), namespace)  # noqa: S102 - the doc's own code
    frame = namespace["df"]
    # The dummy train sentences s01, s02, s08, s11; `language` is stored as its index (de = 0, en = 1).
    assert [row["language"] for row in pq.read_table(folder / "sentences" / "train-00000-of-00001.parquet").to_pylist()] == [1, 0, 1, 1]
    assert list(frame["sentence_id"]) == ["s01", "s02", "s08", "s11"]
    assert list(frame["language"]) == ["en", "de", "en", "en"]


def labels_named(feature, ids, names):
    """(label feature, id, name) at each label of `feature` in a row's `ids` (pyarrow's) and `names`
    (the snippet's): lists, lists of structs and structs of lists walked alike."""
    import datasets

    if isinstance(feature, datasets.ClassLabel):
        return [(feature, ids, names)]
    if ids is None:
        assert names is None
        return []
    if isinstance(feature, dict):
        return [pair for key in feature for pair in labels_named(feature[key], ids[key], names[key])]
    inner = feature[0] if isinstance(feature, list) else getattr(feature, "feature", None)
    if inner is None:
        return []
    assert len(ids) == len(names)
    return [pair for i, n in zip(ids, names, strict=True) for pair in labels_named(inner, i, n)]


def _class_labels(feature) -> list:
    """The ClassLabels in a feature, at any depth."""
    import datasets

    if isinstance(feature, datasets.ClassLabel):
        return [feature]
    if isinstance(feature, dict):
        return [label for inner in feature.values() for label in _class_labels(inner)]
    inner = feature[0] if isinstance(feature, list) else getattr(feature, "feature", None)
    return [] if inner is None else _class_labels(inner)


@pytest.mark.both_legs  # Features.from_arrow_schema of each datasets version
@pytest.mark.parametrize("name", NAMES)
def test_the_class_labels_doc_names_class_labels_in_lists_and_structs_too(name, dummy_export, monkeypatch):
    """Each column that holds labels in a list (a Sequence / List of ClassLabel) or in a list of
    structs, of every config: the snippet of docs/class_labels.md names each label in it."""
    import datasets

    folder = dummy_export(name)
    monkeypatch.chdir(folder.parent)
    for config in registry.get(name).configs:
        table = pq.read_table(folder / config / "train-00000-of-00001.parquet")
        features = datasets.Features.from_arrow_schema(table.schema)
        nested = [c for c, f in features.items() if not isinstance(f, datasets.ClassLabel) and _class_labels(f)]
        if not nested:
            continue
        namespace = {}
        exec(on_corpus(class_labels_snippet(), name, config), namespace)  # noqa: S102 - the doc's own code
        for column in nested:
            found = [label for ids, names in zip(table.column(column).to_pylist(), namespace["df"][column], strict=True)
                     for label in labels_named(features[column], ids, names)]
            assert any(i is not None for _, i, _ in found), (config, column)  # the dummy rows hold labels there
            assert [n for _, _, n in found] == [None if i is None else f.int2str(i) for f, i, _ in found], (config, column)


@pytest.mark.usefixtures("example_collection")  # CORPORA_ROOT: the subprocess reads the example too
@pytest.mark.parametrize("argv", [["build", EXAMPLE, "--dummy", "--out", "OUT"], ["card", EXAMPLE, "--check"]])
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
            "corpus           config     split       source records  rows written  dummy data expects",
            "example_ratings  sentences  train                    4             4                   4",
        ]


@pytest.mark.usefixtures("example_collection")  # CORPORA_ROOT: `corpora list` lists the example
def test_list_aligns_numbers_and_unknown_to_the_right(capsys):
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("official rows")
    widths = {len(line) for line in lines}
    assert len(widths) == 1  # every row ends at the right edge of the numbers
    # The example's official sizes (raters: unknown), the default config marked.
    assert lines == [
        "corpus           config               split       official rows",
        "example_ratings  sentences (default)  train                  12",
        "example_ratings  sentences (default)  validation              3",
        "example_ratings  sentences (default)  test                    4",
        "example_ratings  ratings              train                  30",
        "example_ratings  ratings              validation              7",
        "example_ratings  ratings              test                   10",
        "example_ratings  raters               train             unknown",
    ]
    # Large numbers with thousands separators, aligned the same way (the example's are all small).
    print_table(["corpus", "official rows"], [["a", 1_081_771], ["b", None], ["c", 12]])
    assert capsys.readouterr().out.splitlines() == [
        "corpus  official rows",
        "a           1,081,771",
        "b             unknown",
        "c                  12",
    ]


# Each module may import only those of earlier layers (signals, feature_spelling, parquet_files,
# datasets_adapter and loader_shared are leaves; errors imports signals and loader_shared; path_errors and
# user_numbers import errors, hub_client user_numbers, hub_repo errors; exports errors, path_errors and signals). A subpackage
# counts as one module: cards (src/corpora/cards/) is all card work.
LAYERS = [
    {"signals", "errors", "path_errors", "feature_spelling", "datasets_adapter", "exports", "loader_shared",
     "parquet_files", "hub_client", "hub_repo", "user_numbers"},
    {"registry", "download"},
    {"sources", "releases"},  # releases: a loader's RELEASE_NOTES
    {"prepare"},
    {"cards"},  # the cards, their figures and statistics, croissant.json, what the Hub's reviewers ask
    {"diff"},  # reads the corpus an export records in its card
    {"pipeline"},  # the export of any builder: Parquet, statistics, the transaction
    {"export_folder"},  # a corpus's export: what the corpora add to the pipeline
    {"validate", "scaffold"},
    {"push"},
    {"convert"},  # `corpora convert`: a legacy script's builder through the pipeline, its card, checks and push
    {"commands"},  # one module per command (corpora/commands/NAME.py)
    {"cli"},
]


def corpora_imports() -> dict[str, set[str]]:
    """Each module of src/corpora (a subpackage counting as one) -> the others it imports, anywhere
    in its code (an import inside a function too)."""
    source = REPO / "src" / "corpora"
    files = {path.stem: [path] for path in source.glob("*.py") if path.stem not in ("__init__", "__main__")}
    files.update({path.parent.name: sorted(path.parent.glob("*.py")) for path in source.glob("*/__init__.py")})  # subpackages
    imports = {}
    for module in sorted(files):
        trees = [ast.parse(path.read_text()) for path in files[module]]
        imports[module] = set()
        for node in (node for tree in trees for node in ast.walk(tree)):
            if isinstance(node, ast.ImportFrom) and node.module == "corpora":
                imports[module] |= {alias.name for alias in node.names if alias.name != "__version__"}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("corpora."):
                imports[module].add(node.module.split(".")[1])
        imports[module].discard(module)
    return imports


def test_modules_import_in_layers_without_circles():
    layer_of = {module: index for index, layer in enumerate(LAYERS) for module in layer}
    imports = corpora_imports()
    assert set(imports) == set(layer_of), "every module has a layer"
    wrong = []
    for module in sorted(imports):
        for name in imports[module]:
            if layer_of[name] >= layer_of[module] and not (layer_of[name] == layer_of[module] == 0):
                wrong.append(f"{module} imports {name}")
    assert wrong == []


def test_no_module_of_the_toolkit_imports_itself_through_others():
    # Layer 0 imports within itself, so the layers alone do not keep out a circle there.
    imports, done, circles = corpora_imports(), set(), []

    def visit(module, path):
        if module in path:
            circles.append(" -> ".join([*path[path.index(module):], module]))
        elif module not in done:
            for name in sorted(imports[module]):
                visit(name, [*path, module])
            done.add(module)

    for module in sorted(imports):
        visit(module, [])
    assert circles == []
