"""A `corpora push` that stopped (its commit's or tag's answer lost, its upload cut) is finished by
running the same command again, against the Hub of tests/fake_hub.py on 127.0.0.1."""

import pytest

from helpers.push import EXPORTED
from helpers.push import NAME
from helpers.push import PUSH_LINES
from helpers.push import REPO_ID
from helpers.push import error_line
from helpers.push import push_release

pytestmark = [pytest.mark.usefixtures("example_collection"), pytest.mark.other_dependencies]  # the subprocesses inherit its CORPORA_ROOT


@pytest.fixture
def push_here(hub, upstream_copy, tmp_path):
    """push_here(*options): `corpora push` of the release to REPO_ID in this process, always with the
    same --out, as a user runs the same command again: exit code, stdout, stderr."""

    def run(*options):
        result = push_release(hub, upstream_copy, tmp_path, *options)
        return result.returncode, result.stdout, result.stderr

    return run


LOST = {  # how the answer to a commit the Hub applied was lost, and what the push says of it
    "drop": "the server closed the connection without an answer",
    "502": "the server answered HTTP 502 Bad Gateway",
    "hang": "no answer within 1 s (CORPORA_HUB_TIMEOUT)",
}


@pytest.mark.parametrize("how", LOST)
def test_a_push_whose_commit_answer_was_lost_is_finished_by_running_it_again(hub, push_here, monkeypatch, how):
    monkeypatch.setenv("CORPORA_HUB_TIMEOUT", "1")  # "hang": the client gives up after 1 s
    found = hub.add_repo(REPO_ID).branches["main"]
    hub.lose["commit"] = how
    code, out, err = push_here()
    [commit] = hub.commits  # the Hub applied it
    said = PUSH_LINES["lost_answer"][1].replace(LOST["502"], LOST[how])
    assert (code, err) == (1, said.format(now=commit["sha"], sha=found) + "\n")
    assert hub.repos[REPO_ID].tags == {}
    code, out, err = push_here()
    assert (code, err) == (0, ""), err  # nothing of huggingface_hub's own ("No files have been modified ...")
    assert out == (f"found the files of this export already at commit {commit['sha']} (main): no "
                   "new commit; tagged it v1.0.0\n")
    assert len(hub.commits) == 1 and hub.repos[REPO_ID].tags == {"v1.0.0": commit["sha"]}
    assert hub.head(REPO_ID) == commit["sha"]


def test_a_push_stopped_before_its_commit_is_finished_by_running_it_again(hub, push_here, tmp_path):
    hub.fail.add("commit")  # into a new repository: it is created, the commit refused
    code, out, err = push_here()
    initial = hub.head(REPO_ID)
    assert (code, err) == (1, PUSH_LINES["commit"][1].format(sha=initial, out=tmp_path / "out") + "\n")
    assert hub.commits == []
    hub.fail.clear()
    code, out, err = push_here()
    [commit] = hub.commits
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == f"pushed: {hub.endpoint}/datasets/{REPO_ID}/commit/{commit['sha']} (tagged v1.0.0)"
    assert hub.repos[REPO_ID].tags == {"v1.0.0": commit["sha"]} and hub.repos[REPO_ID].commits[commit["sha"]].parent == initial


def test_a_push_whose_upload_was_cut_sends_only_what_is_missing_when_run_again(hub, push_here, tmp_path):
    initial = hub.add_repo(REPO_ID).branches["main"]
    hub.fail.add("cut_upload")
    code, out, err = push_here()
    # one line: huggingface_hub's words of its retry are not shown
    assert (code, err) == (1, PUSH_LINES["cut_upload"][1].format(sha=initial, out=tmp_path / "out") + "\n")
    stored = set(hub.lfs)
    uploads = [path for method, path, auth in hub.requests if method == "PUT" and path.startswith("/lfs-upload/")]
    # each stored one once, and the cut one twice (huggingface_hub's retry: its URL had expired)
    assert len(uploads) == len(stored) + 2 and len(set(uploads)) == len(stored) + 1
    assert 0 < len(stored) < 7 and hub.commits == []
    hub.requests.clear()
    code, out, err = push_here()
    assert (code, err) == (0, "")
    [commit] = hub.commits
    resent = [path.split("?")[0].removeprefix("/lfs-upload/") for method, path, auth in hub.requests if method == "PUT"]
    assert sorted(resent) == sorted(set(hub.lfs) - stored) and len(hub.lfs) == 7  # the 7 Parquet files
    assert out.splitlines()[-1] == f"pushed: {hub.endpoint}/datasets/{REPO_ID}/commit/{commit['sha']} (tagged v1.0.0)"
    assert hub.repos[REPO_ID].tags == {"v1.0.0": commit["sha"]}


@pytest.mark.parametrize("how", ["refused", "answer lost"])
def test_a_push_stopped_before_its_tag_is_finished_by_running_it_again(hub, push_here, how):
    hub.add_repo(REPO_ID)
    if how == "refused":
        hub.fail.add("tag")
    else:
        hub.lose["tag"] = "drop"
    code, out, err = push_here()
    [commit] = hub.commits
    if how == "answer lost":  # the push reads the tags: the Hub made it
        assert (code, err) == (0, ""), err
        assert out.splitlines()[-1] == (f"pushed: {hub.endpoint}/datasets/{REPO_ID}/commit/{commit['sha']} "
                                        "(tagged v1.0.0: the Hub made the tag, its answer was lost)")
    else:
        assert (code, err) == (1, PUSH_LINES["tag"][1].format(now=commit["sha"]) + "\n")
    hub.fail.clear()
    code, out, err = push_here()
    assert (code, err) == (0, ""), err
    if how == "refused":
        assert out == (f"found the files of this export already at commit {commit['sha']} (main): "
                       "no new commit; tagged it v1.0.0\n")
    else:  # the Hub made the tag
        assert out == (f"{NAME} v1.0.0 is already published in {REPO_ID} (commit {commit['sha']}) with these files: "
                       "nothing pushed\n")
    assert len(hub.commits) == 1 and hub.repos[REPO_ID].tags == {"v1.0.0": commit["sha"]}


def test_files_of_the_export_found_on_main_untagged_are_tagged_by_a_push_to_main_only(hub, push_here, release_export):
    # As a push whose answer was lost leaves them; the push asks for a new branch, then a pull request.
    found = hub.put(REPO_ID, release_export, "Upload example_ratings v1.0.0 built by corpora")
    code, out, err = push_here("--revision", "dev")
    assert (code, err) == (0, "")
    assert out == (f"found the files of this export already at commit {found} (main): made branch dev at it, no new "
                   "commit; not tagged v1.0.0: only a push to main is\n")
    code, out, err = push_here("--create-pr")
    assert (code, err) == (0, "")
    assert out == (f"found the files of this export already at commit {found} (main): no pull request opened; not "
                   "tagged v1.0.0: push again without --create-pr to tag it\n")
    code, out, err = push_here("--dry-run")
    assert (code, out) == (0, f"found the files of this export already at commit {found} (main): no new commit; "
                              "would tag it v1.0.0\n")
    repo = hub.repos[REPO_ID]
    assert hub.commits == [] and repo.branches == {"main": found, "dev": found} and repo.prs == {} and repo.tags == {}
    code, out, err = push_here()
    assert (code, out) == (0, f"found the files of this export already at commit {found} (main): no new commit; "
                              "tagged it v1.0.0\n")
    assert hub.commits == [] and repo.tags == {"v1.0.0": found}


def test_a_branch_push_whose_answer_was_lost_is_finished_by_running_it_again(hub, push_here):
    initial = hub.add_repo(REPO_ID).branches["main"]
    hub.lose["commit"] = "502"
    code, out, err = push_here("--revision", "dev")
    [commit] = hub.commits
    assert (code, err) == (1, PUSH_LINES["lost_answer"][1].format(now=commit["sha"], sha=initial) + "\n")
    code, out, err = push_here("--revision", "dev")
    assert (code, err) == (0, "")
    assert out == (f"found the files of this export already at commit {commit['sha']} (branch dev): "
                   "no new commit; not tagged v1.0.0: only a push to main is\n")
    repo = hub.repos[REPO_ID]
    assert len(hub.commits) == 1 and repo.branches == {"main": initial, "dev": commit["sha"]} and repo.tags == {}


def test_a_push_run_again_says_what_it_found_and_did_in_its_own_words(hub, upstream_copy, tmp_path):
    # A real process: what reaches the terminal (huggingface_hub logs through a handler of its own).
    hub.add_repo(REPO_ID)
    hub.lose["commit"] = "drop"
    first = push_release(hub, upstream_copy, tmp_path, process=True)
    [commit] = hub.commits
    assert error_line(first) == PUSH_LINES["lost_answer"][1].replace(LOST["502"], LOST["drop"]).format(
        now=commit["sha"], sha=hub.repos[REPO_ID].commits[commit["sha"]].parent)
    again = push_release(hub, upstream_copy, tmp_path, process=True)
    assert (again.returncode, again.stderr) == (0, "")
    assert again.stdout == (f"found the files of this export already at commit {commit['sha']} (main): no new commit; "
                            "tagged it v1.0.0\n")
    assert len(hub.commits) == 1 and hub.repos[REPO_ID].tags == {"v1.0.0": commit["sha"]}


def test_a_pull_request_push_whose_answer_was_lost_is_finished_by_running_it_again(hub, push_here, tmp_path):
    initial = hub.add_repo(REPO_ID).branches["main"]
    hub.lose["commit"] = "drop"
    code, out, err = push_here("--create-pr")
    [commit] = hub.commits
    repo = hub.repos[REPO_ID]
    assert repo.prs == {1: commit["sha"]}  # opened, and its answer lost: main is as it was
    assert (code, err) == (1, (
        f"corpora push: error: {NAME}: uploading to dataset repository {REPO_ID} failed: {LOST['drop']}; the "
        f"repository is unchanged at {initial}; the export is complete in {tmp_path / 'out' / NAME}: run the push "
        "again when fixed\n"))
    code, out, err = push_here("--create-pr")
    assert (code, err) == (0, "")
    assert out == (f"found the files of this export already at commit {commit['sha']} (pull request "
                   "refs/pr/1): no pull request opened; not tagged v1.0.0: push again without "
                   "--create-pr once it is merged\n")
    assert len(hub.commits) == 1 and repo.prs == {1: commit["sha"]}
    repo.branches["main"] = commit["sha"]  # merged
    code, out, err = push_here()
    assert (code, err) == (0, "")
    assert out == (f"found the files of this export already at commit {commit['sha']} (main): no "
                   "new commit; tagged it v1.0.0\n")
    assert len(hub.commits) == 1 and repo.tags == {"v1.0.0": commit["sha"]}



def test_a_closed_pull_request_is_not_a_release_found(hub, push_here, tmp_path):
    # An earlier --create-pr push's pull request, closed unmerged: its ref stays, its files are no release.
    hub.add_repo(REPO_ID)
    code, out, err = push_here("--create-pr")
    [first] = hub.commits
    repo = hub.repos[REPO_ID]
    repo.closed.add(1)
    code, out, err = push_here("--create-pr")
    assert (code, err) == (0, "")
    second = hub.commits[1]
    export = tmp_path / "out" / NAME  # uploaded whole again: the closed pull request's files count for nothing
    sizes = {path: (export / path).stat().st_size for path in EXPORTED}
    assert out == "".join([
        f"uploading 9 files, {sum(sizes.values()):,} bytes, from {export} to {hub.endpoint}/datasets/{REPO_ID} (public):\n",
        *[f"  {path} ({size:,} bytes)\n" for path, size in sizes.items()],
        f"opened a pull request: {hub.endpoint}/datasets/{REPO_ID}/discussions/2 (commit {second['sha']}); "
        "not tagged v1.0.0: push again without --create-pr once it is merged\n"])
    assert repo.prs == {1: first["sha"], 2: second["sha"]} and repo.tags == {}
    # The open one is found again: no third.
    code, out, err = push_here("--create-pr")
    assert (code, err, len(hub.commits)) == (0, "", 2)
    assert out == (f"found the files of this export already at commit {second['sha']} (pull request refs/pr/2): no pull "
                   "request opened; not tagged v1.0.0: push again without --create-pr once it is merged\n")
