"""Cards: every statement about upstream cites its source, and the source holds it.

A card's sentence about the upstream files or an earlier loader cites the loader's FORMAT.md as
"FORMAT.md quirk `short-name`" (a row of its quirks table) or "FORMAT.md, *Section title*" (one of
its headings); a figure of the release is computed from the export, never written in the prose."""

import re

import pytest

from corpora import registry

QUIRK = re.compile(r"FORMAT\.md quirk `([a-z0-9-]+)`")
SECTION = re.compile(r"FORMAT\.md, \*([^*]+)\*")
# A citation by number alone breaks silently when the table is renumbered.
BY_NUMBER = re.compile(r"quirks? \d+")


def quirk_names(format_md: str) -> list[str]:
    """The short names of the quirks table, the second cell of each numbered row (with or without backticks)."""
    return re.findall(r"^\| \d+[a-z]? \| `?([a-z0-9-]+)`? \|", format_md, flags=re.MULTILINE)


def section_titles(format_md: str) -> list[str]:
    return re.findall(r"^#+ (?:\d+\. )?(.+?)\s*$", format_md, flags=re.MULTILINE)


@pytest.mark.parametrize("name", registry.names())
def test_every_citation_of_the_format_notes_resolves(name):
    corpus = registry.get(name)
    card_source = corpus.card_source.read_text(encoding="utf-8")
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
