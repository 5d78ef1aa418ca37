"""What the files of `corpora push` (tests/test_push*.py) share: the Hub of tests/fake_hub.py on
127.0.0.1 and the example's release (fixtures, registered in tests/conftest.py), the repository a
push goes to, how a push runs, and the lines it says (PUSH_LINES, the table of docs/bad_input.md)."""

import pytest

from fake_hub import FakeHub
from helpers import CORPORA
from helpers import EXAMPLE
from helpers import EXAMPLE_RELEASE
from helpers import run_process
from helpers import using_example
from helpers.hub import TOKEN
from helpers.hub import corpora_at
from helpers.hub import hub_environment

NAME = EXAMPLE


@pytest.fixture
def hub():
    server = FakeHub(token=TOKEN)
    yield server
    server.close()


@pytest.fixture
def upstream_copy(example_release):
    """The example's release, the files its checksums.tsv records: no --allow-modified-sources."""
    return example_release


# What the export of the example holds: its card and Croissant file, and one Parquet file per split
# of each config (raters: train; ratings and sentences: train, validation, test).
EXPORTED = [
    "README.md",
    "croissant.json",
    "raters/train-00000-of-00001.parquet",
    *(f"ratings/{split}-00000-of-00001.parquet" for split in ("test", "train", "validation")),
    *(f"sentences/{split}-00000-of-00001.parquet" for split in ("test", "train", "validation")),
]


def corpora(*args, hub, home):
    """`corpora ARGS` as a process of its own, with the Hub at `hub`."""
    return run_process([CORPORA, *args], env=hub_environment(hub.endpoint, home))


REPO_ID = "my-org/ratings"


@pytest.fixture(scope="module")
def release_export(tmp_path_factory):
    """The files a push of the example's release to REPO_ID uploads (the export is byte-identical
    from build to build): to lay out an earlier push in the server."""
    from corpora import export_folder
    from corpora import prepare
    from corpora import registry

    out = tmp_path_factory.mktemp("release-export")
    with using_example():
        export_folder.export(prepare.Request(registry.get(NAME), data_dir=EXAMPLE_RELEASE), out, repo_id=REPO_ID)
    folder = out / NAME
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
            and p.name != ".corpora-export.json"}


def push_release(hub, upstream_copy, tmp_path, *options, out="out", process=False):
    """`corpora push` of the release to REPO_ID: in this process, or a real one (`process`: where what
    reaches the terminal is tested, huggingface_hub's log lines among it)."""
    run = corpora if process else corpora_here
    return run("push", NAME, "--repo-id", REPO_ID, "--data-dir", str(upstream_copy), "--out", str(tmp_path / out),
               *options, hub=hub, home=tmp_path / "home")


def corpora_here(*args, hub, home):
    """`corpora(...)`, in this process: quicker (no start, no imports), and the same lines (huggingface_hub's
    log lines and warnings among them, as helpers.corpora_here captures them)."""
    return corpora_at(hub.endpoint, *args, home=home)


def error_line(result) -> str:
    assert result.returncode == 1, result.stdout
    assert len(result.stderr.splitlines()) == 1, result.stderr
    return result.stderr.rstrip("\n")


OWN_FILE = "data/my_own_notes.parquet"

# The lines these tests see, as docs/bad_input.md shows them ({sha}: the commit the push found,
# {tag_sha}: the tagged one, {now}: the branch's head since, {out}: --out); `python tests/test_push.py`
# rewrites that table.
PUSH_LINES = {
    "not_ours": (
        "a repository whose card corpora did not write for NAME (a dataset of your own, another corpus's), "
        "without `--take-over`",
        "corpora push: error: example_ratings: dataset repository my-org/ratings holds 3 file(s) (README.md, "
        "data/my_own_notes.parquet, ratings/mine.parquet) and has a card corpora did not write for example_ratings: "
        "not pushing into it (check the repo id; --take-over replaces its card and the files in the folders of the "
        "configs pushed)",
    ),
    "other_configs": (
        "`--config ratings` into a repository that holds the other configs",
        "corpora push: error: example_ratings: dataset repository my-org/ratings also holds config(s) raters, "
        "sentences, which a push of --config ratings would leave out of its card and croissant.json: push every "
        "config with `corpora push example_ratings --repo-id my-org/ratings` (your other options, without --config)",
    ),
    "read_as_split": (
        "a file no push made where the card reads a split (`ratings/train-mine.parquet`)",
        "corpora push: error: example_ratings: dataset repository my-org/ratings holds 1 file(s) no push of corpora "
        "made where the card reads a split (CONFIG/SPLIT-*), which the dataset would load as its rows: "
        "ratings/train-mine.parquet; move them out of the config's folder (or delete them) and push again",
    ),
    "unauthorized": (
        "a token the Hub refuses (HTTP 401)",
        "corpora push: error: example_ratings: reading dataset repository my-org/ratings failed: the server "
        "answered HTTP 401 Unauthorized (Invalid credentials in Authorization header); nothing was built or "
        "uploaded",
    ),
    "commit": (
        "HTTP 500 on the commit",
        "corpora push: error: example_ratings: uploading to dataset repository my-org/ratings failed: the server "
        "answered HTTP 500 Internal Server Error (Internal Error - We're working hard to fix this as soon as "
        "possible!); the repository is unchanged at {sha}; the export is complete in {out}/example_ratings: run "
        "the push again when fixed",
    ),
    "cut_upload": (
        "an upload cut off half-way (huggingface_hub retries it; its URL has expired)",
        "corpora push: error: example_ratings: uploading to dataset repository my-org/ratings failed: the server "
        "answered HTTP 403 Forbidden (Request has expired); the repository is unchanged at {sha}; the export is "
        "complete in {out}/example_ratings: run the push again when fixed",
    ),
    "race": (
        "another commit on the branch between the push's read and its commit",
        "corpora push: error: example_ratings: uploading to dataset repository my-org/ratings failed: the server "
        "answered HTTP 412 Precondition Failed (A commit has happened since {sha}: main is at {now}); the "
        "repository is now at {now} (this push found it at {sha}); the export is complete in {out}/example_ratings: "
        "run the push again when fixed",
    ),
    "after_race": (
        "the same push run again after that, onto the other writer's file (`notes.md`) and an empty card",
        "corpora push: error: example_ratings: dataset repository my-org/ratings holds 1 file(s) (notes.md) and has "
        "no card: not pushing into it (check the repo id; --take-over replaces its card and the files in the "
        "folders of the configs pushed)",
    ),
    "lost_answer": (
        "the commit made by the Hub, its answer lost on the way back (here a proxy's HTTP 502; or the connection "
        "dropped, or no answer within CORPORA_HUB_TIMEOUT): run again, the push tags that commit",
        "corpora push: error: example_ratings: uploading to dataset repository my-org/ratings failed: the server "
        "answered HTTP 502 Bad Gateway; the repository is now at {now} (this push found it at {sha}) with the files "
        "of this export: the commit was made, its answer lost; run the push again to finish the release",
    ),
    "tag": (
        "HTTP 500 on the tag, after the commit: run again, the push tags that commit",
        "corpora push: error: example_ratings: pushed {now} to my-org/ratings, but tagging it v1.0.0 failed: the "
        "server answered HTTP 500 Internal Server Error (Internal Error - We're working hard to fix this as soon as "
        "possible!); run the push again to tag it",
    ),
    "read_only_token": (
        "a token that may read the repository but not write to it (HTTP 401 on the first write)",
        "corpora push: error: example_ratings: uploading to dataset repository my-org/ratings failed: the server "
        "answered HTTP 401 Unauthorized (Invalid credentials in Authorization header); the repository is unchanged "
        "at {sha}; the export is complete in {out}/example_ratings: run the push again when fixed",
    ),
    "bump": (
        "another build of a version that is tagged already",
        "corpora push: error: example_ratings: my-org/ratings has v1.0.0 already (commit {tag_sha}), and this "
        "build differs from it in 9 file(s) (README.md, croissant.json, raters/train-00000-of-00001.parquet, "
        "...): a published version is never replaced: bump the version (VERSION in "
        "loaders/example_ratings/example_ratings.py) to publish it",
    ),
}

