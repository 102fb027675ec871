"""Runs `argus-supervisor serve` as the host's child on a Unix socket under the state root.

- Never a TCP listener: the child gets ARGUS_SUPERVISOR_SOCKET, so the host keeps its one port.
- No secret in the child's environment or arguments: the environment carries paths and a few
  plain settings only. The credentials come from the host (helpers/authority.py) and reach serve
  as 0600 files named by OPENTRAINING_A2A_TOKEN_FILE / ARGUS_SUPERVISOR_API_KEY_FILE, which serve
  reads once at start; the token file exists only from spawn until serve answers (or exits). With
  no key from the host, serve reads or creates its own 0600 key file under the state root.
- Readiness: the socket answers `GET /health` with 200.
- Restart with back-off when the child dies (doubling, capped; reset after a stable minute).
  A SIGKILLed child leaves its socket file behind; it is removed only when nothing answers on
  it (`serve`'s owner lock guards the state root itself).
- A clean stop: SIGTERM to the child's own process group (it was started in a new session, so
  anything it started goes too), SIGKILL after the stop timeout. A group is signalled only while
  its leader is not yet reaped (running, or a zombie we hold): once reaped, its pid (the group id)
  may belong to an unrelated process, so nothing is sent to it again. Registered with atexit once, and the
  child also gets SIGTERM from the kernel if the thread that started it dies (PR_SET_PDEATHSIG, set
  by a fresh interpreter that then execs serve: helpers/child_process.py), so a host killed
  outright leaves no orphan.
- One instance per state root: an exclusive flock on <state root>/plugin/sidecar.lock.
"""
from __future__ import annotations

import atexit
import fcntl
import os
import shutil
import signal
import socket
import stat
import subprocess
import threading
import time

from usr.plugins.argus_supervisor.helpers import authority
from usr.plugins.argus_supervisor.helpers.argus_client import ArgusError
from usr.plugins.argus_supervisor.helpers.child_process import dying_with_parent, leader_exited as _leader_exited, leader_reaped as _leader_reaped, wait_leader_exit as _wait_leader_exit
from usr.plugins.argus_supervisor.helpers.settings import Settings

# Plain settings the operator may pass through to `serve`; anything that looks like a secret is refused.
SECRET_NAME = ("KEY", "TOKEN", "SECRET", "PASSWORD")
STABLE_RUN_S = 60.0
LOG_LIMIT_BYTES = 5 * 1024 * 1024


class SidecarError(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code


# The only secret-named variables the child gets: paths of files under the plugin's own folder.
SECRET_FILE_VARIABLES = ("OPENTRAINING_A2A_TOKEN_FILE", "ARGUS_SUPERVISOR_API_KEY_FILE")


def child_environment(settings: Settings, extra: dict | None = None, secret_files: dict | None = None) -> dict[str, str]:
    """The whole environment of `serve`: nothing inherited but PATH and locale."""
    env = {k: os.environ[k] for k in ("PATH", "LANG", "LC_ALL", "TZ") if k in os.environ}
    for name, value in (extra or {}).items():
        if any(part in name.upper() for part in SECRET_NAME):
            raise SidecarError("secret_in_environment", f"{name} looks like a secret; serve reads its key from the key file")
        env[str(name)] = str(value)
    for name, path in (secret_files or {}).items():
        if name not in SECRET_FILE_VARIABLES or os.path.dirname(path) != settings.plugin_state_dir:
            raise SidecarError("secret_in_environment", f"{name} is not a credential file of this plugin")
        env[name] = path
    env["ARGUS_SUPERVISOR_STATE_ROOT"] = settings.state_root
    env["ARGUS_SUPERVISOR_SOCKET"] = settings.socket_path
    return env


_unlink = authority.unlink_if_there


class Sidecar:
    def __init__(self, settings: Settings, command: list[str] | None = None, env_extra: dict | None = None):
        cfg = settings.sidecar
        self.settings = settings
        self.command = command or [str(cfg.get("node", "node")), str(cfg.get("entry", "/opt/argus-supervisor/dist/bin/argus-supervisor.js")), "serve"]
        self.env = child_environment(settings, env_extra if env_extra is not None else cfg.get("env"))
        self.ready_timeout_s = float(cfg.get("ready_timeout_s", 30))
        self.stop_timeout_s = float(cfg.get("stop_timeout_s", 10))
        self.backoff_initial_s = float(cfg.get("restart_backoff_initial_s", 1))
        self.backoff_max_s = float(cfg.get("restart_backoff_max_s", 60))
        self.state = "stopped"
        self.restarts = 0
        self.last_exit: int | None = None
        self._proc: subprocess.Popen | None = None
        self._lock_fd: int | None = None
        self._stopping = threading.Event()
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        self._guard = threading.Lock()
        # Held while checking that the leader is unreaped and signalling its group, and while
        # reaping it, so no thread signals a pid another thread has just given back to the kernel.
        self._reap_lock = threading.Lock()
        self._atexit_registered = False
        # The masked view of the credentials the last spawn used (helpers/authority.py).
        self.credentials: dict = {}

    # ---- public ------------------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        proc = self._proc
        return proc.pid if proc and not _leader_exited(proc) else None

    def status(self) -> dict:
        return {"state": self.state, "pid": self.pid, "restarts": self.restarts, "last_exit": self.last_exit, "socket": self.settings.socket_path, "credentials": dict(self.credentials)}

    def start(self) -> "Sidecar":
        with self._guard:
            if self._thread and self._thread.is_alive():
                return self
            for folder in (self.settings.state_root, os.path.dirname(self.settings.socket_path), self.settings.plugin_state_dir):
                os.makedirs(folder, mode=0o700, exist_ok=True)
            self._take_lock()
            self._stopping.clear()
            self.state = "starting"
            self._thread = threading.Thread(target=self._run, name="argus-serve-sidecar", daemon=True)
            self._thread.start()
            if not self._atexit_registered:
                atexit.register(self.stop)
                self._atexit_registered = True
        return self

    def wait_ready(self, timeout_s: float | None = None) -> bool:
        return self._ready.wait(self.ready_timeout_s if timeout_s is None else timeout_s)

    def stop(self) -> None:
        with self._guard:
            self._stopping.set()
            self._terminate()
            if self._thread and self._thread is not threading.current_thread():
                self._thread.join(self.stop_timeout_s + 5)
            self._terminate()  # a child spawned while stop() was on its way (a no-op once reaped)
            self._proc = None
            self._thread = None
            self.state = "stopped"
            self._ready.clear()
            _unlink(self.settings.token_file)
            self._release_lock()

    # ---- the monitor thread (it is the child's parent, for PR_SET_PDEATHSIG) -------------------

    def _run(self) -> None:
        backoff = self.backoff_initial_s
        while not self._stopping.is_set():
            started = time.monotonic()
            try:
                self._spawn()
            except SidecarError as error:
                self.state = f"failed:{error.code}"
            else:
                if self._stopping.is_set():  # stop() came while we were spawning
                    self._terminate()
                    break
                self._watch_until_exit()
            if self._stopping.is_set():
                break
            if time.monotonic() - started >= STABLE_RUN_S:
                backoff = self.backoff_initial_s
            self.state = "restarting"
            self._ready.clear()
            if self._stopping.wait(backoff):
                break
            backoff = min(backoff * 2, self.backoff_max_s)
            self.restarts += 1

    def _spawn(self) -> None:
        self._clear_stale_socket()
        # What the host provides now (a secret may have changed since the last start), as files.
        files, self.credentials = authority.hand_over(self.settings.credential_config, self.settings.token_file, self.settings.host_key_file)
        env = {**self.env, **child_environment(self.settings, None, files)}
        log_path = os.path.join(self.settings.plugin_state_dir, "serve.log")
        if os.path.exists(log_path) and os.path.getsize(log_path) > LOG_LIMIT_BYTES:
            os.replace(log_path, log_path + ".1")
        if shutil.which(self.command[0]) is None:  # the trampoline would only fail after exec
            raise SidecarError("spawn_failed", f"{self.command[0]} is not an executable program")
        log_fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            self._proc = subprocess.Popen(
                dying_with_parent(self.command),
                env=env,
                cwd=self.settings.state_root,
                stdin=subprocess.DEVNULL,
                stdout=log_fd,
                stderr=log_fd,
                start_new_session=True,  # no preexec_fn: helpers/child_process.py says why
                close_fds=True,
            )
        except OSError as error:
            _unlink(self.settings.token_file)
            raise SidecarError("spawn_failed", f"{self.command[0]} could not start ({error.strerror})") from None
        finally:
            os.close(log_fd)

    def _watch_until_exit(self) -> None:
        proc = self._proc
        assert proc is not None
        deadline = time.monotonic() + self.ready_timeout_s
        while not _leader_exited(proc) and not self._stopping.is_set():
            if not self._ready.is_set():
                if self._answers_health():
                    _unlink(self.settings.token_file)  # serve read it at start; it needs it no more
                    self.state = "ready"
                    self._ready.set()
                elif time.monotonic() > deadline:
                    self.state = "failed:not_ready"
                    self._terminate()
                    break
            self._stopping.wait(0.1 if not self._ready.is_set() else 0.5)
        _unlink(self.settings.token_file)
        if self._stopping.is_set():
            return
        self._reap(proc)  # SIGKILLs anything the dead child left in its group, then reaps it

    def _answers_health(self) -> bool:
        try:
            return self.settings.client().public_health().get("status") == "ok"
        except ArgusError:
            return False

    # ---- stopping ----------------------------------------------------------------------------

    def _terminate(self) -> None:
        proc = self._proc
        if proc is None:
            return
        if self._signal_group(proc, signal.SIGTERM):
            if not _wait_leader_exit(proc, self.stop_timeout_s):
                self._signal_group(proc, signal.SIGKILL)
                _wait_leader_exit(proc, None)
        self._reap(proc)

    def _signal_group(self, proc: subprocess.Popen, sig: int) -> bool:
        """Signals the child's group only if its leader is unreaped; False when it is long gone."""
        with self._reap_lock:
            if _leader_reaped(proc):
                return False
            try:
                os.killpg(proc.pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
            return True

    def _reap(self, proc: subprocess.Popen) -> None:
        """Once the leader has exited: SIGKILL what is left in its group (the zombie leader still
        holds the group id), then reap it. Nothing at all if someone reaped it already."""
        with self._reap_lock:
            if _leader_reaped(proc):
                return
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.last_exit = proc.wait()

    def _clear_stale_socket(self) -> None:
        path = self.settings.socket_path
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return
        if not stat.S_ISSOCK(st.st_mode):
            raise SidecarError("socket_path_unusable", f"{path} exists and is not a socket")
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        probe.settimeout(1)
        try:
            probe.connect(path)
        except (ConnectionRefusedError, FileNotFoundError):
            os.unlink(path)  # left by a killed serve: nothing listens there
            return
        except OSError:
            return
        finally:
            probe.close()
        raise SidecarError("socket_in_use", f"something already answers on {path}")

    # ---- one sidecar per state root ----------------------------------------------------------

    def _take_lock(self) -> None:
        path = os.path.join(self.settings.plugin_state_dir, "sidecar.lock")
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise SidecarError("sidecar_running", f"another sidecar runs for {self.settings.state_root}") from None
        self._lock_fd = fd

    def _release_lock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None
