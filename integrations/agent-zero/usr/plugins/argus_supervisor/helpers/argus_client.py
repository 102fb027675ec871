"""A small client for argus-supervisor's HTTP API over its Unix socket (standard library only).

Why stdlib only: the plugin runs inside the host's own Python environment (/opt/venv-a0), which
must not be changed at run time, so it may depend on nothing the host does not already ship.

- The key is read from the 0600 key file on every request (`serve` made it; it may be rotated by
  a restart), checked the way `serve` checks it, sent only as `X-API-KEY`, and never kept in an
  error, a repr or a log line.
- Every call is bounded: a connect timeout, a timeout on each socket read, and an overall
  deadline (`request_timeout_s`) on the whole answer, so a `serve` that trickles a byte now and
  then cannot hold a call open. The event stream has only the per-read (idle) timeout: it is
  meant to stay open.
- A refusal from `serve` keeps its stable code (`campaign_not_found`, `lease_stale_epoch`, ...);
  the client's own failures have codes of their own (see ArgusError).
"""
from __future__ import annotations

import http.client
import json
import os
import re
import socket
import stat
import threading
from typing import Any, Iterator

API_PREFIX = "/api/plugins/argus_supervisor"
# The rule `serve` applies to a key (services/config/config.ts apiKeyWeak): 16 or more printable
# ASCII characters, no whitespace. Its own local key (base64url) is one; so is a host's key.
KEY_PATTERN = re.compile(r"^[!-~]{16,}$")
MAX_ANSWER_BYTES = 8 * 1024 * 1024


class ArgusError(Exception):
    """A refusal or failure with a stable code.

    Codes from `serve` pass through unchanged. The client's own:
    `key_file_missing`, `key_file_unsafe` (the key file is not ours alone or not a key),
    `argus_unreachable` (no socket, nothing listening, connection dropped),
    `argus_timeout` (no answer in time), `argus_bad_answer` (not the JSON we expect).
    """

    def __init__(self, code: str, message: str, status: int | None = None, detail: dict | None = None):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status
        self.detail = detail or {}

    def as_dict(self) -> dict:
        error = {"code": self.code, "message": self.message}
        error.update({k: v for k, v in self.detail.items() if k not in error})
        return {"ok": False, "error": error}


def read_key_file(path: str) -> str:
    """The key in `path`, refused unless it is a regular file of ours, mode 0600 or stricter."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        raise ArgusError("key_file_missing", f"{path} does not exist (serve creates it on its first start)") from None
    except OSError as error:
        # ELOOP: a symlink planted at the path is refused, never followed.
        raise ArgusError("key_file_unsafe", f"{path} cannot be opened safely ({error.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ArgusError("key_file_unsafe", f"{path} is not a regular file")
        if st.st_uid != os.getuid():
            raise ArgusError("key_file_unsafe", f"{path} is owned by another user")
        if st.st_mode & 0o077:
            raise ArgusError("key_file_unsafe", f"{path} has mode {stat.S_IMODE(st.st_mode):o}, not 600")
        raw = os.read(fd, 4096).decode("ascii", "replace").strip()
    finally:
        os.close(fd)
    if not KEY_PATTERN.match(raw):
        raise ArgusError("key_file_unsafe", f"{path} does not hold a strong key")
    return raw


class _UnixConnection(http.client.HTTPConnection):
    """http.client over AF_UNIX: connect with its own timeout, then read with another."""

    def __init__(self, socket_path: str, connect_timeout: float, read_timeout: float):
        super().__init__("localhost", timeout=read_timeout)
        self._socket_path = socket_path
        self._connect_timeout = connect_timeout
        self._read_timeout = read_timeout

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self._connect_timeout)
        try:
            sock.connect(self._socket_path)
        except BaseException:
            sock.close()
            raise
        sock.settimeout(self._read_timeout)
        self.sock = sock


class ArgusClient:
    def __init__(self, socket_path: str, key_file: str, connect_timeout_s: float = 2.0, request_timeout_s: float = 15.0):
        self.socket_path = socket_path
        self.key_file = key_file
        self.connect_timeout_s = float(connect_timeout_s)
        self.request_timeout_s = float(request_timeout_s)

    def __repr__(self) -> str:  # the path only: there is no key to show
        return f"ArgusClient(socket_path={self.socket_path!r})"

    # ---- the routes -------------------------------------------------------------------------

    def public_health(self) -> dict:
        """GET /health: liveness only, no key needed."""
        return self._call("GET", "/health", None, authenticated=False)

    def health(self) -> dict:
        return self._call("POST", f"{API_PREFIX}/health", {})

    def status(self) -> dict:
        return self._call("POST", f"{API_PREFIX}/status", {})

    def campaigns(self, body: dict, idempotency_key: str | None = None) -> dict:
        return self._call("POST", f"{API_PREFIX}/campaigns", body, idempotency_key=idempotency_key)

    def campaign_action(self, body: dict, idempotency_key: str | None = None) -> dict:
        return self._call("POST", f"{API_PREFIX}/campaign_action", body, idempotency_key=idempotency_key)

    def events(self, last_event_id: str | None = None, campaign_id: str | None = None, idle_timeout_s: float | None = None) -> Iterator[dict]:
        """Follows the SSE feed: yields {"event": name, "id": id or None, "data": parsed JSON}.

        Ends when `serve` ends the stream; raises `argus_timeout` when nothing (not even a
        keepalive) arrives for `idle_timeout_s`.
        """
        path = f"{API_PREFIX}/events"
        if campaign_id:
            path += "?campaign_id=" + _quote(campaign_id)
        headers = {"Accept": "text/event-stream"}
        if last_event_id:
            headers["Last-Event-ID"] = last_event_id
        conn, response = self._open("GET", path, None, headers, read_timeout=idle_timeout_s or self.request_timeout_s)
        try:
            if response.status != 200:
                self._raise_refusal(response.status, _read_bounded(response))
            yield from _parse_sse(response)
        except socket.timeout:
            raise ArgusError("argus_timeout", "the event stream was silent for too long") from None
        except (ConnectionError, http.client.HTTPException, OSError) as error:
            if isinstance(error, ArgusError):
                raise
            raise ArgusError("argus_unreachable", "the event stream was cut") from None
        finally:
            conn.close()

    # ---- plumbing ---------------------------------------------------------------------------

    def _call(self, method: str, path: str, body: dict | None, authenticated: bool = True, idempotency_key: str | None = None) -> dict:
        headers: dict[str, str] = {}
        if idempotency_key:
            headers["Idempotency-Key"] = idempotency_key
        late = f"no whole answer within {self.request_timeout_s:g} s"
        # The overall deadline: at it, the socket is shut down, which ends any read in progress.
        expired = threading.Event()
        conns: list = []

        def cut() -> None:
            expired.set()
            for conn in conns:
                _shutdown(conn)

        timer = threading.Timer(self.request_timeout_s, cut)
        timer.daemon = True
        timer.start()
        try:
            conn, response = self._open(method, path, body, headers, authenticated=authenticated, opened=conns.append)
            try:
                raw = _read_bounded(response)
            except socket.timeout:
                raise ArgusError("argus_timeout", late) from None
            except (ConnectionError, http.client.HTTPException, OSError):
                raise ArgusError("argus_timeout" if expired.is_set() else "argus_unreachable", late if expired.is_set() else "the connection dropped before the answer ended") from None
            finally:
                conn.close()
        except ArgusError as error:
            if expired.is_set() and error.code == "argus_unreachable":
                raise ArgusError("argus_timeout", late) from None
            raise
        finally:
            timer.cancel()
        if expired.is_set():
            raise ArgusError("argus_timeout", late)  # cut at the very end: the answer may be partial
        if response.status >= 400:
            self._raise_refusal(response.status, raw)
        try:
            answer = json.loads(raw)
        except ValueError:
            raise ArgusError("argus_bad_answer", "the answer is not JSON", response.status) from None
        if not isinstance(answer, dict):
            raise ArgusError("argus_bad_answer", "the answer is not a JSON object", response.status)
        return answer

    def _open(self, method: str, path: str, body: dict | None, headers: dict[str, str], authenticated: bool = True, read_timeout: float | None = None, opened=None):
        if authenticated:
            headers = {**headers, "X-API-KEY": read_key_file(self.key_file)}
        payload = None
        if body is not None:
            payload = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        conn = _UnixConnection(self.socket_path, self.connect_timeout_s, read_timeout or self.request_timeout_s)
        if opened is not None:
            opened(conn)
        try:
            conn.request(method, path, body=payload, headers=headers)
            response = conn.getresponse()
        except socket.timeout:
            conn.close()
            raise ArgusError("argus_timeout", f"no answer within {read_timeout or self.request_timeout_s:g} s") from None
        except (FileNotFoundError, ConnectionRefusedError):
            conn.close()
            raise ArgusError("argus_unreachable", f"nothing listens on {self.socket_path}") from None
        except (ConnectionError, http.client.HTTPException, OSError) as error:
            conn.close()
            raise ArgusError("argus_unreachable", f"the socket failed ({type(error).__name__})") from None
        return conn, response

    @staticmethod
    def _raise_refusal(status: int, raw: bytes) -> None:
        try:
            answer = json.loads(raw)
            error = answer.get("error") if isinstance(answer, dict) else None
        except ValueError:
            error = None
        if isinstance(error, dict) and isinstance(error.get("code"), str):
            extra = {k: v for k, v in error.items() if k not in ("code", "message") and isinstance(v, (str, int, float, bool))}
            raise ArgusError(error["code"], str(error.get("message", "")), status, extra)
        raise ArgusError("argus_bad_answer", f"HTTP {status} without a JSON error", status)


def _shutdown(conn: http.client.HTTPConnection) -> None:
    sock = conn.sock
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def _read_bounded(response: http.client.HTTPResponse) -> bytes:
    raw = response.read(MAX_ANSWER_BYTES + 1)
    if len(raw) > MAX_ANSWER_BYTES:
        raise ArgusError("argus_bad_answer", "the answer is larger than 8 MiB")
    return raw


def _quote(value: str) -> str:
    from urllib.parse import quote

    return quote(value, safe="")


def _parse_sse(response: http.client.HTTPResponse) -> Iterator[dict]:
    """Frames of a text/event-stream: comments (keepalives) are skipped, `data` lines joined."""
    event, frame_id, data = "message", None, []
    while True:
        line = response.readline(1024 * 1024)
        if not line:
            return
        text = line.decode("utf-8", "replace").rstrip("\r\n")
        if text == "":
            if data:
                joined = "\n".join(data)
                try:
                    parsed: Any = json.loads(joined)
                except ValueError:
                    parsed = None
                yield {"event": event, "id": frame_id, "data": parsed}
            event, frame_id, data = "message", None, []
        elif text.startswith(":"):
            continue
        else:
            name, _, value = text.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "event":
                event = value
            elif name == "id":
                frame_id = value
            elif name == "data":
                data.append(value)
