"""Release notes beside each loader's VERSION (`RELEASE_NOTES`): every loader has the note of its
version, the card shows them with an entry to cite the version, `corpora card --check`, `corpora
validate` and `corpora push` refuse a version without a note, and `corpora diff` of two versions
prints the notes between them. On the example corpus (tests/example_collection) and on copies of
it whose loader is edited as a maintainer would: a new VERSION, with or without notes."""

import json
import shutil
from pathlib import Path

import pytest

from corpora import cards
from corpora import export_folder
from corpora import prepare
from corpora import registry
from corpora import releases
from fake_hub import FakeHub
from helpers import EXAMPLE
from helpers import EXAMPLE_COLLECTION
from helpers import corpora_here
from helpers import using_example
from helpers.hub import TOKEN
from helpers.hub import corpora_at

NAME = EXAMPLE
LOADER = f"loaders/{NAME}/{NAME}.py"
NOTES = {
    "1.0.0": "Initial release.",
    "1.1.0": "Scores are int32 | were int64.",  # a table's separator in a note is escaped in the card's table
    "1.2.0": "The raters config lists each rater's years of rating.",
}


def collection_with(tmp_path, version: str, notes: dict | None) -> Path:
    """A copy of the example collection whose loader is at `version` with these RELEASE_NOTES (None: none)."""
    root = Path(shutil.copytree(EXAMPLE_COLLECTION, tmp_path / "collection"))
    loader = root / LOADER
    text = loader.read_text()
    assert text.count('_VERSION = datasets.Version("1.0.0")') == 1
    assert text.count('    RELEASE_NOTES = {"1.0.0": "Initial release."}\n') == 1
    text = text.replace('_VERSION = datasets.Version("1.0.0")', f'_VERSION = datasets.Version("{version}")')
    stated = "" if notes is None else f"    RELEASE_NOTES = {notes!r}\n"
    loader.write_text(text.replace('    RELEASE_NOTES = {"1.0.0": "Initial release."}\n', stated))
    return root


@pytest.mark.parametrize("root", [None, EXAMPLE_COLLECTION], ids=["collection", "example"])
def test_every_loader_has_the_note_of_its_version(root, monkeypatch):
    if root is not None:
        monkeypatch.setenv("CORPORA_ROOT", str(root))
    for corpus in registry.all_corpora():
        assert releases.problem(corpus) is None, corpus.name
        assert corpus.version in releases.notes(corpus)


def test_the_card_shows_the_notes_and_how_to_cite_the_version(example_collection):
    text = registry.get(NAME).card_path.read_text()
    tail = text[text.index("### Citing this Version"):].splitlines()
    assert tail == [
        "### Citing this Version",
        "",
        "To cite this version of the dataset (loader version `1.0.0`), beside the paper above:",
        "",
        "```bibtex",
        "@misc{example_ratings_v1_0_0,",
        "    title = {Example Ratings (version 1.0.0)},",
        "    version = {1.0.0},",
        "    note = {Built by the corpora loader example\\_ratings version 1.0.0},",
        "}",
        "```",
        "",
        "### Release Notes",
        "",
        "What changed for users in each version of the loader (`RELEASE_NOTES` in",
        "`loaders/example_ratings/example_ratings.py`), newest first:",
        "",
        "| version | what changed |",
        "|---|---|",
        "| `1.0.0` | Initial release. |",
    ]
    # right after the paper's citation
    assert text.index("### Citation Information") < text.index("### Citing this Version")


def test_the_notes_newest_first_and_the_versions_between_two(tmp_path, monkeypatch):
    monkeypatch.setenv("CORPORA_ROOT", str(collection_with(tmp_path, "1.2.0", {"1.0.0": NOTES["1.0.0"], "1.2.0": NOTES["1.2.0"], "1.1.0": NOTES["1.1.0"]})))
    history = releases.notes(registry.get(NAME))
    assert list(history) == ["1.2.0", "1.1.0", "1.0.0"]
    card = cards.render(registry.get(NAME), prepare.dummy_examples(registry.get(NAME)))
    assert card[card.index("| version | what changed |"):].splitlines() == [
        "| version | what changed |",
        "|---|---|",
        f"| `1.2.0` | {NOTES['1.2.0']} |",
        "| `1.1.0` | Scores are int32 \\| were int64. |",
        f"| `1.0.0` | {NOTES['1.0.0']} |",
    ]
    assert releases.between(history, "1.0.0", "1.2.0") == {"1.1.0": NOTES["1.1.0"], "1.2.0": NOTES["1.2.0"]}
    assert releases.between(history, "1.2.0", "1.1.0") == {"1.2.0": NOTES["1.2.0"]}  # going back: what it undoes
    assert releases.between(history, "1.1.0", "1.3.0") == {"1.2.0": NOTES["1.2.0"], "1.3.0": None}


def test_the_history_keeps_only_the_notes_the_check_accepts(tmp_path, monkeypatch):
    # One rule: a note of two lines is refused by the check and left out of the history the card and diff show.
    notes = {"1.0.0": "Initial release.", "1.1.0": "Scores are int32.\nAnd more.", "1.2": "Not a version."}
    monkeypatch.setenv("CORPORA_ROOT", str(collection_with(tmp_path, "1.0.0", notes)))
    corpus = registry.get(NAME)
    assert releases.problem(corpus) == (
        f"{LOADER}: RELEASE_NOTES['1.1.0'] must be one line of text, not 'Scores are int32.\\nAnd more.'")
    assert releases.notes(corpus) == {"1.0.0": "Initial release."}


@pytest.mark.parametrize("notes, says", [
    (None, f"{LOADER}: the builder has no RELEASE_NOTES (version -> one line on what changed for users, beside "
           "VERSION); add RELEASE_NOTES = {\"1.1.0\": \"Initial release.\"}"),
    ({"1.0.0": "Initial release."}, f"{LOADER}: RELEASE_NOTES has no note for version 1.1.0 (the builder's VERSION): "
                                    "add one line on what changed for users"),
    ({"1.0.0": "Initial release.", "1.1": "Scores are int32."},
     f"{LOADER}: RELEASE_NOTES: '1.1' is not a version (MAJOR.MINOR.PATCH, as VERSION)"),
    ({"1.0.0": "Initial release.", "1.1.0": "Scores are int32.\nAnd more."},
     f"{LOADER}: RELEASE_NOTES['1.1.0'] must be one line of text, not 'Scores are int32.\\nAnd more.'"),
])
def test_card_check_and_validate_fail_without_the_note_of_the_version(tmp_path, monkeypatch, capsys, notes, says):
    monkeypatch.setenv("CORPORA_ROOT", str(collection_with(tmp_path, "1.1.0", notes)))
    assert corpora_here("card", NAME, "--check") == (1, "", f"corpora card: error: {says}\n")
    code, out, _ = corpora_here("validate", NAME)
    assert code == 1
    assert out.splitlines() == [*(f"{NAME}: dummy build {config}: ok" for config in ("sentences", "ratings", "raters")),
                                f"{NAME}: card: FAILED: {says}", f"{NAME}: export round trip: ok"]
    # Writing the card is refused too: a committed card shows its version's note.
    assert corpora_here("card", NAME) == (1, "", f"corpora card: error: {says}\n")


def push(root: Path, hub: FakeHub, home: Path, *args):
    """`corpora push NAME ARGS` of the collection at `root` to `hub`, in this process (helpers.hub.corpora_at)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CORPORA_ROOT", str(root))
        return corpora_at(hub.endpoint, "push", NAME, *args, home=home)


@pytest.mark.other_dependencies
def test_a_push_of_a_version_without_its_note_is_refused_before_anything(tmp_path):
    root = collection_with(tmp_path, "1.1.0", {"1.0.0": "Initial release."})
    hub = FakeHub(token=TOKEN)
    try:
        result = push(root, hub, tmp_path / "home", "--repo-id", "my-org/ratings", "--data-dir",
                      root / "release" / NAME, "--out", tmp_path / "out")
        assert (result.returncode, result.stdout) == (1, "")
        assert result.stderr == (
            f"corpora push: error: {NAME}: not pushing: {LOADER}: RELEASE_NOTES has no note for version 1.1.0 (the "
            "builder's VERSION): add one line on what changed for users\n")
        assert (hub.created, hub.commits, hub.repos) == ([], [], {})
        assert not (tmp_path / "out").exists()  # nothing was built either
    finally:
        hub.close()


@pytest.mark.other_dependencies
def test_the_card_of_a_push_cites_the_repository_and_the_tag(tmp_path):
    hub = FakeHub(token=TOKEN)
    try:
        result = push(EXAMPLE_COLLECTION, hub, tmp_path / "home", "--repo-id", "my-org/ratings", "--data-dir",
                      EXAMPLE_COLLECTION / "release" / NAME, "--out", tmp_path / "out")
        assert result.returncode == 0, result.stderr
        assert hub.repos["my-org/ratings"].tags == {"v1.0.0": hub.head("my-org/ratings")}
        card = hub.tree("my-org/ratings")["README.md"].decode()
    finally:
        hub.close()
    entry = card[card.index("@misc{example_ratings_v1_0_0"):].split("\n}\n")[0].splitlines()
    assert entry == [
        "@misc{example_ratings_v1_0_0,",
        "    title = {Example Ratings (version 1.0.0)},",
        "    version = {1.0.0},",
        "    publisher = {Hugging Face},",
        "    url = {https://huggingface.co/datasets/my-org/ratings/tree/v1.0.0},",  # the Hub's, not HF_ENDPOINT's
        "    note = {Hugging Face dataset my-org/ratings, tag v1.0.0; built by the corpora loader example\\_ratings "
        "version 1.0.0},",
    ]


def test_an_export_not_for_a_push_and_one_not_tagged_cite_no_tag(example_collection):
    corpus = registry.get(NAME)

    assert cards.version_citation(corpus, "Example Ratings", corpus.configs, None, None).splitlines()[3] == (
        "    note = {Built by the corpora loader example\\_ratings version 1.0.0},")
    # the dummy data, or some configs: pushed, but a push does not tag them
    for exported, notice in ((corpus.configs, "built from the dummy data"), (["ratings"], None)):
        entry = cards.version_citation(corpus, "Example Ratings", exported, "my-org/ratings", notice)
        assert entry.splitlines()[4:6] == [
            "    url = {https://huggingface.co/datasets/my-org/ratings},",
            "    note = {Hugging Face dataset my-org/ratings; built by the corpora loader example\\_ratings version 1.0.0},",
        ]


@pytest.fixture(scope="module")
def two_versions(tmp_path_factory):
    """The dummy export of the example at 1.0.0, and of a copy of its loader at 1.2.0 with NOTES."""
    tmp = tmp_path_factory.mktemp("versions")
    with using_example():
        export_folder.export(prepare.Request(registry.get(NAME), dummy=True), tmp / "old")
    root = collection_with(tmp, "1.2.0", NOTES)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CORPORA_ROOT", str(root))
        export_folder.export(prepare.Request(registry.get(NAME), dummy=True), tmp / "new")
    return root, tmp / "old" / NAME, tmp / "new" / NAME


@pytest.mark.other_dependencies
def test_diff_of_two_versions_prints_their_notes_above_the_rows(two_versions, monkeypatch, capsys):
    root, old, new = two_versions
    monkeypatch.setenv("CORPORA_ROOT", str(root))
    code, out, err = corpora_here("diff", old, new)
    assert (code, err) == (0, "")  # the same rows: only the loader's version changed
    assert out.splitlines()[:6] == [
        f"old: {old}",
        f"new: {new}",
        "loader version 1.0.0 -> 1.2.0, release notes:",
        f"  1.1.0: {NOTES['1.1.0']}",
        f"  1.2.0: {NOTES['1.2.0']}",
        "config sentences (rows matched by sentence_id):",
    ]
    code, out, _ = corpora_here("diff", old, new, "--format", "markdown")
    assert out.splitlines()[2:9] == [
        f"`{old}` → `{new}`: **identical**",
        "",
        "Loader version `1.0.0` → `1.2.0`, release notes:",
        "",
        f"- `1.1.0`: {NOTES['1.1.0']}",
        f"- `1.2.0`: {NOTES['1.2.0']}",
        "",
    ]
    code, out, _ = corpora_here("diff", new, old, "--format", "json")
    report = json.loads(out)
    assert (report["versions"], report["release_notes"]) == (["1.2.0", "1.0.0"], {
        "1.1.0": NOTES["1.1.0"], "1.2.0": NOTES["1.2.0"]})


@pytest.mark.other_dependencies
def test_diff_says_which_note_the_loader_here_does_not_have(two_versions, monkeypatch, capsys):
    _, old, new = two_versions
    monkeypatch.setenv("CORPORA_ROOT", str(EXAMPLE_COLLECTION))  # the loader at 1.0.0 knows no later note
    code, out, _ = corpora_here("diff", old, new)
    assert out.splitlines()[2:4] == [
        "loader version 1.0.0 -> 1.2.0, release notes:",
        f"  1.2.0: no release note in {LOADER}",
    ]
    code, out, _ = corpora_here("diff", old, old)  # one version: no notes
    assert out.splitlines()[2] == "config sentences (rows matched by sentence_id):"
