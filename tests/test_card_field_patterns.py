"""Fields described by a pattern of their names (cards/field_patterns.py): a key of `fields:` with `*`
(any part of a name between two dots) or several names separated by ", ". The card shows such fields
in one table per config, a row per pattern with the types of the fields it matches; croissant.json
says each pattern once, in its record set's description. On the example corpus, its card source
edited (a corpus's own tests check its patterns)."""

import pytest

from corpora import cards
from corpora import registry
from corpora.cards import croissant
from corpora.cards import field_patterns
from corpora.errors import CorporaError
from helpers import EXAMPLE
from helpers import edit_source

INTRO = "Fields described by a pattern of their names (`*` stands for any part of a name between two dots):"


def by_patterns(source):
    """rater and score under one key, years_rating under `*_rating`."""
    fields = source["fields"]
    fields["rater, score"] = "Who rated, or the score given (a test's text)."
    fields["*_rating"] = fields.pop("years_rating")
    del fields["rater"], fields["score"]


def test_the_patterns_read_a_part_of_a_dotted_name():
    key = "statistics.*.char_count, members.statistics.*.char_count"
    assert field_patterns.patterns(key) == ["statistics.*.char_count", "members.statistics.*.char_count"]
    assert [field_patterns.matches(key, name) for name in (
        "statistics.messages.char_count", "members.statistics.messages_discuss.char_count",
        "statistics.messages.char_count.value", "statistics.char_count", "members.statistics.a.b.char_count",
    )] == [True, True, False, False, False]
    assert field_patterns.matches("*_rating", "years_rating") and not field_patterns.matches("*_rating", "a.b_rating")
    assert [field_patterns.is_pattern(key) for key in ("a.*", "a, b", "a.b")] == [True, True, False]


def test_the_card_shows_a_row_per_pattern_and_no_row_per_field(repo_copy):
    edit_source(repo_copy, by_patterns)
    corpus = registry.get(EXAMPLE)
    text = cards.render(corpus, {})
    ratings = text.split("\n`ratings`:\n\n| field |")[1].split("\n`raters`:")[0]
    assert ratings.split("\n\n")[1:3] == [
        INTRO,
        "| fields | type | description |\n|---|---|---|\n"
        "| `rater`, `score` | string or int32 | Who rated, or the score given (a test's text). |\n",
    ]
    assert "| `rater` |" not in ratings and "| `score` |" not in ratings
    raters = text.split("\n`raters`:\n\n| field |")[1].split("\n### Data Splits")[0]
    # Per config: the types of its own fields (raters has rater, no score); no "as in" for another row.
    assert raters.split("\n\n")[1:3] == [
        INTRO,
        "| fields | type | description |\n|---|---|---|\n"
        "| `rater`, `score` | string | Who rated, or the score given (a test's text). |\n"
        "| `*_rating` | int32 | Years the rater has rated sentences (their range: *years of rating* under Statistics). |\n",
    ]
    assert INTRO not in text.split("\n`sentences`:\n\n| field |")[1].split("\n`ratings`:")[0]


def test_croissant_says_each_pattern_once_in_its_record_set(repo_copy):
    edit_source(repo_copy, by_patterns)
    corpus = registry.get(EXAMPLE)
    source = cards.export_source(corpus, corpus.configs)
    assert source["config_patterns"]["raters"] == {
        "rater, score": "Who rated, or the score given (a test's text).",
        "*_rating": "Years the rater has rated sentences (their range: *years of rating* under Statistics).",
    }
    assert "rater" not in source["config_fields"]["raters"]
    assert croissant.patterns_text(source["config_patterns"]["ratings"]) == [
        INTRO, "`rater`, `score`: Who rated, or the score given (a test's text)."]
    assert croissant.patterns_text({}) == []
    fields = croissant.fields(corpus.features("raters"), source["config_fields"]["raters"], "files", "raters")
    assert [(field["name"], field.get("description")) for field in fields] == [
        ("rater", None), ("native_language", "The rater's native language. Class label stored as its index: 0 = de, 1 = en."),
        ("years_rating", None),
    ]


@pytest.mark.parametrize("change,message", [
    (lambda s: s["fields"].update({"nothing.*": "x"}), "fields: 'nothing.*' is not a field of any config"),
    # every field it matches has its own description: a pattern that describes nothing
    (lambda s: s["fields"].update({"rat*": "x"}), "fields: 'rat*' is not a field of any config"),
    (lambda s: s["fields"].update({"rat*r": "x", "*ter": "y"}) or s["fields"].pop("rater"),
     "field 'rater' matches more than one pattern in fields: 'rat*r', '*ter'"),
    (lambda s: s["fields"].update({"*_rating": "x"}) or s["fields"].pop("years_rating"), None),
])
def test_a_pattern_describes_at_least_one_field_and_a_field_one_pattern(repo_copy, change, message):
    edit_source(repo_copy, change)
    if message is None:
        assert "| `*_rating` | int32 | x |" in cards.render(registry.get(EXAMPLE), {})
        return
    with pytest.raises(CorporaError) as caught:
        cards.render(registry.get(EXAMPLE), {})
    assert message in str(caught.value)

