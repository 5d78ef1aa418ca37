"""Card work, in one package: the loader's and an export's README.md (readme), the hand-written
card source dataset_cards/NAME.yaml (source), what the card's sections show (sections), YAML read one way
(header), the statistics and figures a card shows (figures), croissant.json (croissant) and what the Hub's
reviewers ask of a card (review). The toolkit imports those modules; here, the package's face for other code."""

from corpora.cards.header import read_metadata
from corpora.cards.readme import PLACEHOLDER
from corpora.cards.readme import built_from
from corpora.cards.readme import card_byte_sizes
from corpora.cards.readme import check
from corpora.cards.readme import committed_infos
from corpora.cards.readme import field_tables
from corpora.cards.readme import not_the_release
from corpora.cards.readme import render
from corpora.cards.readme import version_citation
from corpora.cards.readme import write
from corpora.cards.readme import write_export_card
from corpora.cards.readme import write_sizes_from_export
from corpora.cards.sections import SHOWN_CHARACTERS
from corpora.cards.sections import cut
from corpora.cards.sections import example_text
from corpora.cards.sections import field_rows
from corpora.cards.sections import has_class_labels
from corpora.cards.sections import size_category
from corpora.cards.sections import source_files
from corpora.cards.sections import with_label_names
from corpora.cards.sections import wrap
from corpora.cards.source import OPTIONAL_KEYS
from corpora.cards.source import PROSE_KEYS
from corpora.cards.source import CardError
from corpora.cards.source import card_source
from corpora.cards.source import export_source
from corpora.cards.source import for_configs
from corpora.cards.source import items_for_configs
from corpora.cards.source import license_value
from corpora.cards.source import loader_facts
from corpora.cards.source import released_for
from corpora.cards.source import scope
from corpora.cards.source import vocabularies

__all__ = [
    "CardError",
    "OPTIONAL_KEYS",
    "PLACEHOLDER",
    "PROSE_KEYS",
    "SHOWN_CHARACTERS",
    "built_from",
    "card_byte_sizes",
    "card_source",
    "check",
    "committed_infos",
    "cut",
    "example_text",
    "export_source",
    "field_rows",
    "field_tables",
    "has_class_labels",
    "for_configs",
    "items_for_configs",
    "license_value",
    "loader_facts",
    "not_the_release",
    "read_metadata",
    "released_for",
    "render",
    "scope",
    "size_category",
    "source_files",
    "version_citation",
    "vocabularies",
    "with_label_names",
    "wrap",
    "write",
    "write_export_card",
    "write_sizes_from_export",
]
