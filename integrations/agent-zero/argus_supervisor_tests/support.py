"""Shared test support: the host stand-ins on sys.path, state roots, a real `serve` child.

Environment (set by test/integrations/agent-zero.test.ts; all optional when run by hand):
- ARGUS_A0_SERVE_ENTRY: argus-supervisor's dist/bin/argus-supervisor.js (default: found by
  walking up from here to the repository's dist/).
- ARGUS_A0_REQUIRE_SERVE=1: a missing entry or node fails instead of skipping.
- ARGUS_A0_TEST_KEY_FILE: a 0600 file holding the key to give serve (copied as each state
  root's local-api-key, which serve then reuses); without it serve generates its own.
- ARGUS_A0_TEST_TOKEN_FILE, ARGUS_A0_TEST_HOST_KEY_FILE: 0600 files holding an A2A token and a
  key "from the host" (canaries under vitest); without them, random values made here.
- ARGUS_A0_STATE_BASE: where state roots go. The caller owns that folder: it scans the roots
  after the run and removes them. Without it, each root is a temp folder removed when the test
  that made it ends (it holds a 0600 key file).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)  # the folder an operator copies: usr/ and agents/
PLUGIN_DIR = os.path.join(ROOT, "usr", "plugins", "argus_supervisor")
STANDINS = os.path.join(HERE, "standins")

if STANDINS not in sys.path:
    sys.path.insert(0, STANDINS)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def serve_entry() -> str | None:
    entry = os.environ.get("ARGUS_A0_SERVE_ENTRY")
    if entry:
        return entry if os.path.isfile(entry) else None
    folder = ROOT
    for _ in range(4):
        folder = os.path.dirname(folder)
        candidate = os.path.join(folder, "dist", "bin", "argus-supervisor.js")
        if os.path.isfile(candidate):
            return candidate
    return None


def require_serve(test: unittest.TestCase) -> str:
    entry, node = serve_entry(), shutil.which("node")
    if entry and node:
        return entry
    if os.environ.get("ARGUS_A0_REQUIRE_SERVE") == "1":
        test.fail("argus-supervisor's dist/ or node is missing (run npm run build)")
    raise unittest.SkipTest("argus-supervisor's dist/ or node is missing")


def test_key() -> str | None:
    path = os.environ.get("ARGUS_A0_TEST_KEY_FILE")
    if not path:
        return None
    with open(path, encoding="ascii") as handle:
        return handle.read().strip()


def test_secret(variable: str) -> str:
    """A credential for a test: from the file the caller named, else a fresh random one."""
    path = os.environ.get(variable)
    if not path:
        import secrets

        return "A0TEST-" + secrets.token_urlsafe(24)
    with open(path, encoding="ascii") as handle:
        return handle.read().strip()


def new_state_root(test: unittest.TestCase | type, label: str) -> str:
    """A fresh state root (0700); holds the test key as its local-api-key when one is given.

    `test` is the test (or, from setUpClass, its class) whose cleanup removes the root, unless
    ARGUS_A0_STATE_BASE names a folder the caller scans and removes itself."""
    base = os.environ.get("ARGUS_A0_STATE_BASE") or None
    root = tempfile.mkdtemp(prefix=f"a0-{label}-", dir=base)
    if base is None:
        cleanup = test.addClassCleanup if isinstance(test, type) else test.addCleanup
        cleanup(shutil.rmtree, root, ignore_errors=True)
    os.chmod(root, 0o700)
    key = test_key()
    if key is not None:
        fd = os.open(os.path.join(root, "local-api-key"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(key + "\n")
    return root


def plugin_config(root: str, **sidecar) -> dict:
    return {
        "state_root": root,
        "connect_timeout_s": 2,
        "request_timeout_s": 5,
        "stream_idle_timeout_s": 5,
        "sidecar": {"enabled": bool(sidecar), "node": shutil.which("node") or "node", "entry": serve_entry() or "", "ready_timeout_s": 20, "stop_timeout_s": 5, "restart_backoff_initial_s": 0.2, "restart_backoff_max_s": 1, **sidecar},
    }


def dying_with_parent(command: list[str]) -> list[str]:
    from usr.plugins.argus_supervisor.helpers.child_process import dying_with_parent as wrap

    return wrap(command)


class ServeChild:
    """`node dist/bin/argus-supervisor.js serve` on a Unix socket, its output to <root>/serve-test.log."""

    def __init__(self, entry: str, root: str):
        self.root = root
        self.socket_path = os.path.join(root, "run", "serve.sock")
        self.key_file = os.path.join(root, "local-api-key")
        os.makedirs(os.path.dirname(self.socket_path), mode=0o700, exist_ok=True)
        env = {"PATH": os.environ.get("PATH", ""), "ARGUS_SUPERVISOR_STATE_ROOT": root, "ARGUS_SUPERVISOR_SOCKET": self.socket_path}
        self.log = open(os.path.join(root, "serve-test.log"), "ab")
        # Its own session (so a signal to the test's group does not reach it first), and the same
        # parent-death signal the sidecar gives serve: a test run killed outright leaves no serve.
        self.proc = subprocess.Popen(
            dying_with_parent([shutil.which("node") or "node", entry, "serve"]),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=self.log,
            start_new_session=True,
        )

    def wait_ready(self, client, timeout_s: float = 20) -> None:
        from usr.plugins.argus_supervisor.helpers.argus_client import ArgusError

        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"serve exited with {self.proc.returncode}; see {self.log.name}")
            try:
                if client.public_health().get("status") == "ok":
                    return
            except ArgusError:
                pass
            time.sleep(0.1)
        raise AssertionError("serve did not answer /health in time")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def pids_in_group(pgid: int) -> list[int]:
    """Live processes (not zombies) whose process group is `pgid`, read from /proc."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="utf-8") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        state, group = fields[0], int(fields[2])
        if group == pgid and state != "Z":
            found.append(int(name))
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_until(predicate, timeout_s: float, step: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


def files_containing(folder: str, needle: str, skip: set[str]) -> list[str]:
    hits = []
    for base, _dirs, names in os.walk(folder):
        for name in names:
            path = os.path.join(base, name)
            if path in skip or not os.path.isfile(path) or os.path.islink(path):
                continue
            with open(path, "rb") as handle:
                if needle.encode() in handle.read():
                    hits.append(path)
    return hits
