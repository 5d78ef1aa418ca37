"""`corpora push OUT/NAME` of a converted export, against the Hub of tests/fake_hub.py on 127.0.0.1: a release
as a corpus's push makes it (tagged, run again to finish, --revision, --create-pr), and --replace-script, which
removes the loading script from the repository it came from in the same commit, after a branch `script`."""

import hashlib

import pytest

from corpora.cards import header
from helpers.converted import LEGACY_SCRIPTS
from helpers.converted import convert_here
from helpers.hub import corpora_at

pytestmark = pytest.mark.other_dependencies  # the Hub client's versions

ORIGIN = "their-org/card_notes"  # where the script came from
NOTES = ["data/train.jsonl", "data/test.jsonl"]
SCRIPT_FILES = ["card_notes.py", "card_notes_fields.py"]
# The script repository: its script, helper module, README.md and data files, and a dummy data zip.
ORIGINAL = {path: (LEGACY_SCRIPTS / "card_notes" / path).read_bytes() for path in [*SCRIPT_FILES, "README.md", *NOTES]}
ORIGINAL["dummy/plain/1.1.0/dummy_data.zip"] = b"PK\x05\x06" + bytes(18)


@pytest.fixture
def origin(hub):
    """The script's repository in the Hub, and its commit."""
    return hub.put(ORIGIN, ORIGINAL, "Add the loading script")


@pytest.fixture
def converted(origin, tmp_path):
    """OUT/card_notes, converted from hf://datasets/their-org/card_notes at `origin`."""
    return convert_here("card_notes", tmp_path / "out", source=f"hf://datasets/{ORIGIN}@{origin}")


def push(hub, tmp_path, folder, *options):
    result = corpora_at(hub.endpoint, "push", folder, *options, home=tmp_path / "home")
    return result.returncode, result.stdout, result.stderr


def exported(folder) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*")
            if p.is_file() and p.name != ".corpora-export.json"}


def test_a_converted_export_is_pushed_as_a_release_and_never_again(hub, converted, tmp_path):
    code, out, err = push(hub, tmp_path, converted, "--repo-id", "my-org/notes")
    [commit] = hub.commits
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == f"pushed: {hub.endpoint}/datasets/my-org/notes/commit/{commit['sha']} (tagged v1.1.0)"
    assert hub.tree("my-org/notes") == {".gitattributes": hub.tree("my-org/notes")[".gitattributes"],
                                        **exported(converted)}
    assert hub.repos["my-org/notes"].tags == {"v1.1.0": commit["sha"]}
    code, out, err = push(hub, tmp_path, converted, "--repo-id", "my-org/notes")
    assert (code, err, out) == (0, "", f"card_notes v1.1.0 is already published in my-org/notes (commit "
                                       f"{commit['sha']}) with these files: nothing pushed\n")


def test_replace_script_removes_the_script_in_the_commit_that_adds_the_export(hub, origin, converted, tmp_path):
    code, out, err = push(hub, tmp_path, converted, "--repo-id", ORIGIN)
    assert (code, out) == (1, "")
    assert err == (
        "corpora push: error: card_notes: dataset repository their-org/card_notes holds 6 file(s) (README.md, "
        "card_notes.py, card_notes_fields.py, ...) and has a card corpora did not write for card_notes: not pushing "
        "into it (check the repo id; --take-over replaces its card and the files in the folders of the configs "
        "pushed)\n")
    code, out, err = push(hub, tmp_path, converted, "--repo-id", ORIGIN, "--replace-script")
    assert (code, err) == (0, ""), err
    repo = hub.repos[ORIGIN]
    head = repo.branches["main"]
    assert out.splitlines()[-4:] == [
        "deleting 2 file(s) of the loading script (--replace-script; they stay in the history and on branch script):",
        "  card_notes.py",
        "  card_notes_fields.py",
        f"pushed: {hub.endpoint}/datasets/{ORIGIN}/commit/{head} (tagged v1.1.0)",
    ]
    assert repo.commits[head].parent == origin and repo.branches == {"main": head, "script": origin}
    # Everything else of the repository stays: its data files and dummy data; its README.md is the merged card.
    kept = {path: content for path, content in ORIGINAL.items() if path not in [*SCRIPT_FILES, "README.md"]}
    assert hub.tree(ORIGIN) == {".gitattributes": hub.tree(ORIGIN)[".gitattributes"], **kept, **exported(converted)}
    assert {path: hub.tree(ORIGIN, "script")[path] for path in ORIGINAL} == ORIGINAL
    assert repo.tags == {"v1.1.0": head}


def test_replace_script_whose_answer_was_lost_is_finished_by_running_it_again(hub, origin, converted, tmp_path):
    hub.lose["commit"] = "502"
    code, out, err = push(hub, tmp_path, converted, "--repo-id", ORIGIN, "--replace-script")
    repo = hub.repos[ORIGIN]
    head = repo.branches["main"]
    assert (code, err) == (1, (
        f"corpora push: error: card_notes: uploading to dataset repository {ORIGIN} failed: the server answered HTTP "
        f"502 Bad Gateway; the repository is now at {head} (this push found it at {origin}) with the files of this "
        "export: the commit was made, its answer lost; run the push again to finish the release\n"))
    assert repo.tags == {} and repo.branches == {"main": head, "script": origin}
    code, out, err = push(hub, tmp_path, converted, "--repo-id", ORIGIN, "--replace-script")
    assert (code, err, out) == (0, "", f"found the files of this export already at commit {head} (main): no new "
                                       "commit; tagged it v1.1.0\n")
    assert repo.branches == {"main": head, "script": origin} and repo.tags == {"v1.1.0": head}
    assert not set(SCRIPT_FILES) & set(hub.tree(ORIGIN))


def test_replace_script_stopped_before_its_commit_is_finished_by_running_it_again(hub, origin, converted, tmp_path):
    hub.fail.add("commit")
    code, out, err = push(hub, tmp_path, converted, "--repo-id", ORIGIN, "--replace-script")
    repo = hub.repos[ORIGIN]
    assert code == 1 and repo.branches == {"main": origin, "script": origin}  # the branch first, then the commit
    hub.fail.clear()
    code, out, err = push(hub, tmp_path, converted, "--repo-id", ORIGIN, "--replace-script")
    head = repo.branches["main"]
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == f"pushed: {hub.endpoint}/datasets/{ORIGIN}/commit/{head} (tagged v1.1.0)"
    assert repo.commits[head].parent == origin and repo.branches == {"main": head, "script": origin}


def test_replace_script_only_where_the_script_came_from_and_as_it_was_converted(hub, origin, converted, tmp_path):
    code, out, err = push(hub, tmp_path, converted, "--repo-id", "my-org/notes", "--replace-script")
    assert (code, out, err) == (1, "", (
        "corpora push: error: card_notes: --replace-script removes the loading script only from the repository it "
        f"came from: this export was converted from hf://datasets/{ORIGIN}@{origin}, not from "
        "hf://datasets/my-org/notes\n"))
    local = convert_here("card_notes", tmp_path / "local")
    code, out, err = push(hub, tmp_path, local, "--repo-id", ORIGIN, "--replace-script")
    assert err == ("corpora push: error: card_notes: --replace-script removes the loading script only from the "
                   f"repository it came from: this export was converted from card_notes/, not from "
                   f"hf://datasets/{ORIGIN}\n")
    changed = hub.put(ORIGIN, {"card_notes.py": ORIGINAL["card_notes.py"] + b"# changed\n"}, "Fix the script")
    code, out, err = push(hub, tmp_path, converted, "--repo-id", ORIGIN, "--replace-script")
    now = hashlib.sha256(ORIGINAL["card_notes.py"] + b"# changed\n").hexdigest()
    then = hashlib.sha256(ORIGINAL["card_notes.py"]).hexdigest()
    assert (code, out, err) == (1, "", (
        f"corpora push: error: card_notes: not replacing the script: card_notes.py at {changed} of {ORIGIN} has "
        f"sha256 {now}, the export was converted from sha256 {then}: convert hf://datasets/{ORIGIN} again, then "
        "push\n"))
    assert hub.head(ORIGIN) == changed and "script" not in hub.repos[ORIGIN].branches


def test_a_converted_export_on_a_branch_and_in_a_pull_request_is_not_tagged(hub, converted, tmp_path):
    hub.add_repo("my-org/notes")
    code, out, err = push(hub, tmp_path, converted, "--repo-id", "my-org/notes", "--revision", "dev")
    repo = hub.repos["my-org/notes"]
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == (f"pushed: {hub.endpoint}/datasets/my-org/notes/commit/{repo.branches['dev']} to "
                                    "branch dev; not tagged v1.1.0: only a push to main is")
    code, out, err = push(hub, tmp_path, converted, "--repo-id", "my-org/notes", "--create-pr")
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == (f"opened a pull request: {hub.endpoint}/datasets/my-org/notes/discussions/1 "
                                    f"(commit {repo.prs[1]}); not tagged v1.1.0: push again without --create-pr once "
                                    "it is merged")
    assert repo.tags == {}


def test_an_export_of_dummy_data_is_pushed_untagged_and_build_options_are_refused(hub, tmp_path):
    folder = convert_here("card_bare", tmp_path / "out", dummy=True)
    code, out, err = push(hub, tmp_path, folder, "--repo-id", "my-org/bare")
    head = hub.head("my-org/bare")
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == (f"pushed: {hub.endpoint}/datasets/my-org/bare/commit/{head}; not tagged v0.2.0: "
                                    "built from dummy data, not the release; a push of an export of the release tags "
                                    "it")
    code, out, err = push(hub, tmp_path, folder, "--repo-id", "my-org/bare", "--config", "default", "--out", "x")
    assert (code, out, err) == (1, "", f"corpora push: error: push {folder}: --config, --out: an export folder is "
                                       "uploaded as it is, not built; convert it again with these options instead\n")


def test_replace_script_after_a_push_that_kept_the_script_removes_it_then(hub, origin, converted, tmp_path):
    code, out, err = push(hub, tmp_path, converted, "--repo-id", ORIGIN, "--take-over", "--revision", "parquet")
    repo = hub.repos[ORIGIN]
    assert (code, err) == (0, "") and set(SCRIPT_FILES) <= set(hub.tree(ORIGIN, "parquet"))
    code, out, err = push(hub, tmp_path, converted, "--repo-id", ORIGIN, "--replace-script", "--revision", "parquet")
    assert (code, err) == (0, "")
    [first, second] = hub.commits
    assert second["deleted"] == SCRIPT_FILES and repo.branches["parquet"] == second["sha"]
    assert repo.branches["script"] == first["sha"]  # the head the second push found: the script is there
    assert out.splitlines()[-1] == (f"pushed: {hub.endpoint}/datasets/{ORIGIN}/commit/{second['sha']} to branch "
                                    "parquet; not tagged v1.1.0: only a push to main is")


def test_a_dry_run_names_the_script_files_and_a_foreign_script_branch_is_refused(hub, origin, converted, tmp_path):
    code, out, err = push(hub, tmp_path, converted, "--repo-id", ORIGIN, "--replace-script", "--dry-run")
    assert (code, err) == (0, "")
    assert out.splitlines()[-3:] == [
        "would delete 2 file(s) of the loading script (--replace-script; they stay in the history and on branch "
        "script):", "  card_notes.py", "  card_notes_fields.py"]
    repo = hub.repos[ORIGIN]
    assert hub.commits == [] and repo.branches == {"main": origin}
    repo.branches["script"] = origin  # a branch of the maintainers' own, with another script
    other = hub.put(ORIGIN, {"card_notes.py": b"# another script\n"}, "Another script", revision="script")
    code, out, err = push(hub, tmp_path, converted, "--repo-id", ORIGIN, "--replace-script")
    recorded = hashlib.sha256(ORIGINAL["card_notes.py"]).hexdigest()
    assert (code, out, err) == (1, "", (
        f"corpora push: error: card_notes: {ORIGIN} has a branch script (at {other}) that does not hold the script "
        f"converted (card_notes.py, sha256 {recorded}): rename or delete that branch, then push again\n"))
    assert hub.commits == [] and repo.branches == {"main": origin, "script": other}
    code, out, err = push(hub, tmp_path, "example_ratings", "--repo-id", ORIGIN, "--replace-script")
    assert (code, err) == (1, "corpora push: error: push example_ratings: --replace-script is for an export "
                              "`corpora convert` wrote (OUT/NAME)\n")


def test_a_script_of_the_hub_converted_validated_and_published_in_place(hub, origin, tmp_path):
    source = f"hf://datasets/{ORIGIN}"
    code, out, err = corpora_at(hub.endpoint, "convert", source, "--trust-remote-code", "--out", tmp_path / "out",
                                home=tmp_path / "home")
    assert (code, err) == (0, ""), err
    folder = tmp_path / "out" / "card_notes"
    converted = header.read_metadata(folder / "README.md")["corpora"]["converted"]
    assert (converted["source"], list(converted["files"])) == (
        f"{source}@{origin}", ["card_notes.py", "card_notes_fields.py", "README.md"])
    lines = (folder / "README.md").read_text().splitlines()
    downloads = lines.index("| URL | sha256 |")
    assert lines[downloads + 2:downloads + 5] == [
        *(f"| `{path}` | `{hashlib.sha256(ORIGINAL[path]).hexdigest()}` |" for path in sorted(NOTES)), ""]
    code, out, err = corpora_at(hub.endpoint, "validate", folder, home=tmp_path / "home")
    assert (code, err) == (0, "")
    assert [line.split(": ")[1:] for line in out.splitlines()] == [
        [check, "ok"] for check in ("mark", "card", "files", "croissant.json", "parquet files", "reload plain",
                                    "reload detailed")]
    code, out, err = push(hub, tmp_path, folder, "--repo-id", ORIGIN, "--replace-script")
    head = hub.head(ORIGIN)
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == f"pushed: {hub.endpoint}/datasets/{ORIGIN}/commit/{head} (tagged v1.1.0)"
    assert sorted(hub.tree(ORIGIN)) == sorted([".gitattributes", *exported(folder), *NOTES,
                                               "dummy/plain/1.1.0/dummy_data.zip"])
    assert hub.repos[ORIGIN].branches == {"main": head, "script": origin}
