"""What the card and croissant.json record of where the data comes from: the upstream commits the
source URLs pin, the loader's version (the builder's VERSION) and the corpora version."""

import importlib.metadata
import json
import re

import pytest

from corpora import cards
from corpora import export_folder
from corpora import prepare
from corpora import registry
from corpora import sources
from helpers import EXAMPLE
from helpers import REPO

pytestmark = pytest.mark.usefixtures("example_collection")

# The one statement of the package's version: pyproject.toml reads it from here (dynamic).
VERSION = re.search(r'^__version__ = "(.+)"$', (REPO / "src" / "corpora" / "__init__.py").read_text(), re.MULTILINE).group(1)
GITHUB = "0123456789abcdef0123456789abcdef01234567"
HUB = "fedcba9876543210fedcba9876543210fedcba98"


def test_the_corpora_version_is_the_installed_package_s():
    assert sources.provenance(registry.get(EXAMPLE), {})["corpora_version"] == importlib.metadata.version("corpora") == VERSION


@pytest.fixture
def pinned_urls(monkeypatch):
    """The example's source URLs moved to GitHub's LFS host (the sentences) and the Hub (the raters), each pinning a commit."""
    hosts = {"sentences": f"https://media.githubusercontent.com/media/owner/repo/{GITHUB}/",
             "ratings": f"https://media.githubusercontent.com/media/owner/repo/{GITHUB}/",
             "raters": f"https://huggingface.co/datasets/org/name/resolve/{HUB}/"}
    for config in registry.get(EXAMPLE).builder_class.BUILDER_CONFIGS:
        monkeypatch.setattr(config, "url_prefix", hosts[config.name])


def test_the_upstream_commits_are_read_from_the_pinned_urls(pinned_urls):
    assert sources.pinned_revisions(sources.urls(registry.get(EXAMPLE))) == {
        "https://github.com/owner/repo": GITHUB,
        "https://huggingface.co/datasets/org/name": HUB,
    }


def test_urls_that_pin_no_commit_name_none():
    assert sources.pinned_revisions(sources.urls(registry.get(EXAMPLE))) == {}


def description_lines(card: str) -> list[str]:
    section = card.split("## Dataset Description\n\n", 1)[1].split("\n\n", 1)[0]
    return [line for line in section.splitlines() if line.startswith(("- **Upstream", "- **Loader", "- **Built"))]


def test_an_export_records_its_provenance(dummy_export):
    folder = dummy_export(EXAMPLE)
    assert cards.read_metadata(folder / "README.md")["corpora"] == {
        "corpus": EXAMPLE, "loader_version": "1.0.0", "corpora_version": VERSION, "upstream": []}
    assert description_lines((folder / "README.md").read_text()) == [
        "- **Upstream commit:** none pinned by the source URLs (see [Source files](#source-files))",
        "- **Loader version:** `1.0.0` (the builder's `VERSION`)",
        f"- **Built with:** `corpora` {VERSION}",
    ]
    croissant = json.loads((folder / "croissant.json").read_text())
    assert croissant["version"] == "1.0.0"
    assert croissant["description"].endswith(
        f" Built by corpora {VERSION} with loader version 1.0.0 from source URLs that pin no upstream commit.")


def test_an_export_from_pinned_urls_names_their_commits(pinned_urls, tmp_path):
    export_folder.export(prepare.Request(registry.get(EXAMPLE), dummy=True), tmp_path)
    folder = tmp_path / EXAMPLE
    assert cards.read_metadata(folder / "README.md")["corpora"]["upstream"] == [
        {"repository": "https://github.com/owner/repo", "commit": GITHUB},
        {"repository": "https://huggingface.co/datasets/org/name", "commit": HUB},
    ]
    assert description_lines((folder / "README.md").read_text())[:2] == [
        f"- **Upstream commit:** `{GITHUB}` of <https://github.com/owner/repo>",
        f"- **Upstream commit:** `{HUB}` of <https://huggingface.co/datasets/org/name>",
    ]
    assert json.loads((folder / "croissant.json").read_text())["description"].endswith(
        f" Built by corpora {VERSION} with loader version 1.0.0 from https://github.com/owner/repo at commit {GITHUB}, "
        f"https://huggingface.co/datasets/org/name at commit {HUB}.")


def test_the_committed_card_names_the_loader_version_but_no_corpora_version():
    """The loader's card does not change with each corpora release; an export's says what built it."""
    card = registry.get(EXAMPLE).card_path.read_text()
    assert "corpora:" not in card.split("\n---\n", 1)[0]
    assert description_lines(card) == [
        "- **Upstream commit:** none pinned by the source URLs (see [Source files](#source-files))",
        "- **Loader version:** `1.0.0` (the builder's `VERSION`)",
    ]
