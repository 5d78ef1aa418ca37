"""A stateful stand-in for the Hugging Face Hub on 127.0.0.1 (HF_ENDPOINT points at it): the one
network edge the tests cannot reach. It serves the part of the Hub's HTTP API that huggingface_hub
(0.25 to 2.x) uses to create a dataset repository, read its info, refs and file tree, pre-upload,
upload files (regular ones inside the commit, LFS ones through the batch endpoint and a basic PUT
to an upload URL on this server), commit, tag, branch, open and list pull requests (refs/pr/N; `repo.closed`: closed ones) and
download files (`/datasets/ORG/NAME/resolve/REV/PATH`). Every commit is kept with its whole file
tree, so a push onto an earlier one shows what survives.

Not served: Xet storage (hf_xet talks to a separate CAS service; huggingface_hub >= 1.x uploads
through it whenever hf_xet is installed, with no fallback), so clients of this server run with
HF_HUB_DISABLE_XET=1 and take the LFS path. Downloads send no X-Xet-* header, so they stay plain HTTP.

Faults (`hub.fail`): "commit" answers the commit with a 500; "cut_upload" cuts the first LFS upload
off half-way (the connection is dropped, and that upload URL then answers 403, as an expired
presigned URL does; the next batch request hands out a new one); "auth" answers every request with
a 401; "race" lets another client's commit land on the branch just before the commit (which then
names a parent that is no longer its head); "tag" answers the creation of a tag with a 500.
An answer lost on its way back (`hub.lose[action] = how`, once, for "commit" or "tag"): the Hub
applies the request, then the connection is dropped ("drop"), a proxy answers 502 ("502"), or
nothing comes back until the client gives up ("hang")."""

from __future__ import annotations

import base64
import hashlib
import http.server
import itertools
import json
import socket
import threading
from dataclasses import dataclass
from dataclasses import field
from urllib.parse import parse_qs
from urllib.parse import unquote
from urllib.parse import urlsplit

# What the Hub writes into a new repository: its .gitattributes, which sends *.parquet to LFS.
GITATTRIBUTES = b"*.parquet filter=lfs diff=lfs merge=lfs -text\n*.arrow filter=lfs diff=lfs merge=lfs -text\n"
LFS_SUFFIXES = (".parquet", ".arrow")


def git_blob_id(content: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


@dataclass(frozen=True)
class File:
    content: bytes
    lfs: bool

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.content).hexdigest()

    def pointer(self) -> bytes:
        return f"version https://git-lfs.github.com/spec/v1\noid sha256:{self.sha256}\nsize {len(self.content)}\n".encode()

    @property
    def blob_id(self) -> str:  # git's id of what the repository stores: the pointer for LFS
        return git_blob_id(self.pointer() if self.lfs else self.content)


@dataclass
class Commit:
    sha: str
    parent: str | None
    summary: str
    files: dict[str, File]


@dataclass
class Repo:
    id: str
    private: bool
    commits: dict[str, Commit] = field(default_factory=dict)
    branches: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    prs: dict[int, str] = field(default_factory=dict)
    closed: set[int] = field(default_factory=set)  # pull requests closed unmerged (their refs stay)

    def resolve(self, revision: str) -> str | None:
        if revision in self.branches:
            return self.branches[revision]
        if revision in self.tags:
            return self.tags[revision]
        if revision.startswith("refs/pr/") and revision[8:].isdigit():
            return self.prs.get(int(revision[8:]))
        return revision if revision in self.commits else None

    def files(self, revision: str = "main") -> dict[str, File]:
        return self.commits[self.resolve(revision)].files


class HubError(Exception):
    def __init__(self, status: int, message: str, code: str | None = None, **said):
        super().__init__(message)
        self.status, self.message, self.code, self.said = status, message, code, said  # said: more of the body


class FakeHub:
    def __init__(self, token: str | None = None):
        self.token = token  # if set, writes need it
        self.repos: dict[str, Repo] = {}
        self.lfs: dict[str, bytes] = {}  # uploaded LFS objects by sha256
        self.requests = []  # (method, path, authorization header)
        self.created = []  # the JSON bodies of repo creations
        self.commits = []  # each commit made: {"summary", "files": {path: bytes}, "deleted": [...], "revision"}
        self.fail: set[str] = set()
        self.lose: dict[str, str] = {}  # action ("commit", "tag") -> how its answer is lost: drop, 502, hang
        self.lock = threading.Lock()
        self._shas = (hashlib.sha1(b"commit %d" % n).hexdigest() for n in itertools.count())
        self._expired: set[str] = set()  # upload URLs
        self._urls = itertools.count()
        self._closing = threading.Event()
        hub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def send(self, code, body=b"", headers=None, content_type="application/json"):
                self.send_response(code)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def handle_any(self):
                hub.requests.append((self.command, self.path, self.headers.get("Authorization")))
                try:
                    with hub.lock:
                        answer = hub.answer(self)
                except HubError as error:
                    headers = {"X-Error-Message": error.message, **({"X-Error-Code": error.code} if error.code else {})}
                    return self.send(error.status, json.dumps({"error": error.message, **error.said}).encode(), headers)
                if isinstance(answer, str):  # applied, and its answer lost that way (outside the lock: others go on)
                    return self.lose_answer(answer)
                if answer is not None:  # None: the connection was cut
                    code, body, headers = answer
                    if isinstance(body, bytes):
                        return self.send(code, body, headers, "application/octet-stream")
                    return self.send(code, json.dumps(body).encode(), headers)

            def lose_answer(self, how):
                if how == "502":
                    return self.send(502, b"<html><body><h1>502 Bad Gateway</h1></body></html>", content_type="text/html")
                if how == "hang":
                    hub._closing.wait(60)  # until the test ends; the client gives up well before
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)

            do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = handle_any

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self):
        self._closing.set()
        self.server.shutdown()
        self.server.server_close()

    # --- state, for tests to set up and inspect ---

    def add_repo(self, repo_id: str, private: bool = False) -> Repo:
        """A repository as the Hub creates it: one commit holding its .gitattributes."""
        repo = Repo(repo_id, private)
        self.repos[repo_id] = repo
        self._commit(repo, "main", "initial commit", {".gitattributes": File(GITATTRIBUTES, False)})
        return repo

    def put(self, repo_id: str, files: dict[str, bytes], summary: str = "Upload files", revision: str = "main") -> str:
        """Commit files to a repository (a user's own upload); returns the commit's sha."""
        repo = self.repos.get(repo_id) or self.add_repo(repo_id)
        tree = dict(repo.files(revision))
        tree.update({path: File(content, path.endswith(LFS_SUFFIXES)) for path, content in files.items()})
        return self._commit(repo, revision, summary, tree).sha

    def head(self, repo_id: str, revision: str = "main") -> str:
        return self.repos[repo_id].resolve(revision)

    def tree(self, repo_id: str, revision: str = "main") -> dict[str, bytes]:
        return {path: file.content for path, file in self.repos[repo_id].files(revision).items()}

    def _commit(self, repo: Repo, branch: str, summary: str, files: dict[str, File], pr: bool = False) -> Commit:
        parent = repo.resolve(branch)
        commit = Commit(next(self._shas), parent, summary, files)
        repo.commits[commit.sha] = commit
        if pr:
            repo.prs[max(repo.prs, default=0) + 1] = commit.sha
        elif branch.startswith("refs/pr/"):
            repo.prs[int(branch[8:])] = commit.sha
        else:
            repo.branches[branch] = commit.sha
        return commit

    # --- the HTTP API ---

    def answer(self, request):
        url = urlsplit(request.path)
        path, query = url.path, parse_qs(url.query)
        length = int(request.headers.get("Content-Length") or 0)
        if "auth" in self.fail:
            raise HubError(401, "Invalid credentials in Authorization header")
        if request.command == "PUT" and path.startswith("/lfs-upload/"):
            return self.lfs_upload(request, request.path, path.removeprefix("/lfs-upload/"), length)
        body = request.rfile.read(length) if length else b""
        auth = request.headers.get("Authorization")
        if path == "/api/validate-yaml":  # a check of the card's YAML, not a write
            return 200, {"errors": [], "warnings": []}, {}
        if request.command in ("POST", "PUT", "DELETE") and self.token and auth != f"Bearer {self.token}":
            raise HubError(401, "Invalid credentials in Authorization header")
        if path == "/api/repos/create":
            return self.create_repo(json.loads(body))
        if path.startswith("/api/datasets/"):
            parts = path.removeprefix("/api/datasets/").split("/")
            repo = self.repo("/".join(parts[:2]))
            action, rest = (parts[2], [unquote(p) for p in parts[3:]]) if len(parts) > 2 else ("", [])
            if rest:  # a branch by its full name, as the Hub takes it too: refs/heads/main is main
                rest[0] = rest[0].removeprefix("refs/heads/")
            if action in ("", "revision"):
                return self.repo_info(repo, rest[0] if rest else "main", "blobs" in query)
            if action == "tree":
                return self.list_tree(repo, rest[0], "/".join(rest[1:]), query.get("recursive") == ["true"] or
                                      query.get("recursive") == ["True"], query)
            if action == "refs":
                return self.refs(repo, bool(query.get("include_prs")))
            if action == "discussions":
                return self.discussions(repo, query)
            if action == "preupload":
                return self.preupload(repo, rest[0], json.loads(body))
            if action == "commit":
                return self.commit(repo, rest[0], body, query.get("create_pr") == ["1"])
            if action == "tag":
                return self.create_tag(repo, rest[0], json.loads(body))
            if action == "branch":
                return self.create_branch(repo, "/".join(rest), json.loads(body or b"{}"))
        if path.startswith("/datasets/") and path.endswith(".git/info/lfs/objects/batch"):
            return self.lfs_batch(json.loads(body))
        if path.startswith("/datasets/") and "/resolve/" in path:
            repo_id, _, rest = path.removeprefix("/datasets/").partition("/resolve/")
            revision, _, file_path = rest.partition("/")
            return self.download(self.repo(repo_id), unquote(revision), unquote(file_path))
        raise HubError(404, f"not part of the fake Hub: {request.command} {path}")

    def repo(self, repo_id: str) -> Repo:
        if repo_id not in self.repos:
            raise HubError(404, "Repository not found", "RepoNotFound")
        return self.repos[repo_id]

    def revision(self, repo: Repo, revision: str) -> str:
        sha = repo.resolve(revision)
        if sha is None:
            raise HubError(404, f"Invalid rev id: {revision}", "RevisionNotFound")
        return sha

    def create_repo(self, request: dict):
        repo_id = f"{request['organization']}/{request['name']}" if request.get("organization") else request["name"]
        self.created.append(request)
        if repo_id in self.repos:
            # The Hub's answer names the repository: huggingface_hub's create_repo(exist_ok=True) reads it.
            raise HubError(409, "You already created this dataset repo", url=f"{self.endpoint}/datasets/{repo_id}")
        self.add_repo(repo_id, bool(request.get("private")) or request.get("visibility") == "private")
        return 200, {"url": f"{self.endpoint}/datasets/{repo_id}", "name": repo_id}, {}

    def repo_info(self, repo: Repo, revision: str, blobs: bool):
        sha = self.revision(repo, revision)
        siblings = []
        for path, file in sorted(repo.commits[sha].files.items()):
            entry = {"rfilename": path}
            if blobs:
                entry.update(size=len(file.content), blobId=file.blob_id)
                if file.lfs:
                    entry["lfs"] = {"sha256": file.sha256, "size": len(file.content), "pointerSize": len(file.pointer())}
            siblings.append(entry)
        return 200, {"_id": repo.id, "id": repo.id, "author": repo.id.split("/")[0], "sha": sha, "private": repo.private,
                     "disabled": False, "gated": False, "downloads": 0, "likes": 0, "tags": [], "siblings": siblings,
                     "lastModified": "2026-01-01T00:00:00.000Z", "createdAt": "2026-01-01T00:00:00.000Z"}, {}

    def list_tree(self, repo: Repo, revision: str, folder: str, recursive: bool, query):
        sha = self.revision(repo, revision)
        files = repo.commits[sha].files
        prefix = f"{folder}/" if folder else ""
        entries, folders = [], set()
        for path, file in sorted(files.items()):
            if not path.startswith(prefix):
                continue
            inner = path[len(prefix):]
            parts = inner.split("/")
            for depth in range(1, len(parts)):
                if recursive or depth == 1:
                    folders.add(prefix + "/".join(parts[:depth]))
            if recursive or len(parts) == 1:
                entry = {"type": "file", "oid": file.blob_id, "size": len(file.content), "path": path}
                if file.lfs:
                    entry["lfs"] = {"oid": file.sha256, "size": len(file.content), "pointerSize": len(file.pointer())}
                entries.append(entry)
        if folder and not entries and not folders:
            raise HubError(404, f"{folder} does not exist on {revision}", "EntryNotFound")
        entries += [{"type": "directory", "oid": git_blob_id(f.encode()), "size": 0, "path": f} for f in sorted(folders)]
        return 200, entries, {}

    def refs(self, repo: Repo, include_prs: bool):
        def ref(name, kind, sha):
            return {"name": name, "ref": f"refs/{kind}/{name}", "targetCommit": sha}

        body = {"branches": [ref(n, "heads", s) for n, s in repo.branches.items()], "converts": [],
                "tags": [ref(n, "tags", s) for n, s in repo.tags.items()]}
        if include_prs:
            body["pullRequests"] = [{"name": f"refs/pr/{n}", "ref": f"refs/pr/{n}", "targetCommit": s}
                                    for n, s in repo.prs.items()]
        return 200, body, {}

    def discussions(self, repo: Repo, query: dict):
        """The pull requests, newest first, 50 a page, as the Hub lists them (those a client opens are drafts)."""
        if query.get("type", ["all"]) not in (["all"], ["pull_request"]):
            return 200, {"discussions": [], "count": 0, "start": 0}, {}
        start = 50 * int(query.get("p", ["0"])[0])
        listed = [{"title": f"pull request {n}", "num": n, "author": {"name": "someone"},
                   "createdAt": "2026-01-01T00:00:00.000Z", "status": "closed" if n in repo.closed else "draft",
                   "repo": {"name": repo.id, "type": "dataset"}, "isPullRequest": True}
                  for n in sorted(repo.prs, reverse=True)]
        return 200, {"discussions": listed[start:start + 50], "count": len(listed), "start": start}, {}

    def preupload(self, repo: Repo, revision: str, request: dict):
        sha = repo.resolve(revision) or self.revision(repo, "main")  # a new branch starts from main
        files = repo.commits[sha].files
        answer = []
        for entry in request["files"]:
            lfs = entry["path"].endswith(LFS_SUFFIXES) or entry["size"] > 10_000_000
            existing = files.get(entry["path"])
            oid = None if existing is None else (existing.sha256 if existing.lfs else git_blob_id(existing.content))
            answer.append({"path": entry["path"], "uploadMode": "lfs" if lfs else "regular", "shouldIgnore": False,
                           "oid": oid})
        return 200, {"files": answer, "commitOid": sha}, {}

    def lfs_batch(self, request: dict):
        objects = []
        for entry in request["objects"]:
            item = {"oid": entry["oid"], "size": entry["size"]}
            if entry["oid"] not in self.lfs:  # already stored: no action, nothing is sent again
                url = f"/lfs-upload/{entry['oid']}?upload={next(self._urls)}"  # each one new, as presigned URLs are
                item["actions"] = {"upload": {"href": f"{self.endpoint}{url}", "header": {}}}
            objects.append(item)
        return 200, {"transfer": "basic", "objects": objects}, {"Content-Type": "application/vnd.git-lfs+json"}

    def lfs_upload(self, request, url: str, oid: str, length: int):
        if url in self._expired:
            raise HubError(403, "Request has expired")
        if "cut_upload" in self.fail:
            self.fail.discard("cut_upload")
            self._expired.add(url)
            request.rfile.read(length // 2)
            request.close_connection = True
            request.connection.shutdown(2)  # the rest of the upload never arrives
            return None
        content = request.rfile.read(length)
        if hashlib.sha256(content).hexdigest() != oid:
            raise HubError(400, "the uploaded content does not match its oid")
        self.lfs[oid] = content
        return 200, {}, {}

    def commit(self, repo: Repo, revision: str, body: bytes, create_pr: bool):
        if "commit" in self.fail:
            raise HubError(500, "Internal Error - We're working hard to fix this as soon as possible!")
        if "race" in self.fail:
            self.fail.discard("race")
            tree = dict(repo.files(revision), **{"notes.md": File(b"a colleague's notes\n", False)})
            self._commit(repo, revision, "Add notes.md", tree)
        base = self.revision(repo, revision)  # a commit goes to an existing branch (or PR)
        tree = dict(repo.commits[base].files)
        record = {"summary": None, "files": {}, "deleted": [], "revision": revision, "create_pr": create_pr}
        for line in body.decode().splitlines():
            entry = json.loads(line)
            key, value = entry["key"], entry["value"]
            if key == "header":
                record["summary"] = value["summary"]
                parent = value.get("parentCommit")
                if parent and parent != base:
                    raise HubError(412, f"A commit has happened since {parent}: {revision} is at {base}")
            elif key == "file":
                content = base64.b64decode(value["content"])
                tree[value["path"]] = File(content, False)
                record["files"][value["path"]] = content
            elif key == "lfsFile":
                if value["oid"] not in self.lfs:
                    raise HubError(400, f"Your push was rejected: {value['path']} is not uploaded (LFS pointer {value['oid']})")
                tree[value["path"]] = File(self.lfs[value["oid"]], True)
                record["files"][value["path"]] = self.lfs[value["oid"]]
            elif key == "deletedFile":
                if value["path"] not in tree:
                    raise HubError(404, f"{value['path']} does not exist", "EntryNotFound")
                del tree[value["path"]]
                record["deleted"].append(value["path"])
            elif key == "deletedFolder":
                folder = value["path"].rstrip("/") + "/"
                tree = {p: f for p, f in tree.items() if not p.startswith(folder)}
                record["deleted"].append(value["path"])
            else:
                raise HubError(400, f"unknown commit entry {key}")
        commit = self._commit(repo, revision, record["summary"], tree, pr=create_pr)
        record["sha"] = commit.sha
        self.commits.append(record)
        pr_url = None
        if create_pr:
            pr_url = f"{self.endpoint}/datasets/{repo.id}/discussions/{max(repo.prs)}"
        if "commit" in self.lose:
            return self.lose.pop("commit")
        return 200, {"commitUrl": f"{self.endpoint}/datasets/{repo.id}/commit/{commit.sha}", "commitOid": commit.sha,
                     "pullRequestUrl": pr_url}, {}

    def create_tag(self, repo: Repo, revision: str, request: dict):
        sha = self.revision(repo, revision)
        if request["tag"] in repo.tags:
            raise HubError(409, f"Tag {request['tag']} already exists")
        if "tag" in self.fail:
            raise HubError(500, "Internal Error - We're working hard to fix this as soon as possible!")
        repo.tags[request["tag"]] = sha
        if "tag" in self.lose:
            return self.lose.pop("tag")
        return 200, {}, {}

    def create_branch(self, repo: Repo, branch: str, request: dict):
        if branch in repo.branches:
            raise HubError(409, f"Branch {branch} already exists")
        repo.branches[branch] = self.revision(repo, request.get("startingPoint") or "main")
        return 200, {}, {}

    def download(self, repo: Repo, revision: str, path: str):
        sha = self.revision(repo, revision)
        file = repo.commits[sha].files.get(path)
        if file is None:
            raise HubError(404, f"{path} does not exist at {revision}", "EntryNotFound")
        headers = {"X-Repo-Commit": sha, "ETag": f'"{file.blob_id}"', "Accept-Ranges": "bytes"}
        if file.lfs:
            headers.update({"X-Linked-Etag": f'"{file.sha256}"', "X-Linked-Size": str(len(file.content))})
        return 200, file.content, headers
