"""A real HTTP server on 127.0.0.1 that serves a folder and injects one fault per request, as a
plan says: `plan[path]` is a list of faults for the first requests of that path (then "ok").

Faults: ok, short (half the body, then close), reset (a TCP reset instead of an answer),
long_length (a Content-Length above the body), short_length (a Content-Length below it),
404, 500, 503, 429 (Retry-After: 1), html (an HTML page with 200), lfs (a Git LFS pointer with
200), loop (a redirect to itself), trickle (32 bytes every half second), stall (half the body, then
silence), silent (no answer at all), different (the file with its first byte changed).
"""

from __future__ import annotations

import collections
import http.server
import socket
import struct
import threading
from pathlib import Path

from helpers import LFS

HTML = b"<!DOCTYPE html>\n<html><head><title>Rate limited</title></head><body>Try again later</body></html>\n"


class FaultServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, folder: Path, plan: dict[str, list[str]] | None = None):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.folder = Path(folder)
        self.plan = {path: list(faults) for path, faults in (plan or {}).items()}
        self.requests = collections.Counter()  # path -> requests made
        self.lock = threading.Lock()
        self.stop_event = threading.Event()  # ends every stall and trickle at shutdown
        threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server_port}/"

    def next_fault(self, path: str) -> str:
        with self.lock:
            self.requests[path] += 1
            faults = self.plan.get(path, [])
            return faults.pop(0) if faults else "ok"

    def handle_error(self, request, client_address):
        pass  # a client that gave up (a timeout, a retry) is expected here, not news

    def close(self) -> None:
        self.stop_event.set()
        self.shutdown()
        self.server_close()


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):  # noqa: N802 - the name http.server calls
        server: FaultServer = self.server
        path = self.path.lstrip("/")
        fault = server.next_fault(path)
        file = server.folder / path
        if fault == "silent":  # the request read, never answered
            server.stop_event.wait(60)
            self.close_connection = True
            return
        if fault in ("404", "500", "503", "429") or not file.is_file():
            status = int(fault) if fault.isdigit() else 404
            body = f"{status}\n".encode()
            self.send_response(status)
            if status == 429:
                self.send_header("Retry-After", "1")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if fault == "reset":  # SO_LINGER 0: close() sends a RST, not a FIN, before any answer
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
            return
        if fault == "loop":
            self.send_response(302)
            self.send_header("Location", "/" + path)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        data = file.read_bytes()
        if fault == "html":
            data = HTML
        elif fault == "lfs":
            data = LFS
        elif fault == "different":
            data = bytes([data[0] ^ 1]) + data[1:]
        declared = {"long_length": len(data) + 100, "short_length": len(data) - 10}.get(fault, len(data))
        self.send_response(200)
        self.send_header("Content-Type", "text/html" if fault == "html" else "application/octet-stream")
        self.send_header("Content-Length", str(declared))
        self.end_headers()
        half = data[: len(data) // 2]
        if fault in ("short", "stall"):
            self.wfile.write(half)
            self.wfile.flush()
            if fault == "stall":
                server.stop_event.wait(60)
            self.close_connection = True
            return
        if fault == "trickle":
            # Twice a second, well inside the tests' 1 s read timeout: the client sees bytes come,
            # too few for a transfer, never a silence (a wait as long as the timeout would race it).
            for index in range(0, len(data), 32):
                if server.stop_event.wait(0.5):
                    break
                self.wfile.write(data[index:index + 32])
                self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(data)
        if fault in ("long_length", "short_length"):
            self.close_connection = True


