"""A stand-in for the Hugging Face Hub's HTTP API on 127.0.0.1: the one network edge the tests
cannot reach. It answers the calls `HfApi.create_repo` and `HfApi.upload_folder` make, and
records what was sent."""

import base64
import http.server
import json
import threading


class FakeHub:
    def __init__(self):
        self.requests = []  # (method, path, authorization header)
        self.created = []  # the JSON bodies of repo creations
        self.commits = []  # {"summary": ..., "files": {path: bytes}, "deleted": [...]}
        hub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def reply(self, body, code=200):
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def handle_any(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                hub.requests.append((self.command, self.path, self.headers.get("Authorization")))
                path = self.path.split("?")[0]
                if path == "/api/repos/create":
                    request = json.loads(body)
                    hub.created.append(request)
                    repo = f"{request['organization']}/{request['name']}"
                    return self.reply({"url": f"{hub.endpoint}/datasets/{repo}", "name": repo})
                if path == "/api/validate-yaml":
                    return self.reply({"errors": [], "warnings": []})
                if path.startswith("/api/datasets/") and "/tree/" in path:
                    return self.reply([])  # an empty new repository
                if path.startswith("/api/datasets/") and "/preupload/" in path:
                    files = json.loads(body)["files"]
                    return self.reply({"files": [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False} for f in files]})
                if path.startswith("/api/datasets/") and "/commit/" in path:
                    hub.commits.append(_parse_commit(body))
                    repo = path.removeprefix("/api/datasets/").split("/commit/")[0]
                    oid = f"{len(hub.commits):040d}"
                    return self.reply({"commitUrl": f"{hub.endpoint}/datasets/{repo}/commit/{oid}", "commitOid": oid, "pullRequestUrl": None})
                return self.reply({"error": "not part of the fake Hub"}, code=404)

            do_GET = do_POST = do_PUT = do_HEAD = handle_any

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()


def _parse_commit(body: bytes) -> dict:
    commit = {"summary": None, "files": {}, "deleted": []}
    for line in body.decode().splitlines():
        entry = json.loads(line)
        value = entry["value"]
        if entry["key"] == "header":
            commit["summary"] = value["summary"]
        elif entry["key"] == "file":
            commit["files"][value["path"]] = base64.b64decode(value["content"])
        elif entry["key"] in ("deletedFile", "deletedFolder"):
            commit["deleted"].append(value["path"])
    return commit
