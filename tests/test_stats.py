"""The card's statistics (corpora.cards.figures) against a plain-Python reference, on tables read back
from Parquet files of many row groups (many batches), with nested fields."""

import math

import datasets
import pyarrow.parquet
import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from corpora import registry
from corpora.cards import figures
from helpers import EXAMPLE

FEATURES = datasets.Features(
    {
        "label": datasets.ClassLabel(names=["no", "yes", "maybe"]),
        "flag": datasets.Value("bool"),
        "text": datasets.Value("string"),
        "number": datasets.Value("int32"),  # no statistics
        "words": [datasets.Value("string")],
        "turn": {"speaker": datasets.Value("string"), "agrees": datasets.Value("bool")},
    }
)

ROW = st.fixed_dictionaries(
    {
        "label": st.one_of(st.none(), st.integers(0, 2)),
        "flag": st.one_of(st.none(), st.booleans()),
        "text": st.one_of(st.none(), st.text(max_size=30)),
        "number": st.integers(-5, 5),
        "words": st.lists(st.text(max_size=6), max_size=4),
        "turn": st.fixed_dictionaries({"speaker": st.text(max_size=12), "agrees": st.booleans()}),
    }
)


def nearest_rank(values):
    ordered = sorted(values)
    return tuple(ordered[max(1, math.ceil(q * len(ordered))) - 1] for q in figures.QUANTILES)


def reference(rows):
    def distribution(values, names):
        counted = [(str(name), sum(1 for v in values if v == key)) for key, name in names]
        missing = sum(1 for v in values if v is None)
        return counted + ([("None", missing)] if missing else [])

    labels = list(enumerate(["no", "yes", "maybe"]))
    booleans = [(True, "True"), (False, "False")]
    lengths = {
        "text": [len(r["text"]) for r in rows if r["text"] is not None],
        "words": [len(w) for r in rows for w in r["words"]],
        "turn.speaker": [len(r["turn"]["speaker"]) for r in rows],
    }
    return {
        "examples": len(rows),
        "distributions": {
            "label": distribution([r["label"] for r in rows], labels),
            "flag": distribution([r["flag"] for r in rows], booleans),
            "turn.agrees": distribution([r["turn"]["agrees"] for r in rows], booleans),
        },
        "lengths": {field: nearest_rank(values) for field, values in lengths.items() if values},
    }


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(ROW, min_size=1, max_size=60), min_size=1, max_size=3), st.integers(1, 7))
def test_statistics_equal_a_plain_python_count(tmp_path_factory, files, row_group_size):
    folder = tmp_path_factory.mktemp("stats")
    paths = []
    for index, rows in enumerate(files):
        path = folder / f"train-{index:05d}.parquet"
        table = datasets.Dataset.from_list(rows, features=FEATURES).data.table
        pyarrow.parquet.write_table(table, path, row_group_size=row_group_size)
        paths.append(path)
    computed = figures.split_statistics(FEATURES, [pyarrow.parquet.read_table(path) for path in paths])
    expected = reference([row for rows in files for row in rows])
    assert computed.examples == expected["examples"]
    assert computed.distributions == expected["distributions"]
    assert computed.lengths == expected["lengths"]


@pytest.mark.usefixtures("example_collection")
def test_the_export_card_shows_the_statistics(dummy_export):
    # The example's dummy train sentences (tests/example_collection): s01, s02, s08, s11.
    folder = dummy_export(EXAMPLE)
    card = (folder / "README.md").read_text()
    path = folder / "sentences" / "train-00000-of-00001.parquet"
    computed = figures.split_statistics(registry.get(EXAMPLE).features("sentences"), [pyarrow.parquet.read_table(path)])
    assert computed.examples == 4
    assert computed.distributions == {
        "language": [("de", 1), ("en", 3)],
        "flagged": [("True", 1), ("False", 2), ("None", 1)],
    }
    # "The café opens at 7 ☕." has 22 characters, the three others 29, 30 and 31.
    assert computed.lengths == {"sentence_id": (3, 3, 3, 3, 3), "text": (22, 22, 29, 30, 31), "raters": (3, 3, 3, 4, 4)}
    assert "| train | 4 | 4 |" in card
    assert "| `language` | train | de: 1, en: 3 |" in card
    assert "| `flagged` | train | True: 1, False: 2, None: 1 |" in card
    assert "| `flagged` | test | True: 1, False: 1 |" in card  # no None: no such row is shown
    assert "| `text` | train | 22 | 22 | 29 | 30 | 31 |" in card
