"""A dataset repository on the Hub as a push reads it: its commit, files, branches, tags and newest pull
requests, and whether a local file is one of its files."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

from huggingface_hub import HfApi

from corpora.errors import CorporaError
from corpora.errors import describe_failure

NEWEST_PULLS = 10  # the pull requests a --create-pr push looks through for one an earlier push opened


class Unreadable(CorporaError):
    """A repository that could not be read: `reason` says why."""

    def __init__(self, name: str, repo_id: str, reason: str):
        super().__init__(
            f"{name}: reading dataset repository {repo_id} failed: {reason}; nothing was built or uploaded")
        self.reason = reason


@dataclass
class Remote:
    """A Hub repository as a push finds it: its commit, files ({path: (blob id, LFS sha256)}), branches, tags,
    and the newest pull requests ({refs/pr/N: (commit, files)}, read for --create-pr)."""

    sha: str
    files: dict[str, tuple[str, str | None]]
    branches: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    pulls: dict[str, tuple[str, dict]] = field(default_factory=dict)


def is_pull_request(revision: str | None) -> bool:
    """refs/pr/N: a push onto an open pull request (as `hf upload --revision refs/pr/N`)."""
    return bool(revision) and revision.startswith("refs/pr/")


def read_repo(api: HfApi, name: str, repo_id: str, revision: str | None, create_pr: bool = False) -> Remote | None:
    """The repository at the branch pushed to (a new --revision branch: main), and with `create_pr` the files
    of its newest pull requests (where an earlier push opened one); None if there is none."""
    from huggingface_hub.errors import RepositoryNotFoundError

    try:
        refs = api.list_repo_refs(repo_id, repo_type="dataset", include_pull_requests=create_pr)
        branches = {ref.name: ref.target_commit for ref in refs.branches}
        tags = {ref.name: ref.target_commit for ref in refs.tags}
        base = revision if revision in branches or is_pull_request(revision) else "main"
        info = api.repo_info(repo_id, repo_type="dataset", revision=base, files_metadata=True)
        opened = _open_pulls(api, repo_id) if refs.pull_requests else set()  # a closed one's ref stays
        newest = sorted((ref for ref in refs.pull_requests or [] if ref.ref in opened),
                        key=lambda ref: -int(ref.ref.rpartition("/")[2]))[:NEWEST_PULLS]
        pulls = {ref.ref: (ref.target_commit, repo_files(api.repo_info(
            repo_id, repo_type="dataset", revision=ref.target_commit, files_metadata=True))) for ref in newest}
    except RepositoryNotFoundError as error:
        if getattr(error.response, "status_code", None) == 404:
            return None
        raise Unreadable(name, repo_id, describe_failure(error)) from error
    except Exception as error:  # noqa: BLE001 - one line, before anything was built
        raise Unreadable(name, repo_id, describe_failure(error)) from error
    return Remote(info.sha, repo_files(info), branches, tags, pulls)


def _open_pulls(api: HfApi, repo_id: str) -> set[str]:
    """The refs (refs/pr/N) of the pull requests still open (or drafts, as a push opens them)."""
    pulls = api.get_repo_discussions(repo_id, repo_type="dataset", discussion_type="pull_request")
    return {f"refs/pr/{pull.num}" for pull in pulls if pull.status in ("open", "draft")}


def repo_files(info) -> dict[str, tuple[str, str | None]]:
    """{path: (git blob id, LFS sha256 or None)} of a repository's files as `repo_info` lists them."""
    return {s.rfilename: (s.blob_id, _lfs_sha256(s)) for s in info.siblings or []}


def _lfs_sha256(sibling) -> str | None:
    lfs = sibling.lfs
    if lfs is None:
        return None
    return getattr(lfs, "sha256", None) or (lfs.get("sha256") if isinstance(lfs, dict) else None)


def read_file(api: HfApi, repo_id: str, revision: str, path: str) -> str:
    local = api.hf_hub_download(repo_id, path, repo_type="dataset", revision=revision)
    return Path(local).read_text(encoding="utf-8", errors="replace")


def made_files(api: HfApi, repo_id: str, remote: Remote) -> set[str]:
    """The Parquet files an earlier push made: those its croissant.json lists."""
    if "croissant.json" not in remote.files:
        return set()
    try:
        described = json.loads(read_file(api, repo_id, remote.sha, "croissant.json"))
        return {item["contentUrl"] for item in described.get("distribution", [])
                if isinstance(item, dict) and item.get("@type") == "cr:FileObject" and "contentUrl" in item}
    except ValueError:  # not JSON as this tool writes it: it made none of them, as far as is known
        return set()


def same_file(path: Path, blob_id: str, sha256: str | None) -> bool:
    """Whether a local file has the content of a repository file (its LFS sha256, else its blob id)."""
    content = path.read_bytes()
    if sha256 is not None:
        return hashlib.sha256(content).hexdigest() == sha256
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest() == blob_id


def has_tag(api: HfApi, repo_id: str, tag: str, sha: str) -> bool:
    """Whether the repository holds `tag` at commit `sha` (False if that cannot be read either)."""
    try:
        return any(ref.name == tag and ref.target_commit == sha
                   for ref in api.list_repo_refs(repo_id, repo_type="dataset").tags)
    except Exception:  # noqa: BLE001
        return False
