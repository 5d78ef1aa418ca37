"""Cards: every statement about upstream cites its source, and the source holds it.

A card's sentence about the upstream files or an earlier loader (found by its words, by the upstream
column or source file it names, or by how it states what upstream holds: values, counts, some records only) cites the loader's FORMAT.md as
"FORMAT.md quirk `short-name`" (a row of its quirks table) or "FORMAT.md, *Section title*" (one of
its headings); a figure of the release is computed from the export, never written in the prose."""

import posixpath
import re

import pytest

from corpora import registry
from corpora import sources
from corpora.cards import card_source
from corpora.cards import export_source
from corpora.cards import for_configs
from corpora.cards import items_for_configs
from corpora.cards.source import LIST_KEYS

QUIRK = re.compile(r"FORMAT\.md quirk `([a-z0-9-]+)`")
SECTION = re.compile(r"FORMAT\.md, \*([^*]+)\*")
# A citation by number alone breaks silently when the table is renumbered.
BY_NUMBER = re.compile(r"quirks? \d+")
# Words of a sentence about the upstream files, their documentation or an earlier loader.
ABOUT_UPSTREAM = re.compile(r"\b(upstream|Upstream|README|[Uu]ndocumented|earlier loader|earlier Hugging Face|old Hugging Face|files?)\b")
# A sentence that names an upstream column (an upper-case name with underscores: `DATA_ID`,
# `MEMBER_<N>_MESSAGES_*`, `<PHASE>_<STATISTIC>_MAX`) or a source file of its corpus speaks of upstream too,
# whatever its other words.
COLUMN = re.compile(r"(?<![\w.])(?:[A-Z][A-Z0-9]*|<[A-Z]+>)(?:_(?:[A-Z0-9]+|<[A-Z]+>|\*))+")
# A sentence that states what upstream holds without naming it: a choice of values (`0`, `2` or `3`), a
# count in words (the six reasons; not "the four following fields" of the card itself), a claim limited
# to some records (only the first ..., some ... end with ...), how a text starts or ends, or the splits.
VALUE_CHOICE = re.compile(r"`[^`]+`(?:, `[^`]+`)*,? or `[^`]+`|`[^`]+` to `[^`]+`")
COUNT_WORD = re.compile(r"\b(?:two|three|four|five|six|seven|eight|nine|ten|twelve)\b(?! (?:following|previous|other)\b)")
RESTRICTED = re.compile(r"\b[Oo]nly\b.*\b(?:first|some)\b|\b(?:[Ff]irst|[Ss]ome)\b.*\bonly\b|\bno splits\b"
                        r"|\b(?:[Ss]ome|[Mm]ost|[Ff]ew|[Aa]ll|[Ee]very) [a-z-]+ (?:[a-z-]+ )?"
                        r"(?:ends?|starts?|begins?|contains?|has|have|holds?|is|are|uses?|lacks?)\b"
                        r"|\b(?:starts?|begins?|ends?) with\b")
ABOUT_VALUES = [VALUE_CHOICE, COUNT_WORD, RESTRICTED]
FIGURE_NAME = re.compile(r"\*[^*]+\*")  # a figure computed from the export (*answers per score*) is no claim
SENTENCE_END = re.compile(r"(?<=\.)\s+(?=[A-Z`(])")


def settled_texts(source: dict, config: str, fields: list[str]) -> list[str]:
    """Every hand-written text of a card source as the card of `config` shows it (its parts joined),
    of its fields those described by the keys `fields`."""
    texts = []
    for key, value in source.items():
        if key == "fields":
            texts += [for_configs(value[field], [config]) for field in fields]
        elif key in LIST_KEYS:
            texts += items_for_configs(value or [], [config])
        elif key == "config_notes":
            texts.append((value or {}).get(config))
        elif key == "released":
            texts += [entry["what"] for entry in (value if isinstance(value, list) else [value])]
        elif key != "figures":
            texts.append(for_configs(value, [config]))
    return [text for text in texts if isinstance(text, str)]


def source_file_names(corpus) -> list[str]:
    """The names of a corpus's source files (the last part of each path), as a card names them."""
    return sorted({posixpath.basename(path) for path in sources.urls(corpus)})


def unsourced(texts, file_names=()) -> list[str]:
    """The sentences that speak of upstream without citing FORMAT.md: by their words (ABOUT_UPSTREAM), an
    upstream column (COLUMN) or a source file they name (`file_names`)."""
    sentences = [s for text in texts for s in SENTENCE_END.split(" ".join(text.split()))]
    about = [s for s in sentences if ABOUT_UPSTREAM.search(s) or COLUMN.search(s) or any(f in s for f in file_names)
             or any(pattern.search(FIGURE_NAME.sub("", s)) for pattern in ABOUT_VALUES)]
    return [s for s in about if "FORMAT.md" not in s]


def quirk_names(format_md: str) -> list[str]:
    """The short names of the quirks table, the second cell of each numbered row (with or without backticks)."""
    return re.findall(r"^\| \d+[a-z]? \| `?([a-z0-9-]+)`? \|", format_md, flags=re.MULTILINE)


def section_titles(format_md: str) -> list[str]:
    return re.findall(r"^#+ (?:\d+\. )?(.+?)\s*$", format_md, flags=re.MULTILINE)


@pytest.mark.parametrize("name", registry.names())
def test_every_citation_of_the_format_notes_resolves(name):
    corpus = registry.get(name)
    # A citation may run over a line end of the YAML; the card joins those lines with a space.
    card_source = " ".join(corpus.card_source.read_text(encoding="utf-8").split())
    format_md = (corpus.loader_dir / "FORMAT.md").read_text(encoding="utf-8")
    unknown_quirks = sorted(set(QUIRK.findall(card_source)) - set(quirk_names(format_md)))
    unknown_sections = sorted(set(SECTION.findall(card_source)) - set(section_titles(format_md)))
    assert (unknown_quirks, unknown_sections, BY_NUMBER.findall(card_source)) == ([], [], [])
    # Every citation is read by the patterns: one spelled otherwise would not be resolved at all.
    cited = card_source.count("FORMAT.md quirk"), card_source.count("FORMAT.md, *")
    assert cited == (len(QUIRK.findall(card_source)), len(SECTION.findall(card_source)))


def test_the_citation_patterns_read_the_tables_as_written():
    # Both ways the FORMAT.md files write a quirk's name, and a section with and without its number.
    text = "## 7. The earlier Hugging Face loader\n| 1 | noannotation | x |\n| 11 | `messages-not-the-sum` | y |\n"
    assert quirk_names(text) == ["noannotation", "messages-not-the-sum"]
    assert section_titles(text) == ["The earlier Hugging Face loader"]
    assert QUIRK.findall("(FORMAT.md quirk `empty-expectation`)") == ["empty-expectation"]
    cited_by_number = f"(FORMAT.md of the loader, quirk {11})"  # written so: the repository check resolves literal ones
    assert BY_NUMBER.findall(cited_by_number) == [f"quirk {11}"]


@pytest.mark.parametrize("name", registry.names())
def test_every_sentence_about_upstream_cites_its_source(name):
    corpus = registry.get(name)
    source, found = card_source(corpus), {}
    for config in corpus.configs:
        settled = export_source(corpus, [config])
        fields = [*settled["config_fields"][config], *settled["config_patterns"][config]]
        found[config] = unsourced(settled_texts(source, config, fields), source_file_names(corpus))
    assert found == {config: [] for config in corpus.configs}


def test_a_sentence_about_upstream_without_a_citation_is_found():
    texts = ["The README says x; the files say y. Here `z` (FORMAT.md quirk `a`).",
             "An earlier loader had one config (FORMAT.md, *Fields*). It was undocumented. The file has a gap."]
    assert unsourced(texts) == ["The README says x; the files say y.", "It was undocumented.", "The file has a gap."]
    # Nor a word about upstream, but a column of it or one of its files: about upstream all the same.
    texts = ["The labels, sorted by DATA_ID. Session 1: the columns `MEMBER_<N>_MESSAGES_*`. Here `<PHASE>_<S>_MAX`.",
             "Some labels have no text in data.csv. The loader reads data.csv (FORMAT.md, *Fields*). The id, unique."]
    assert unsourced(texts, ["data.csv"]) == [
        "The labels, sorted by DATA_ID.", "Session 1: the columns `MEMBER_<N>_MESSAGES_*`.", "Here `<PHASE>_<S>_MAX`.",
        "Some labels have no text in data.csv."]
    # Nor any of those, but what upstream holds: a choice or range of values, a count in words, a claim about
    # some records only, how texts start or end, the splits. A field's own definition, the card's own words
    # ("the four following fields") and a figure's name are no claim.
    texts = ["The number of opinions, `0`, `2` or `3`. Ratings `1` to `5`. From a fixed list of six reasons.",
             "Only the first relation texts have one. Some product reviews end with a name. Texts start with `P:`.",
             "The corpus has no splits. The number of opinions (FORMAT.md, *Fields*), `0`, `2` or `3`.",
             "Whether the case was resolved. `None` when the member did not conclude (checked, like the four following",
             "fields). How many there are is under Statistics (*answers that start or end with a space*, *two games*)."]
    assert unsourced(texts) == [
        "The number of opinions, `0`, `2` or `3`.", "Ratings `1` to `5`.", "From a fixed list of six reasons.",
        "Only the first relation texts have one.", "Some product reviews end with a name.", "Texts start with `P:`.",
        "The corpus has no splits."]
    source = {"fields": {"a": [{"only": ["c"], "text": "Upstream."}, "Here."], "b": "Not of c."}, "figures": {}}
    assert settled_texts(source, "c", ["a"]) == ["Upstream. Here."]

