"""Reading an export without `datasets`: the hf:// snippets of docs/reading_without_datasets.md
and of the export card ("How to Load"), run with pandas, polars and DuckDB on a dummy export,
their `hf://datasets/ORG/NAME@REVISION` prefix replaced by the export folder."""

import re
import textwrap

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from corpora import export_folder
from corpora import prepare
from corpora import registry
from helpers import EXAMPLE
from helpers import REPO

pytestmark = [pytest.mark.usefixtures("example_collection"), pytest.mark.other_dependencies]


def doc_reading_snippet() -> str:
    page = (REPO / "docs" / "reading_without_datasets.md").read_text()
    section = page.split("# Reading an export without `datasets`", 1)[1]
    return section.split("```python\n", 1)[1].split("\n```", 1)[0]


def card_reading_snippet(card: str) -> str:
    item = card.split("3. Without `datasets`", 1)[1]
    return textwrap.dedent(item.split("```python\n", 1)[1].split("\n   ```", 1)[0])


def run_on(snippet: str, folder, prefix: str) -> dict:
    """Run a snippet with its hf:// prefix replaced by the local export folder."""
    assert snippet.count(f'REPO = "{prefix}"') == 1
    namespace = {}
    exec(snippet.replace(prefix, str(folder)), namespace)  # noqa: S102 - the doc's and the card's own code
    return namespace


def check_read(namespace: dict, expected) -> None:
    """pandas, polars and DuckDB each read the rows of the one split the glob covers."""
    assert list(namespace["df"].columns) == expected.column_names
    assert pa.Table.from_pandas(namespace["df"], preserve_index=False).to_pylist() == expected.to_pylist()
    assert namespace["frame"].columns == expected.column_names
    assert namespace["frame"].to_dicts() == expected.to_pylist()
    assert namespace["rows"] == [tuple(row.values()) for row in expected.to_pylist()]


def test_the_doc_reads_one_config_with_pandas_polars_and_duckdb(dummy_export):
    snippet = doc_reading_snippet()
    # The doc shows one config of a corpus of the collection; run on the example corpus's ratings.
    prefix = re.search(r'REPO = "(hf://datasets/your-org/\w+@v\d+\.\d+\.\d+)"', snippet).group(1)
    (config,) = set(re.findall(r"\{REPO\}/(\w+)/train-\*\.parquet", snippet))  # one config, every library
    assert snippet.count(f"{{REPO}}/{config}/train-*.parquet") == 3
    folder = dummy_export(EXAMPLE)
    namespace = run_on(snippet.replace(f"/{config}/", "/ratings/"), folder, prefix)
    expected = pq.read_table(folder / "ratings" / "train-00000-of-00001.parquet")
    assert expected.num_rows == 10
    check_read(namespace, expected)


def test_the_export_card_reads_its_first_config_at_the_loader_version_tag(tmp_path):
    export_folder.export(prepare.Request(registry.get(EXAMPLE), dummy=True), tmp_path, repo_id="some-org/ratings")
    folder = tmp_path / EXAMPLE
    snippet = card_reading_snippet((folder / "README.md").read_text())
    assert snippet.splitlines()[0] == 'REPO = "hf://datasets/some-org/ratings@v1.0.0"'
    assert snippet.count("/sentences/train-*.parquet") == 3
    namespace = run_on(snippet, folder, "hf://datasets/some-org/ratings@v1.0.0")
    expected = pq.read_table(folder / "sentences" / "train-00000-of-00001.parquet")
    assert expected.num_rows == 4
    check_read(namespace, expected)
