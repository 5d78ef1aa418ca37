"""`corpora push` and `corpora diff hf://...` against a stateful Hub server on 127.0.0.1
(tests/fake_hub.py: only the Hub's HTTP edge is faked), through real huggingface_hub calls, of the
example corpus (tests/example_collection): its release files as the upstream copy. A Hub that never
answers: tests/test_push_time_limits.py; a push that stopped, run again: tests/test_push_run_again.py;
what they share: tests/helpers/push.py."""

import json
import shutil
from pathlib import Path

import pytest

from helpers import EXAMPLE_COLLECTION
from helpers import docs_table_rows
from helpers import write_docs_table
from helpers.hub import TOKEN
from helpers.push import EXPORTED
from helpers.push import NAME
from helpers.push import OWN_FILE
from helpers.push import PUSH_LINES
from helpers.push import REPO_ID
from helpers.push import corpora
from helpers.push import corpora_here
from helpers.push import error_line
from helpers.push import push_release

pytestmark = [pytest.mark.usefixtures("example_collection"), pytest.mark.other_dependencies]  # the subprocesses inherit its CORPORA_ROOT


def test_push_creates_the_repo_and_uploads_the_export(hub, upstream_copy, tmp_path):
    out = tmp_path / "out"
    result = corpora_here("push", NAME, "--repo-id", "my-org/ratings", "--private", "--data-dir", str(upstream_copy),
                     "--out", str(out), hub=hub, home=tmp_path / "home")
    assert result.returncode == 0, result.stderr
    assert TOKEN not in result.stdout + result.stderr
    assert len(hub.created) == 1
    created = hub.created[0]
    assert (created["organization"], created["name"], created["type"]) == ("my-org", "ratings", "dataset")
    # huggingface_hub 1.x and later send a visibility, earlier versions a flag
    assert created.get("visibility") == "private" or created.get("private") is True
    assert len(hub.commits) == 1
    commit = hub.commits[0]
    assert commit["summary"] == "Upload example_ratings v1.0.0 built by corpora"
    export = out / NAME
    local = {p.relative_to(export).as_posix(): p.read_bytes() for p in export.rglob("*") if p.is_file()}
    assert local.pop(".corpora-export.json").startswith(b'{\n  "tool": "corpora"')  # the tool's mark stays here
    assert commit["files"] == local
    assert b'ds = load_dataset("my-org/ratings", "sentences")' in local["README.md"]
    assert sorted(local) == EXPORTED
    # every call carried the token, from HF_TOKEN
    assert {auth for method, path, auth in hub.requests if path.startswith("/api/datasets") or path.startswith("/api/repos")} == {f"Bearer {TOKEN}"}


def test_dry_run_sends_nothing(hub, upstream_copy, tmp_path):
    result = corpora("push", NAME, "--repo-id", "my-org/ratings", "--dry-run", "--data-dir", str(upstream_copy),
                     "--out", str(tmp_path / "out"), hub=hub, home=tmp_path / "home")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    sizes = {path: (tmp_path / "out" / NAME / path).stat().st_size for path in EXPORTED}
    assert lines[-10] == (
        f"would upload 9 files, {sum(sizes.values()):,} bytes, from {tmp_path / 'out' / NAME} to "
        f"{hub.endpoint}/datasets/my-org/ratings (public):"  # the Hub in use, HF_ENDPOINT's
    )
    assert lines[-9:] == [f"  {path} ({size:,} bytes)" for path, size in sizes.items()]
    assert "Generating" not in result.stderr and "%|" not in result.stderr  # no progress bars in a pipe
    # The repository is read (what a push would delete there), nothing written: there is none.
    assert {method for method, path, auth in hub.requests if path.startswith("/api/")} == {"GET"}
    assert hub.created == [] and hub.commits == []


def test_push_refuses_data_that_is_not_the_release(hub, tmp_path):
    dummy = EXAMPLE_COLLECTION / "dummy_data" / NAME
    result = corpora_here("push", NAME, "--repo-id", "my-org/ratings", "--data-dir", str(dummy),
                     "--out", str(tmp_path / "out"), hub=hub, home=tmp_path / "home")
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1].startswith(
        "corpora push: error: example_ratings: 6 source file(s) differ from the recorded release: "
    )
    assert hub.created == [] and hub.commits == []


def test_push_refuses_an_export_whose_card_does_not_validate(hub, tmp_path, monkeypatch, upstream_copy):
    from huggingface_hub import constants

    from corpora import export_folder
    from corpora import push
    from corpora import registry
    from corpora.errors import CorporaError

    real_build = export_folder.export

    def build_then_break_the_card(request, out, **kwargs):  # as a hand edit or a template bug would
        rows = real_build(request, out, **kwargs)
        card = Path(out) / request.name / "README.md"
        text = card.read_text().replace("num_examples: 12", "num_examples: 13", 1)  # sentences/train
        card.write_text(text.replace("license: cc-by-4.0", "license: not-a-license", 1))
        return rows

    monkeypatch.setattr(export_folder, "export", build_then_break_the_card)
    monkeypatch.setattr(constants, "ENDPOINT", hub.endpoint)  # the repository is read before the build
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setenv("HF_TOKEN", TOKEN)  # a token is checked before anything is built
    with pytest.raises(CorporaError) as caught:
        push.push(registry.get(NAME), "my-org/ratings", data_dir=upstream_copy, out=tmp_path / "out")
    assert str(caught.value) == (
        f"{NAME}: not uploading {tmp_path / 'out' / NAME}: its card does not validate: "
        "license 'not-a-license' is not in the Hub's licenses vocabulary; "
        "license 'not-a-license', the loader says 'cc-by-4.0'; "
        "sentences/train: dataset_info says 13 rows, the files hold 12"
    )
    assert hub.created == [] and hub.commits == []  # read, nothing written


def test_a_dummy_export_card_validates(dummy_export):
    from corpora import registry
    from corpora import validate

    assert validate.export_problems(registry.get(NAME), dummy_export(NAME)) == []


# --- a push as a release: onto what the repository holds, one commit, tagged --------------------


def with_shards(croissant: bytes, shard: str, shards: list[str]) -> bytes:
    """An export's croissant.json with the FileObject of `shard` replaced by one per `shards`."""
    described = json.loads(croissant)
    at = next(i for i, item in enumerate(described["distribution"]) if item["@id"] == shard)
    item = described["distribution"].pop(at)
    described["distribution"][at:at] = [{**item, "@id": path, "name": path, "contentUrl": path} for path in shards]
    return json.dumps(described, indent=2).encode()


def test_a_push_deletes_only_stale_shards_of_its_configs_and_names_them(hub, upstream_copy, tmp_path, release_export):
    # An earlier push (by an earlier version: no v1.0.0 tag) whose ratings/train had two shards
    # (its croissant.json lists them), and files of the user's own beside them: one a Parquet file
    # in the folder of ratings, which no push made.
    stale = ["ratings/train-00000-of-00002.parquet", "ratings/train-00001-of-00002.parquet"]
    earlier = {path: content for path, content in release_export.items() if path != "ratings/train-00000-of-00001.parquet"}
    earlier.update({path: b"PAR1 an older shard PAR1" for path in stale})
    earlier["croissant.json"] = with_shards(earlier["croissant.json"], "ratings/train-00000-of-00001.parquet", stale)
    hub.put(REPO_ID, earlier, "Upload example_ratings v0.9.0 built by corpora")
    own = {OWN_FILE: b"PAR1 the user's own PAR1", "ratings/my_notes.txt": b"mine", "ratings/mine.parquet": b"PAR1 mine PAR1"}
    hub.put(REPO_ID, own, "my notes")
    naming = ["deleting 2 file(s) an earlier push made that this export does not have:", *(f"  {path}" for path in stale)]
    dry = push_release(hub, upstream_copy, tmp_path, "--dry-run", out="dry")
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.splitlines()[-3:] == [naming[0].replace("deleting", "would delete"), *naming[1:]]
    assert hub.commits == [] and {method for method, path, auth in hub.requests} <= {"GET", "HEAD"}  # read, nothing written
    result = push_release(hub, upstream_copy, tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[lines.index(naming[0]):lines.index(naming[0]) + 3] == naming
    [commit] = hub.commits
    assert commit["deleted"] == stale  # not the user's own files in the folder of ratings
    # huggingface_hub 0.25 sends every file; later versions only what changed: the new shard and
    # the croissant.json that lists it.
    assert sorted(commit["files"]) in (sorted(release_export), ["croissant.json", "ratings/train-00000-of-00001.parquet"])
    tree = hub.tree(REPO_ID)
    assert tree.pop(".gitattributes").startswith(b"*.parquet filter=lfs")
    assert tree == {**release_export, **own}
    assert hub.repos[REPO_ID].tags == {"v1.0.0": commit["sha"]}


def test_a_file_no_push_made_where_a_split_is_read_is_kept_by_refusing(hub, upstream_copy, tmp_path, release_export):
    # Not deleted (no push made it), and not left to be loaded as rows of ratings/train either.
    hub.put(REPO_ID, release_export, "Upload example_ratings v0.9.0 built by corpora")
    sha = hub.put(REPO_ID, {"ratings/train-mine.parquet": b"PAR1 mine PAR1"}, "my rows")
    result = push_release(hub, upstream_copy, tmp_path)
    assert error_line(result) == PUSH_LINES["read_as_split"][1]
    assert not (tmp_path / "out").exists()  # refused before any build
    assert hub.head(REPO_ID) == sha and hub.commits == []


def test_a_push_of_one_config_keeps_the_others_by_refusing(hub, upstream_copy, tmp_path):
    first = push_release(hub, upstream_copy, tmp_path)
    assert first.returncode == 0, first.stderr
    hub.put(REPO_ID, {OWN_FILE: b"PAR1 the user's own PAR1"}, "my notes")
    before = hub.head(REPO_ID), hub.tree(REPO_ID)
    result = push_release(hub, upstream_copy, tmp_path, "--config", "ratings", out="out2")
    assert error_line(result) == PUSH_LINES["other_configs"][1]
    assert not (tmp_path / "out2").exists()  # refused before any build
    assert (hub.head(REPO_ID), hub.tree(REPO_ID)) == before
    assert len(hub.commits) == 1


def test_a_repository_of_the_users_own_is_refused_before_any_build(hub, upstream_copy, tmp_path, release_export):
    own = {"README.md": b"# My ratings\n\nMy own dataset.\n", OWN_FILE: b"PAR1 the user's own PAR1",
           "ratings/mine.parquet": b"PAR1 also mine PAR1"}
    sha = hub.put(REPO_ID, own, "my dataset")
    result = push_release(hub, upstream_copy, tmp_path)
    assert error_line(result) == PUSH_LINES["not_ours"][1]
    assert not (tmp_path / "out").exists()
    assert hub.head(REPO_ID) == sha and hub.commits == []
    taken = push_release(hub, upstream_copy, tmp_path, "--take-over")
    assert taken.returncode == 0, taken.stderr
    assert hub.commits[0]["deleted"] == ["ratings/mine.parquet"]  # in a config pushed: not of the export
    assert ("deleting 1 Parquet file(s) in the folders of the configs pushed that this export does not have "
            "(--take-over):\n  ratings/mine.parquet\n") in taken.stdout  # named before the commit
    tree = hub.tree(REPO_ID)
    assert tree.pop(".gitattributes").startswith(b"*.parquet filter=lfs")
    assert tree == {**release_export, OWN_FILE: b"PAR1 the user's own PAR1"}


def test_another_corpus_s_repository_is_refused(hub, upstream_copy, tmp_path):
    card = b"---\nlicense: mit\n---\n\n<!-- Generated by `corpora build other_ratings` with this folder's files. -->\n"
    votes = {f"votes/{split}-00000-of-00001.parquet": b"PAR1 PAR1" for split in ("train", "test", "validation")}
    sha = hub.put(REPO_ID, {"README.md": card, **votes})
    result = push_release(hub, upstream_copy, tmp_path)
    assert error_line(result) == (  # the first three named, in order
        "corpora push: error: example_ratings: dataset repository my-org/ratings holds 4 file(s) (README.md, "
        "votes/test-00000-of-00001.parquet, votes/train-00000-of-00001.parquet, ...) and has a card corpora did not write for example_ratings: not pushing "
        "into it (check the repo id; --take-over replaces its card and the files in the folders of the configs "
        "pushed)")
    assert hub.head(REPO_ID) == sha and not (tmp_path / "out").exists()


def test_a_repository_with_only_the_hubs_files_and_an_empty_card_is_pushed_to(hub, upstream_copy, tmp_path):
    hub.put(REPO_ID, {"README.md": b"\n"}, "an empty card")
    result = push_release(hub, upstream_copy, tmp_path)
    assert result.returncode == 0, result.stderr
    assert sorted(hub.tree(REPO_ID)) == [".gitattributes", *EXPORTED]


@pytest.mark.parametrize("fault", ["commit", "cut_upload", "read_only_token"])
def test_a_push_that_fails_partway_leaves_the_repository_as_it_was(hub, upstream_copy, tmp_path, fault):
    sha = hub.put(REPO_ID, {"README.md": b""}, "an empty card")
    before = hub.tree(REPO_ID)
    if fault == "read_only_token":  # it reads the repository; its first write is refused
        hub.token = "hf_theOnlyTokenThatMayWrite"
    else:
        hub.fail.add(fault)
    result = push_release(hub, upstream_copy, tmp_path, process=True)  # what reaches the terminal
    if fault == "cut_upload":  # huggingface_hub retries the upload, once: then the URL has expired (its words of it: not shown)
        uploads = [path for method, path, auth in hub.requests if method == "PUT" and path.startswith("/lfs-upload/")]
        assert len(uploads) == len(set(uploads)) + 1 and len(set(uploads)) == len(hub.lfs) + 1
    assert error_line(result) == PUSH_LINES[fault][1].format(sha=sha, out=tmp_path / "out")
    assert hub.head(REPO_ID) == sha and hub.tree(REPO_ID) == before and hub.repos[REPO_ID].tags == {}


def test_a_commit_that_lands_first_is_kept_and_said(hub, upstream_copy, tmp_path):
    # The push commits on the commit it read (parentCommit): another one in between fails it,
    # rather than a commit made on files this push did not see.
    found = hub.put(REPO_ID, {"README.md": b""}, "an empty card")
    hub.fail.add("race")
    result = push_release(hub, upstream_copy, tmp_path)
    now = hub.head(REPO_ID)
    assert now != found and hub.repos[REPO_ID].commits[now].parent == found
    assert error_line(result) == PUSH_LINES["race"][1].format(sha=found, now=now, out=tmp_path / "out")
    assert sorted(hub.tree(REPO_ID)) == [".gitattributes", "README.md", "notes.md"] and hub.commits == []
    # Run again, as the line says: the other writer's file is named, with what to do.
    again = push_release(hub, upstream_copy, tmp_path, out="again")
    assert error_line(again) == PUSH_LINES["after_race"][1]
    assert hub.head(REPO_ID) == now and not (tmp_path / "again").exists()


def test_a_token_the_hub_refuses_is_one_line_before_any_build(hub, upstream_copy, tmp_path):
    hub.fail.add("auth")
    result = push_release(hub, upstream_copy, tmp_path)
    assert error_line(result) == PUSH_LINES["unauthorized"][1]
    assert not (tmp_path / "out").exists()
    # A dry run, which needs no token, builds and lists all the same, and says what it cannot know.
    dry = push_release(hub, upstream_copy, tmp_path, "--dry-run", out="dry")
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.splitlines()[-1] == (
        f"cannot read {REPO_ID} (the server answered HTTP 401 Unauthorized (Invalid credentials in Authorization "
        "header)): the files a push would delete there are not known")


def test_a_push_is_tagged_with_the_loader_version_and_a_tag_never_moves(hub, upstream_copy, tmp_path):
    first = push_release(hub, upstream_copy, tmp_path)
    assert first.returncode == 0, first.stderr
    [commit] = hub.commits
    assert hub.repos[REPO_ID].tags == {"v1.0.0": commit["sha"]} and hub.head(REPO_ID) == commit["sha"]
    assert first.stdout.splitlines()[-1] == f"pushed: {hub.endpoint}/datasets/{REPO_ID}/commit/{commit['sha']} (tagged v1.0.0)"
    again = push_release(hub, upstream_copy, tmp_path, out="out2")
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[-1] == (
        f"example_ratings v1.0.0 is already published in my-org/ratings (commit {commit['sha']}) with these "
        "files: nothing pushed"
    )
    assert len(hub.commits) == 1 and hub.repos[REPO_ID].tags == {"v1.0.0": commit["sha"]}
    dummy = EXAMPLE_COLLECTION / "dummy_data" / NAME  # another build, the same version
    other = corpora_here("push", NAME, "--repo-id", REPO_ID, "--data-dir", str(dummy), "--allow-modified-sources",
                         "--out", str(tmp_path / "out3"), hub=hub, home=tmp_path / "home")
    assert error_line(other) == PUSH_LINES["bump"][1].format(tag_sha=commit["sha"])
    assert len(hub.commits) == 1 and hub.repos[REPO_ID].tags == {"v1.0.0": commit["sha"]}


@pytest.mark.parametrize("revision", [(), ("--revision", "main"), ("--revision", "refs/heads/main")],
                         ids=["no revision", "main", "refs/heads/main"])
def test_a_push_to_main_is_tagged_however_main_is_named(hub, upstream_copy, tmp_path, revision):
    result = push_release(hub, upstream_copy, tmp_path, *revision)
    assert result.returncode == 0, result.stderr
    [commit] = hub.commits
    repo = hub.repos[REPO_ID]
    assert sorted(repo.branches) == ["main"] and repo.branches["main"] == commit["sha"]
    assert repo.tags == {"v1.0.0": commit["sha"]}
    assert result.stdout.splitlines()[-1] == f"pushed: {hub.endpoint}/datasets/{REPO_ID}/commit/{commit['sha']} (tagged v1.0.0)"


def test_a_second_creation_of_a_repository_is_answered_as_the_hub_does(hub):
    # Two pushes that both find no repository both create it: the Hub's 409 names the repository's
    # url, which huggingface_hub's create_repo(exist_ok=True) reads (a KeyError 'url' without it).
    import urllib.error
    import urllib.request

    body = json.dumps({"name": "ratings", "organization": "my-org", "type": "dataset"}).encode()
    answers = []
    for _ in range(2):
        request = urllib.request.Request(f"{hub.endpoint}/api/repos/create", body, method="POST",
                                         headers={"Authorization": f"Bearer {TOKEN}"})
        try:
            with urllib.request.urlopen(request) as answer:
                answers.append((answer.status, json.loads(answer.read())["url"]))
        except urllib.error.HTTPError as error:
            answers.append((error.code, json.loads(error.read())["url"]))
    assert answers == [(200, f"{hub.endpoint}/datasets/{REPO_ID}"), (409, f"{hub.endpoint}/datasets/{REPO_ID}")]


def test_a_push_of_modified_sources_is_not_tagged_and_the_release_is(hub, upstream_copy, tmp_path):
    dummy = EXAMPLE_COLLECTION / "dummy_data" / NAME  # not the files checksums.tsv records
    cut = corpora_here("push", NAME, "--repo-id", REPO_ID, "--data-dir", str(dummy), "--allow-modified-sources",
                       "--out", str(tmp_path / "out"), hub=hub, home=tmp_path / "home")
    assert cut.returncode == 0, cut.stderr
    [commit] = hub.commits
    assert hub.repos[REPO_ID].tags == {} and hub.head(REPO_ID) == commit["sha"]
    assert cut.stdout.splitlines()[-1] == (
        f"pushed: {hub.endpoint}/datasets/{REPO_ID}/commit/{commit['sha']}; not tagged v1.0.0: built from source "
        "files that differ from the recorded release (--allow-modified-sources); a push of the release tags it")
    release = push_release(hub, upstream_copy, tmp_path, out="out2")
    assert release.returncode == 0, release.stderr
    assert hub.repos[REPO_ID].tags == {"v1.0.0": hub.commits[-1]["sha"]} and len(hub.commits) == 2


def test_the_same_data_with_another_card_is_said_as_such(hub, upstream_copy, tmp_path, monkeypatch):
    first = push_release(hub, upstream_copy, tmp_path)
    assert first.returncode == 0, first.stderr
    [commit] = hub.commits
    # The same release, its card's text edited (as a newer corpora or a card fix would change it).
    collection = Path(shutil.copytree(EXAMPLE_COLLECTION, tmp_path / "collection"))
    source = collection / "dataset_cards" / f"{NAME}.yaml"
    source.write_text(source.read_text().replace("annotations: >-\n", "annotations: >-\n  Edited.\n", 1))
    monkeypatch.setenv("CORPORA_ROOT", str(collection))
    again = push_release(hub, upstream_copy, tmp_path, out="out2")
    assert error_line(again) == (
        f"corpora push: error: example_ratings: my-org/ratings has v1.0.0 already (commit {commit['sha']}), and "
        "this build has the same data but differs from it in 2 file(s) (README.md, croissant.json): a published "
        "version is never replaced: bump the version (VERSION in loaders/example_ratings/example_ratings.py) to "
        "publish it"
    )
    assert len(hub.commits) == 1 and hub.repos[REPO_ID].tags == {"v1.0.0": commit["sha"]}


def test_revision_commits_to_a_new_branch(hub, upstream_copy, tmp_path):
    result = push_release(hub, upstream_copy, tmp_path, "--revision", "dev")
    assert result.returncode == 0, result.stderr
    repo = hub.repos[REPO_ID]
    [commit] = hub.commits
    initial = repo.commits[commit["sha"]].parent
    assert repo.branches == {"main": initial, "dev": commit["sha"]}
    assert sorted(hub.tree(REPO_ID, "main")) == [".gitattributes"]
    assert sorted(hub.tree(REPO_ID, "dev")) == [".gitattributes", *EXPORTED]
    assert repo.tags == {}  # a release is what main holds
    assert result.stdout.splitlines()[-1] == (
        f"pushed: {hub.endpoint}/datasets/{REPO_ID}/commit/{commit['sha']} to branch dev; not tagged v1.0.0: "
        "only a push to main is"
    )
    # The branch is there now: the next push to it builds on its head.
    again = push_release(hub, upstream_copy, tmp_path, "--revision", "dev", out="out2")
    assert again.returncode == 0, again.stderr
    head = repo.branches["dev"]
    assert repo.branches["main"] == initial
    assert head == commit["sha"] and len(hub.commits) == 1  # it holds these files already: no second commit
    assert sorted(hub.tree(REPO_ID, "dev")) == [".gitattributes", *EXPORTED]


def test_create_pr_opens_a_pull_request_and_tags_nothing(hub, upstream_copy, tmp_path):
    result = push_release(hub, upstream_copy, tmp_path, "--create-pr")
    assert result.returncode == 0, result.stderr
    repo = hub.repos[REPO_ID]
    [commit] = hub.commits
    assert repo.prs == {1: commit["sha"]} and repo.tags == {}
    assert sorted(hub.tree(REPO_ID, "main")) == [".gitattributes"]
    assert sorted(hub.tree(REPO_ID, "refs/pr/1")) == [".gitattributes", *EXPORTED]
    assert result.stdout.splitlines()[-1] == (
        f"opened a pull request: {hub.endpoint}/datasets/{REPO_ID}/discussions/1 (commit {commit['sha']}); "
        "not tagged v1.0.0: push again without --create-pr once it is merged"
    )
    # Onto the open pull request, as `hf upload --revision refs/pr/1`: no branch is made for it.
    again = push_release(hub, upstream_copy, tmp_path, "--revision", "refs/pr/1", out="out2")
    assert again.returncode == 0, again.stderr
    assert sorted(repo.branches) == ["main"] and sorted(repo.prs) == [1]
    # It holds these files already: no second commit, and the push says so.
    assert repo.prs[1] == commit["sha"] and len(hub.commits) == 1
    assert again.stdout.splitlines()[-1] == (
        f"found the files of this export already at commit {commit['sha']} (pull request refs/pr/1): no new commit; "
        "not tagged v1.0.0: only a push to main is")


def test_a_push_of_some_configs_is_not_a_release(hub, upstream_copy, tmp_path):
    partial = push_release(hub, upstream_copy, tmp_path, "--config", "sentences")
    assert partial.returncode == 0, partial.stderr
    [commit] = hub.commits
    assert hub.repos[REPO_ID].tags == {}
    assert partial.stdout.splitlines()[-1] == (
        f"pushed: {hub.endpoint}/datasets/{REPO_ID}/commit/{commit['sha']}; not tagged v1.0.0: it leaves out "
        f"config(s) ratings, raters; `corpora push {NAME} --repo-id {REPO_ID}` (your other options, without "
        "--config) pushes and tags every config"
    )
    # The command it names: every config, then tagged.
    full = push_release(hub, upstream_copy, tmp_path, out="out2")
    assert full.returncode == 0, full.stderr
    assert hub.repos[REPO_ID].tags == {"v1.0.0": hub.head(REPO_ID)}
    assert sorted(hub.tree(REPO_ID)) == [".gitattributes", *EXPORTED]

def test_diff_of_a_revision_that_is_not_there_is_one_line(hub, tmp_path):
    hub.add_repo(REPO_ID)
    result = corpora_here("diff", f"hf://datasets/{REPO_ID}@v9.9.9", str(tmp_path), hub=hub, home=tmp_path / "home")
    assert result.returncode == 2
    assert result.stderr == (
        f"corpora diff: error: hf://datasets/{REPO_ID}@v9.9.9: cannot download it: the server answered HTTP 404 "
        "Not Found (Invalid rev id: v9.9.9)\n"
    )


def test_diff_against_a_published_version(hub, upstream_copy, tmp_path):
    assert push_release(hub, upstream_copy, tmp_path).returncode == 0
    dummy = tmp_path / "dummy"
    built = corpora_here("build", NAME, "--dummy", "--out", str(dummy), hub=hub, home=tmp_path / "home")
    assert built.returncode == 0, built.stderr
    published = f"hf://datasets/{REPO_ID}@v1.0.0"
    same = corpora_here("diff", published, str(tmp_path / "out" / NAME), hub=hub, home=tmp_path / "home2")
    assert same.returncode == 0, same.stderr
    assert same.stdout.splitlines()[-1] == "identical"
    changed = corpora_here("diff", published, str(dummy / NAME), "--format", "json", hub=hub, home=tmp_path / "home2")
    assert changed.returncode == 1, changed.stderr
    report = json.loads(changed.stdout)
    # The published side is the release (its rows), and the rows are matched by the loader's keys.
    assert (report["old"], report["corpus"], report["identical"]) == (published, NAME, False)
    train = {c["name"]: [(s["old_rows"], s["new_rows"]) for s in c["splits"] if s["name"] == "train"] for c in report["configs"]}
    assert train == {"sentences": [(12, 4)], "ratings": [(30, 10)], "raters": [(5, 3)]}
    assert {c["name"]: c["key"] for c in report["configs"]} == {
        "sentences": ["sentence_id"], "ratings": ["sentence_id", "rater"], "raters": ["rater"],
    }

# --- docs/bad_input.md: the "Push" table ---------------------------------------------------------

START, END = "<!-- push refusals and faults: checked by tests/test_push.py -->", "<!-- end of the push refusals and faults -->"


def docs_rows() -> list[str]:
    shown = {"sha": "SHA", "tag_sha": "SHA", "now": "NEW_SHA", "out": "OUT"}
    return [f"| {case} | `{line.format(**shown)}` | 1 |" for case, line in PUSH_LINES.values()]


def test_the_docs_show_every_push_refusal_as_the_user_sees_it():
    assert docs_table_rows(START, END) == docs_rows(), "run `python tests/test_push.py`"


if __name__ == "__main__":
    write_docs_table(START, END, ["case", "what the user sees", "exit"], docs_rows())
