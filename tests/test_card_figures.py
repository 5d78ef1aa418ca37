"""The figures a card declares (`figures:` of dataset_cards/NAME.yaml): computed by the build from the rows it
exports, shown in the export's card, defined in the loader's card; and hand-written card text states none."""

import re

import datasets
import pyarrow as pa
import pytest
import yaml

from corpora import cards
from corpora import registry
from corpora.cards import figures
from corpora.cards import overlap
from corpora.cli import main
from corpora.errors import CorporaError
from helpers import EXAMPLE
from helpers import EXAMPLE_COLLECTION
from helpers import edit_source
from helpers import figure_rows

# How hand-written card text is told to state a figure (a count, share or range of the release, which only the
# build can know): any number written in digits, except
# - code in backticks (a value of the data such as `0.25`, a file name, an identifier, a column) and a quote of
#   upstream text in double quotes ("8 German questions"), both removed before numbers are looked for;
# - a date (2023-01-25) or a year (four digits from 1800 to 2099; this repository writes counts of a thousand
#   and more with a comma, 1,085);
# - digits that are part of a word or name (UTF-8, UUID4, float64, s08, 64-hex, 3.x);
# - the number that names one thing: question 7, questions 2 and 5, contests 497 to 586, games 1-3 and 5-10,
#   round 2, session 1, version 1, a quirk's number (a number after one of NUMBERED, and the numbers joined to it).
# A fact of the source's design is written as code (the rubric's scores `0` to `1`) or in words; number words
# ("three members") are not read: the cards use them for the design, never for a count of rows.
NUMBERED = r"(?i:quirks?|questions?|Frage|contests?|games?|rounds?|sessions?|versions?|commit|seasons?|members?)"
_QUOTED = re.compile(r"`[^`]*`|\"[^\"]*\"|“[^”]*”")
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_NAMED = re.compile(NUMBERED + r"\s+\d+(?:(?:,\s*|\s+(?:and|or|to|except)\s+|-)\d+)*")
_NUMBER = re.compile(r"(?<![\w.\-/])\d+(?:[.,]\d+)*%?(?![\w\-]|\.\w)")
_YEAR = re.compile(r"1[89]\d\d|20\d\d")


def stated_figures(text: str) -> list[str]:
    """The numbers of a hand-written text that state a figure (see above)."""
    text = _NAMED.sub(" ", _DATE.sub(" ", _QUOTED.sub(" ", text)))
    return [number for number in _NUMBER.findall(text) if not _YEAR.fullmatch(number)]


def prose(source: dict):
    """(key, text) of every hand-written text of a card source: its prose keys, nested ones, figures' `what`."""

    def walk(key, value):
        if isinstance(value, str):
            yield key, value
        elif isinstance(value, dict):
            for inner, item in value.items():
                yield from walk(f"{key}.{inner}", item)
        elif isinstance(value, list):
            for index, item in enumerate(value):
                yield from walk(f"{key}[{index}]", item)

    for key in cards.PROSE_KEYS + cards.OPTIONAL_KEYS:
        if key == "figures":
            for name, spec in (source.get(key) or {}).items():
                yield f"figures.{name}.what", spec["what"]
        elif key in source:
            yield from walk(key, source[key])


CARD_SOURCES = sorted(registry.repo_root().glob("dataset_cards/*.yaml")) + sorted(
    (EXAMPLE_COLLECTION / "dataset_cards").glob("*.yaml"))


@pytest.mark.parametrize("path", CARD_SOURCES, ids=lambda path: path.stem)
def test_hand_written_card_text_states_no_figure(path):
    source = yaml.safe_load(path.read_text(encoding="utf-8"))
    found = [f"{key}: {numbers}" for key, text in prose(source)
             if (numbers := stated_figures(text))]
    assert not found, f"{path.name} states figures the build does not compute (declare them under figures:)"


@pytest.mark.parametrize("name", registry.names() + [EXAMPLE])
def test_the_loader_text_a_card_shows_states_no_figure(name, monkeypatch):
    # The card's summary is the loader's _DESCRIPTION and its config table the configs' descriptions.
    if name == EXAMPLE:
        monkeypatch.setenv("CORPORA_ROOT", str(EXAMPLE_COLLECTION))
        registry.forget()
    facts = cards.loader_facts(registry.get(name))
    texts = {"_DESCRIPTION": facts["summary"], **{f"config {c}": text for c, text in facts["configs"].items()}}
    found = [f"{key}: {numbers}" for key, text in texts.items() if (numbers := stated_figures(text))]
    registry.forget()
    assert not found, f"loaders/{name}/{name}.py states figures the build does not compute"


@pytest.mark.parametrize(
    "text,figures_found",
    [
        ("Scores are skewed (1,085 of 2,407 answers score 1).", ["1,085", "2,407", "1"]),
        ("Lies are about 5% of messages; 8.7% have no label.", ["5%", "8.7%"]),
        ("It has 8 questions.", ["8"]),
        ("61 to 120 characters", ["61", "120"]),
        # not figures: code, quotes, dates, years, names with digits, numbered things
        ("One of `0`, `0.25` and `1`, in `data/training/german/7.xml`.", []),
        ('The card says "contains 8 German short answers" (2023-01-25, from 2016 on).', []),
        ("UTF-8, a UUID4, float64, sentence s08, 64-hex ids, datasets 3.x.", []),
        ("Question 7, questions 2 and 5, contests 497 to 586 except 554, games 1-3 and 5-10, round 2.", []),
    ],
)
def test_what_counts_as_a_stated_figure(text, figures_found):
    assert stated_figures(text) == figures_found


def test_a_figure_planted_in_a_card_is_found(tmp_path):
    source = yaml.safe_load((EXAMPLE_COLLECTION / "dataset_cards" / f"{EXAMPLE}.yaml").read_text())
    assert not [text for _, text in prose(source) if stated_figures(text)]
    source["limitations"] += " Two of its 19 sentences are German."
    assert [key for key, text in prose(source) if stated_figures(text)] == ["limitations"]
    source["figures"]["scores"]["what"] = "scores from 1 to 5"
    assert [key for key, text in prose(source) if stated_figures(text)] == ["limitations", "figures.scores.what"]


# --- the kinds, on a table whose answers can be read off it
TABLE = pa.table({
    "text": ["a b", " lead", "trail ", "two\nlines", "a b", "a b", None],
    "group": [1, 1, 2, 2, 1, 3, 3],
    "score": [0.0, 0.25, 1.0, 1.0, 0.25, 1.0, None],
    "tags": [["x"], [], ["x", "y", "z"], ["y"], ["x"], ["x", "y"], []],
})
SCHEMA = datasets.Features({
    "text": datasets.Value("string"), "group": datasets.Value("int32"), "score": datasets.Value("float64"),
    "tags": [datasets.Value("string")],
})


@pytest.mark.parametrize(
    "spec,value,shown",
    [
        ({"distinct": "text"}, 4, "4"),  # "a b" three times, the null not counted
        ({"distinct": "tags"}, 3, "3"),  # values in lists one by one
        ({"values": "score"}, [(0.0, 1), (0.25, 2), (1.0, 3), (None, 1)], "0: 1, 0.25: 2, 1: 3, None: 1"),
        ({"range": "score"}, (0.0, 1.0), "smallest 0, largest 1"),  # a min-max, not "0 to 1": 0.5 does not occur
        ({"range": "text"}, (3, 9), "smallest 3, largest 9"),  # lengths in characters: "a b" .. "two\nlines"
        ({"range": "tags"}, (0, 3), "smallest 0, largest 3"),  # items of a list
        ({"identifiers": "group"}, [1, 2, 3], "1 to 3"),  # every value from 1 to 3 occurs
        ({"matching": "text", "pattern": r"^\s|\s$"}, 2, "2"),
        ({"matching": "text", "pattern": r"\n"}, 1, "1"),
        ({"repeated": ["text", "group"]}, (1, 1), "groups: 1; surplus rows: 1"),  # ("a b", 1) twice
        ({"repeated": ["text"]}, (1, 2), "groups: 1; surplus rows: 2"),  # "a b" three times
        ({"repeated": ["group"]}, (3, 4), "groups: 3; surplus rows: 4"),  # 1 three times, 2 and 3 twice
    ],
)
def test_figure_kinds(spec, value, shown, monkeypatch):
    monkeypatch.setattr(figures, "BATCH_ROWS", 3)  # a split read in batches, as a big one is
    declared, problems = figures.declared({"f": {"what": "a figure", **spec}}, {"c": SCHEMA})
    assert problems == []
    tally = figures.Tally(declared, SCHEMA)
    tally.add("train", TABLE)
    assert tally.results() == {"f": {"train": value}}
    assert figures.text(declared[0].kind, value) == shown


def test_identifiers_with_a_gap_are_not_written_as_a_range(monkeypatch):
    monkeypatch.setattr(figures, "BATCH_ROWS", 2)  # values spread over batches, one repeated
    table = pa.table({"question": [5, 2, None, 5, 9, 3, 4, 8, 12]})
    schema = datasets.Features({"question": datasets.Value("int32")})
    declared, problems = figures.declared({"ids": {"what": "question numbers", "identifiers": "question"}}, {"c": schema})
    assert problems == []
    tally = figures.Tally(declared, schema)
    tally.add("train", table.slice(0, 4))  # 5, 2, None, 5
    tally.add("test", table)
    # train's rows 5, 2, None are test's too: examples found in more than one split, by content
    assert tally.results() == {"ids": {"train": [2, 5], "test": [2, 3, 4, 5, 8, 9, 12]},
                               overlap.KEY: (3, {"train & test": 3})}
    assert [figures.text("identifiers", value) for value in tally.results()["ids"].values()] == [
        "2 and 5", "2 to 5, 8, 9 and 12"]
    assert [figures.identifier_text(values) for values in ([], [7], [7, 8], [1, 2, 3, 5], [4, 1, 2, 3])] == [
        "no values", "7", "7 and 8", "1 to 3 and 5", "1 to 4"]
    assert figures.declared({"ids": {"what": "w", "identifiers": "text"}}, {"c": SCHEMA})[1] == [
        "figures: 'ids': config 'c': field 'text' is not an integer"]


def test_a_length_range_counts_characters_not_bytes():
    table = pa.table({"text": ["Über", "naïve café"]})  # 4 and 10 characters, 5 and 12 bytes in UTF-8
    schema = datasets.Features({"text": datasets.Value("string")})
    declared, problems = figures.declared({"lengths": {"what": "w", "range": "text"}}, {"c": schema})
    assert problems == []
    tally = figures.Tally(declared, schema)
    tally.add("train", table)
    assert tally.results() == {"lengths": {"train": (4, 10)}}


def test_figures_count_across_batches(monkeypatch):
    monkeypatch.setattr(figures, "BATCH_ROWS", 2)  # four batches: groups and distinct values span them
    declared, _ = figures.declared({"pairs": {"what": "w", "repeated": ["text"]}, "texts": {"what": "w", "distinct":
                                    "text"}, "scores": {"what": "w", "values": "score"}}, {"c": SCHEMA})
    tally = figures.Tally(declared, SCHEMA)
    tally.add("train", TABLE)
    assert tally.results() == {"pairs": {"train": (1, 2)}, "texts": {"train": 4},
                               "scores": {"train": [(0.0, 1), (0.25, 2), (1.0, 3), (None, 1)]}}


def test_shared_groups_between_every_pair_of_splits():
    declared, _ = figures.declared({"shared": {"what": "w", "shared": ["text", "group"]}}, {"c": SCHEMA})
    tally = figures.Tally(declared, SCHEMA)
    tally.add("train", TABLE)
    tally.add("validation", TABLE.slice(0, 2))  # ("a b", 1), (" lead", 1): both in train
    tally.add("test", TABLE.slice(2, 1))  # ("trail ", 2): in train, not in validation
    tally.add("empty", TABLE.slice(0, 0))
    pairs = {"train & validation": 2, "train & test": 1, "train & empty": 0, "validation & test": 0,
             "validation & empty": 0, "test & empty": 0}
    assert tally.results() == {"shared": pairs, overlap.KEY: (3, pairs)}  # whole rows here: the same pairs
    # Splits counted in another order (threads) are shown in the order the build gives.
    again = figures.Tally(declared, SCHEMA)
    for split, table in [("empty", TABLE.slice(0, 0)), ("test", TABLE.slice(2, 1)), ("train", TABLE),
                         ("validation", TABLE.slice(0, 2))]:
        again.add(split, table)
    assert list(again.results(["train", "validation", "test", "empty"])["shared"].items()) == list(
        tally.results()["shared"].items())


ONE_KIND = "expected one kind of ['distinct', 'identifiers', 'matching', 'range', 'repeated', 'shared', 'values']"


@pytest.mark.parametrize(
    "spec,message",
    [
        ({"what": "w", "distinct": "txt"}, "figures: 'f': no config has the field(s) txt"),
        ({"what": "w", "median": "text"}, "figures: 'f': unknown key(s) ['median'], kind(s) []: " + ONE_KIND),
        ({"what": "w", "distinct": "text", "values": "text"}, "figures: 'f': unknown key(s) [], kind(s) ['distinct', 'values']: " + ONE_KIND),
        ({"distinct": "text"}, "figures: 'f': `what` (what the figure counts, in words) is missing"),
        ({"what": "w", "distinct": ["text", "group"]}, "figures: 'f': distinct: expected one field, got ['text', 'group']"),
        ({"what": "w", "matching": "text"}, "figures: 'f': `pattern` goes with `matching`, and only there"),
        ({"what": "w", "matching": "text", "pattern": "("}, "figures: 'f': pattern '(' is not a regular expression Arrow reads: Invalid regular expression: missing ): ("),
        ({"what": "w", "matching": "group", "pattern": "1"}, "figures: 'f': config 'c': field 'group' is not a text"),
        ({"what": "w", "distinct": "tags.x"}, "figures: 'f': no config has the field(s) tags.x"),
        ({"what": "w", "repeated": ["tags"]}, "figures: 'f': config 'c': field 'tags' is not a single value (a struct, list or image)"),
        ({"what": "w", "distinct": "text", "configs": ["c", "d"]}, "figures: 'f': configs: ['c', 'd'] are not all configs of ['c', 'other']"),
        ({"what": "w", "distinct": "text", "configs": ["c", "other"]}, "figures: 'f': config 'other': field 'text' does not exist"),
    ],
)
def test_a_wrong_figure_is_a_clear_error(spec, message):
    _, problems = figures.declared({"f": spec}, {"c": SCHEMA, "other": datasets.Features({"x": SCHEMA["text"]})})
    assert problems == [message]


def test_a_wrong_figure_stops_the_card(repo_copy):
    edit_source(repo_copy, lambda s: s["figures"].update(typo={"what": "w", "distinct": "raters.name"}))
    with pytest.raises(CorporaError, match=r"figures: 'typo': no config has the field\(s\) raters.name"):
        cards.render(registry.get(EXAMPLE), {})


# --- the figures of a real export (a real corpus's: tests/test_saf_micro_job_german.py)



@pytest.mark.usefixtures("example_collection")
def test_the_export_card_shows_the_figures_of_its_configs(tmp_path):
    assert main(["build", EXAMPLE, "--dummy", "--out", str(tmp_path)]) == 0
    card = (tmp_path / EXAMPLE / "README.md").read_text()
    # dummy_data/example_ratings: ratings of train are (ana, 1), (ben, 3), (chen, 5) twice each, then (ben, 4),
    # (chen, 1), (chen, 2), (dara, 4); validation's raters chen, dara, emil; test's ana, ben, chen, dara, emil.
    assert figure_rows(card) == {
        ("sentences", "sentences with a character outside ASCII", "train"): "3",  # fährt, “yes”, café ☕
        ("sentences", "sentences with a character outside ASCII", "validation"): "0",
        ("sentences", "sentences with a character outside ASCII", "test"): "0",
        ("ratings", "distinct raters", "train"): "4",
        ("ratings", "distinct raters", "validation"): "3",
        ("ratings", "distinct raters", "test"): "5",
        ("ratings", "scores", "train"): "1: 3, 2: 1, 3: 2, 4: 2, 5: 2",
        ("ratings", "scores", "validation"): "1: 1, 2: 2, 4: 1, 5: 1",
        ("ratings", "scores", "test"): "1: 2, 2: 1, 3: 1, 4: 1, 5: 1",
        ("ratings", "(rater, score) pairs that occur more than once in a split", "train"): "groups: 3; surplus rows: 3",
        ("ratings", "(rater, score) pairs that occur more than once in a split", "validation"):
            "groups: 0; surplus rows: 0",
        ("ratings", "(rater, score) pairs that occur more than once in a split", "test"): "groups: 0; surplus rows: 0",
        ("ratings", "raters found in both splits", "train & validation"): "2",  # chen, dara
        ("ratings", "raters found in both splits", "train & test"): "4",  # ana, ben, chen, dara
        ("ratings", "raters found in both splits", "validation & test"): "3",  # chen, dara, emil
        ("raters", "distinct raters", "train"): "3",
        ("raters", "years of rating", "train"): "smallest 1, largest 12",  # ana 4, ben 1, chen 12
    }
    # The loader's card defines each figure and gives no value.
    loader_card = (EXAMPLE_COLLECTION / "loaders" / EXAMPLE / "README.md").read_text()
    statistics = loader_card.split("\n### Statistics\n", 1)[1].split("\n## ", 1)[0]
    assert "| distinct raters | `ratings`, `raters` | distinct values of `rater` (missing values not counted) |" in (
        statistics)
    assert figure_rows(loader_card) == {}


@pytest.mark.usefixtures("example_collection")
def test_a_build_of_some_configs_shows_only_their_figures(tmp_path):
    assert main(["build", EXAMPLE, "--config", "raters", "--dummy", "--out", str(tmp_path)]) == 0
    card = (tmp_path / EXAMPLE / "README.md").read_text()
    assert figure_rows(card) == {("raters", "distinct raters", "train"): "3",
                                 ("raters", "years of rating", "train"): "smallest 1, largest 12"}


def test_the_non_ascii_shortcut_counts_what_the_regular_expression_counts():
    schema = datasets.Features({"text": datasets.Value("string")})
    table = pa.table({"text": ["abc", "café", None, "I’m", "\x7f", "", "☕"]})
    specs = {"fast": {"what": "w", "matching": "text", "pattern": figures.NON_ASCII_PATTERN},
             "regex": {"what": "w", "matching": "text", "pattern": r"[^\x00-\x7F]"}}  # another spelling: RE2
    declared, _ = figures.declared(specs, {"c": schema})
    tally = figures.Tally(declared, schema)
    tally.add("train", table)
    assert tally.results() == {"fast": {"train": 3}, "regex": {"train": 3}}
