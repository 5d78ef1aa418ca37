"""`corpora push OUT/NAME`: a converted export published as a release, with every guarantee of a corpus's push
(corpora.push.publish). With `--replace-script`, pushed to the repository the script came from, the same commit
removes the script, its helper modules and dataset_infos.json, after a branch `script` is made at the head."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from huggingface_hub import HfApi
from huggingface_hub import get_token

from corpora import exports
from corpora import hub_client
from corpora import push
from corpora import validate
from corpora.convert import card
from corpora.convert import export_checks
from corpora.errors import CorporaError
from corpora.errors import describe_failure
from corpora.hub_repo import Remote
from corpora.hub_repo import Unreadable
from corpora.hub_repo import read_repo
from corpora.hub_repo import same_file

SCRIPT_BRANCH = "script"


def release_of(folder: Path, converted: dict, mark: exports.Mark, replace_script: bool) -> push.Release:
    """The release a converted export is: tagged with the script's VERSION, every config it converted."""
    name = mark.corpus
    splits = {config: tuple(_splits(folder, config)) for config in mark.configs}
    removed = tuple(path for path in converted.get("files") or {}
                    if path.endswith(".py") or path == "dataset_infos.json") if replace_script else ()
    return push.Release(name, f"v{converted['version']}", tuple(mark.configs), splits, card.marker(name),
                        f"VERSION in {converted['script']}, then convert again", f"corpora push {folder}", removed)


def _splits(folder: Path, config: str) -> list[str]:
    names = (re.fullmatch(r"(.+)-\d{5}-of-\d{5}\.parquet", p.name) for p in sorted((folder / config).glob("*.parquet")))
    return list(dict.fromkeys(match.group(1) for match in names if match))


def push_converted(folder, repo_id: str, private: bool = False, dry_run: bool = False, revision: str | None = None,
                   create_pr: bool = False, take_over: bool = False, replace_script: bool = False) -> list[str]:
    """Publish the converted export in `folder` to `repo_id` (corpora.push.publish); returns the uploaded paths."""
    folder = Path(folder)
    mark = exports.read_mark(folder)
    converted = validate.converted_card(folder) if mark is not None else None
    if converted is None:
        raise CorporaError(f"{folder}: not an export that `corpora convert` wrote (no {exports.MARK} and card of one)")
    name = mark.corpus
    failed = [f"{check}: {problem}" for check, problem in export_checks.checks(folder, mark)
              if problem is not None and not isinstance(problem, validate.Warned)]
    if failed:  # the Hub would show a wrong or broken page
        raise CorporaError(f"{name}: not uploading {folder}: it does not validate: {'; '.join(failed)}")
    source = converted.get("source", "")
    if replace_script and not re.fullmatch(rf"hf://datasets/{re.escape(repo_id)}(@.+)?", source):
        raise CorporaError(
            f"{name}: --replace-script removes the loading script only from the repository it came from: this "
            f"export was converted from {source}, not from hf://datasets/{repo_id}")
    revision = revision.removeprefix("refs/heads/") if revision is not None else None
    if not dry_run and not get_token():
        raise CorporaError("no Hugging Face token: log in once with `hf auth login` (or `huggingface-cli login`), "
                           "or set HF_TOKEN; --dry-run needs none")
    hub_client.use_time_limit()
    api = HfApi()
    release = release_of(folder, converted, mark, replace_script)
    remote, made, unread = None, set(), None
    try:
        remote = read_repo(api, name, repo_id, revision, create_pr)
    except Unreadable as error:
        if not dry_run:
            raise
        unread = error.reason
    if remote is not None:
        made = push.check_pushable(api, release, repo_id, remote, list(mark.configs), None, take_over,
                                   replace_script)
    elif replace_script:
        raise CorporaError(f"{name}: --replace-script: dataset repository {repo_id}, where the script came from, "
                           "does not exist (or this token cannot see it)")
    before = None
    if replace_script and not push.landed(remote, folder, exports.published_files(folder), mark.configs, made,
                                          revision, create_pr, release.removed):
        check_unchanged(api, name, repo_id, remote, converted, folder)
        if SCRIPT_BRANCH in remote.branches:
            check_script_branch(api, name, repo_id, remote.branches[SCRIPT_BRANCH], converted)
        elif not dry_run:
            before = lambda parent: api.create_branch(  # noqa: E731 - at the commit the push found
                repo_id, branch=SCRIPT_BRANCH, revision=parent, repo_type="dataset", exist_ok=True)
    return push.publish(api, release, folder, repo_id, remote, made, list(mark.configs), unread, private=private,
                        dry_run=dry_run, revision=revision, create_pr=create_pr, take_over=take_over,
                        before_commit=before)


def check_unchanged(api: HfApi, name: str, repo_id: str, remote: Remote, converted: dict, folder: Path) -> None:
    """Refuse to replace a script whose repository changed since it was converted: every file the conversion
    read (the script, its helper modules, dataset_infos.json, README.md) is at the head as it was read, or
    is this export's own (the card an earlier push of it wrote)."""
    for path, recorded in (converted.get("files") or {}).items():
        if path not in remote.files or ((folder / path).is_file() and same_file(folder / path, *remote.files[path])):
            continue  # removed since (nothing of it is lost), or this export's own
        now = sha256_at(api, name, repo_id, remote.sha, path)
        if now != recorded:
            raise CorporaError(
                f"{name}: not replacing the script: {path} at {remote.sha} of {repo_id} has sha256 {now}, the export "
                f"was converted from sha256 {recorded}: convert hf://datasets/{repo_id} again, then push")


def sha256_at(api: HfApi, name: str, repo_id: str, revision: str, path: str) -> str | None:
    """The sha256 of a file of the repository at `revision`; None if it has no such file."""
    from huggingface_hub.errors import EntryNotFoundError

    try:
        return hashlib.sha256(Path(api.hf_hub_download(
            repo_id, path, repo_type="dataset", revision=revision)).read_bytes()).hexdigest()
    except EntryNotFoundError:
        return None
    except Exception as error:  # noqa: BLE001 - one line, before anything is uploaded
        raise Unreadable(name, repo_id, describe_failure(error)) from error


def check_script_branch(api: HfApi, name: str, repo_id: str, existing: str, converted: dict) -> None:
    """A branch `script` made earlier (by a push that stopped, or by hand) must hold the script converted."""
    script, recorded = converted["script"], converted["files"][converted["script"]]
    if sha256_at(api, name, repo_id, existing, script) != recorded:
        raise CorporaError(
            f"{name}: {repo_id} has a branch {SCRIPT_BRANCH} (at {existing}) that does not hold the script converted "
            f"({script}, sha256 {recorded}): rename or delete that branch, then push again")
