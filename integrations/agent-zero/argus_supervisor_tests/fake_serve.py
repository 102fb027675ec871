"""A SIMULATED serve for the watcher tests: status and the SSE feed over a Unix socket, with
public events the test plants (a real serve raises NEEDS_YOU/CRITICAL only with a remote, which
these tests do not run). It follows docs/api.md: ids `<campaign>:<seq>`, `status` holds the feed,
a stream replays after `Last-Event-ID` only what this process still remembers, then ends with
`event: reconnect`. A "restart" is a new instance given the same feed and no memory."""
from __future__ import annotations

import json
import os
import socketserver
import threading
from http.server import BaseHTTPRequestHandler

PREFIX = "/api/plugins/argus_supervisor"


class FakeServe:
    def __init__(self, socket_path: str, key: str, feed: list[dict]):
        self.socket_path = socket_path
        self.key = key
        self.feed = feed  # shared with the test: "persisted" across restarts
        self.remembered: set[str] = set()  # what this process's stream can replay
        self.requests: list[str] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def address_string(self):
                return "unix"

            def _authorized(self) -> bool:
                if self.headers.get("X-API-KEY") == fake.key:
                    return True
                self._json(401, {"ok": False, "error": {"code": "unauthorized", "message": "The API key is missing or wrong."}})
                return False

            def _json(self, status: int, body: dict) -> None:
                raw = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def do_POST(self):
                fake.requests.append(f"POST {self.path}")
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if not self._authorized():
                    return
                if self.path == f"{PREFIX}/status":
                    fake.remembered.update(e["id"] for e in fake.feed)
                    return self._json(200, {"ok": True, "campaigns": [], "events": list(fake.feed)})
                self._json(404, {"ok": False, "error": {"code": "not_found", "message": "No such route."}})

            def do_GET(self):
                fake.requests.append(f"GET {self.path} last={self.headers.get('Last-Event-ID')}")
                if not self._authorized():
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                out = [b'event: hello\ndata: {"revision": 1}\n\n', b": keepalive\n\n"]
                last = self.headers.get("Last-Event-ID")
                ids = [e["id"] for e in fake.feed]
                if last in fake.remembered and last in ids:
                    for event in fake.feed[ids.index(last) + 1 :]:
                        out.append(f"event: public\nid: {event['id']}\ndata: {json.dumps(event)}\n\n".encode())
                out.append(b"event: reconnect\ndata: {}\n\n")
                self.wfile.write(b"".join(out))
                self.close_connection = True

        class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
            daemon_threads = True

        if os.path.exists(socket_path):
            os.unlink(socket_path)
        self.server = Server(socket_path, Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        os.unlink(self.socket_path)


def event(campaign: str, seq: int, kind: str, **data) -> dict:
    return {"id": f"{campaign}:{seq}", "seq": seq, "kind": kind, "campaign_id": campaign, "at": "2026-01-01T00:00:00.000Z", "summary": f"{kind} on {campaign}", "data": data}
