"""The tables of README.md and docs/diff.md that restate what the loaders declare (each corpus's
configs, the default first; each config's natural key) say what the registry says: a renamed
config, a new default or a changed key fails here until the table follows."""

import re

import pytest
from markdown_it import MarkdownIt

from corpora import registry
from helpers import REPO

CODE = re.compile(r"`([^`]+)`")


def tables(path):
    """The rows (lists of cells, as Markdown source) of every table of the file at `path`."""
    found, row = [], None
    for token in MarkdownIt("commonmark").enable("table").parse(path.read_text(encoding="utf-8")):
        if token.type == "table_open":
            found.append([])
        elif token.type == "tr_open":
            row = []
        elif token.type == "inline" and row is not None:
            row.append(token.content)
        elif token.type == "tr_close":
            found[-1].append(row)
            row = None
    return found


def table_headed(path, header):
    [table] = [table for table in tables(path) if table[0] == header]
    return table[1:]


def test_the_readme_names_each_corpus_with_its_configs_default_first():
    rows = table_headed(REPO / "README.md", ["corpus", "what it is", "configs (default first)"])
    said = {CODE.search(corpus).group(1): CODE.findall(configs) for corpus, _, configs in rows}
    assert said == {name: registry.get(name).configs for name in registry.names()}


def test_the_diff_doc_gives_each_config_the_key_its_loader_declares():
    said = {}
    for corpus, configs, key in table_headed(REPO / "docs" / "diff.md", ["corpus", "config", "key"]):
        columns = CODE.findall(key) if not key.startswith("position") else []
        said.update({(corpus, config): columns for config in configs.split(", ")})
    assert said == {
        (name, config): registry.get(name).key(config) for name in registry.names() for config in registry.get(name).configs
    }


@pytest.mark.parametrize(("text", "rows"), [
    ("| a | b |\n|---|---|\n| `x` | y, z |\n", [["a", "b"], ["`x`", "y, z"]]),
    ("text\n\n| a |\n|---|\n| 1 |\n\n| b |\n|---|\n| 2 |\n", [["a"], ["1"]]),
])
def test_tables_reads_the_cells_of_the_first_table(tmp_path, text, rows):
    (tmp_path / "t.md").write_text(text)
    assert tables(tmp_path / "t.md")[0] == rows
