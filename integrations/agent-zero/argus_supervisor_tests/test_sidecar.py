"""The sidecar with a REAL serve: readiness, a SIGKILLed serve restarted, one sidecar per state
root, no secret in the child's arguments or environment, and a host stop (clean, or the host
SIGKILLed) that leaves no process behind, checked in /proc."""
import os
import signal
import subprocess
import sys
import textwrap
import unittest
from unittest import mock

from argus_supervisor_tests import support
from usr.plugins.argus_supervisor.helpers import settings as plugin_settings
from usr.plugins.argus_supervisor.helpers.sidecar import Sidecar, SidecarError, child_environment

SLEEPER = [sys.executable, "-c", "import time; time.sleep(120)"]  # a child that never answers /health

HOST_SCRIPT = textwrap.dedent(
    """
    import signal, sys, threading
    sys.path[:0] = [{standins!r}, {root!r}]
    from usr.plugins.argus_supervisor.helpers import settings
    from usr.plugins.argus_supervisor.helpers.sidecar import Sidecar
    sidecar = Sidecar(settings.from_config({config!r})).start()
    assert sidecar.wait_ready(20), sidecar.status()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # the host stopping: atexit stops the sidecar
    print(sidecar.pid, flush=True)
    threading.Event().wait()
    """
)


class SidecarRuns(unittest.TestCase):
    def setUp(self):
        support.require_serve(self)
        self.root = support.new_state_root(self, "sidecar")
        self.config = support.plugin_config(self.root, enabled=True)
        self.settings = plugin_settings.from_config(self.config)

    def test_ready_restarted_after_sigkill_and_stopped_clean(self):
        sidecar = Sidecar(self.settings).start()
        try:
            self.assertTrue(sidecar.wait_ready(20), sidecar.status())
            first = sidecar.pid
            self.assertEqual(self.settings.client().health()["api_key_source"], "generated_local")
            self.assert_no_secret_in_process(first)
            with self.assertRaises(SidecarError) as caught:
                Sidecar(self.settings).start()  # a second sidecar for the same state root
            self.assertEqual(caught.exception.code, "sidecar_running")

            os.kill(first, signal.SIGKILL)
            self.assertTrue(support.wait_until(lambda: sidecar.pid not in (None, first) and sidecar.state == "ready", 20), sidecar.status())
            self.assertGreaterEqual(sidecar.restarts, 1)
            self.assertEqual(self.settings.client().status()["ok"], True)  # the stale socket was replaced
            second = sidecar.pid
        finally:
            sidecar.stop()
        self.assertFalse(support.alive(second))
        self.assertEqual(support.pids_in_group(second), [])
        self.assertFalse(os.path.exists(self.settings.socket_path))

    def test_a_host_stopping_or_killed_leaves_no_process(self):
        for how in (signal.SIGTERM, signal.SIGKILL):
            with self.subTest(host_signal=how.name):
                root = support.new_state_root(self, f"host-{how.name.lower()}")
                config = support.plugin_config(root, enabled=True)
                script = HOST_SCRIPT.format(standins=support.STANDINS, root=support.ROOT, config=config)
                with open(os.path.join(root, "host.log"), "wb") as log:
                    host = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=log)
                    serve_pid = int(host.stdout.readline())
                    self.assertTrue(support.alive(serve_pid))
                    host.send_signal(how)
                    host.wait(20)
                    host.stdout.close()
                # Clean stop: atexit ends the group. SIGKILL: the kernel's PR_SET_PDEATHSIG does.
                self.assertTrue(support.wait_until(lambda: not support.alive(serve_pid) and not support.pids_in_group(serve_pid), 15), f"left behind: {support.pids_in_group(serve_pid)}")

    def test_no_secret_reaches_the_child_environment(self):
        with self.assertRaises(SidecarError):
            child_environment(self.settings, {"OPENTRAINING_A2A_TOKEN": "x"})
        env = child_environment(self.settings, {"ARGUS_SUPERVISOR_HEARTBEAT_SECONDS": "30"})
        self.assertEqual(sorted(k for k in env if k.startswith("ARGUS")), ["ARGUS_SUPERVISOR_HEARTBEAT_SECONDS", "ARGUS_SUPERVISOR_SOCKET", "ARGUS_SUPERVISOR_STATE_ROOT"])

    def assert_no_secret_in_process(self, pid: int) -> None:
        with open(self.settings.key_file, encoding="ascii") as handle:
            key = handle.read().strip()
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            self.assertNotIn(key.encode(), handle.read())
        with open(f"/proc/{pid}/environ", "rb") as handle:
            environ = handle.read()
        self.assertNotIn(key.encode(), environ)
        names = sorted(item.split(b"=", 1)[0].decode() for item in environ.split(b"\0") if item)
        self.assertEqual([n for n in names if any(s in n for s in ("KEY", "TOKEN", "SECRET", "PASSWORD"))], [])
        # Nothing under the state root holds the key but the key file itself.
        self.assertEqual(support.files_containing(self.root, key, {self.settings.key_file}), [])


class SidecarNeverSignalsAReapedGroup(unittest.TestCase):
    """Once the child is reaped its pid (= its group id) can belong to anyone: a second stop(), or
    the atexit stop after a stop(), must not send it a signal. The child is a plain sleeper
    (no serve needed); os.killpg is wrapped by a recorder that notes whether the group leader was
    still unreaped (running or a zombie of ours) at each call."""

    def setUp(self):
        self.root = support.new_state_root(self, "reaped")
        self.settings = plugin_settings.from_config(support.plugin_config(self.root, enabled=True, ready_timeout_s=60))
        self.calls: list[tuple[int, int, bool]] = []
        real_killpg = os.killpg

        def recording_killpg(pgid, sig):
            self.calls.append((pgid, sig, unreaped_child(pgid)))
            return real_killpg(pgid, sig)

        patcher = mock.patch.object(os, "killpg", recording_killpg)
        patcher.start()
        self.addCleanup(patcher.stop)

    def test_stop_twice_then_atexit_signal_only_a_live_group(self):
        registered = []
        with mock.patch("atexit.register", side_effect=registered.append):
            sidecar = Sidecar(self.settings, command=SLEEPER).start()
            self.addCleanup(sidecar.stop)
            self.assertTrue(support.wait_until(lambda: sidecar.pid is not None, 10), sidecar.status())
            pid = sidecar.pid
            sidecar.stop()
            self.assertFalse(support.alive(pid))
            signalled = [c for c in self.calls if c[0] == pid]
            self.assertIn((pid, signal.SIGTERM, True), signalled)
            sidecar.stop()  # a second stop
            for stop in registered:  # what atexit runs when the host exits
                stop()
            sidecar.start()  # started again: still one atexit registration
            self.assertTrue(support.wait_until(lambda: sidecar.pid not in (None, pid), 10), sidecar.status())
            sidecar.stop()
        self.assertEqual([c for c in self.calls if not c[2]], [], f"signalled a reaped group: {self.calls}")
        self.assertEqual(registered, [sidecar.stop])
        self.assertEqual([c for c in self.calls if c[0] == pid], signalled)  # nothing more to the first pid
        self.assertIsNone(sidecar._proc)


class SidecarStartsWithoutPreexecFn(unittest.TestCase):
    """preexec_fn runs Python between fork and exec, unsafe in a threaded host: the child is
    started in its own session by Popen itself, and a fresh interpreter sets the parent-death
    signal and execs the command in place (helpers/child_process.py)."""

    def setUp(self):
        self.root = support.new_state_root(self, "no-preexec")
        self.settings = plugin_settings.from_config(support.plugin_config(self.root, enabled=True, ready_timeout_s=60))

    def test_popen_gets_no_preexec_fn_and_the_command_runs_in_place(self):
        seen = []
        real_popen = subprocess.Popen

        def recording_popen(*args, **kwargs):
            seen.append(kwargs)
            return real_popen(*args, **kwargs)

        with mock.patch.object(subprocess, "Popen", recording_popen):
            sidecar = Sidecar(self.settings, command=SLEEPER).start()
            self.addCleanup(sidecar.stop)
            self.assertTrue(support.wait_until(lambda: sidecar.pid is not None and _cmdline(sidecar.pid) == SLEEPER, 10), sidecar.status())
            pid = sidecar.pid
            sidecar.stop()
        self.assertEqual(len(seen), 1)
        self.assertNotIn("preexec_fn", seen[0])
        self.assertIs(seen[0]["start_new_session"], True)
        self.assertFalse(support.alive(pid))

    def test_the_trampoline_starts_nothing_when_its_parent_is_not_the_one_named(self):
        from usr.plugins.argus_supervisor.helpers.child_process import TRAMPOLINE

        done = subprocess.run([sys.executable, "-I", "-S", "-c", TRAMPOLINE, "1", sys.executable, "-c", "print('started')"], capture_output=True, timeout=20)
        self.assertEqual((done.returncode, done.stdout), (70, b""))


def _cmdline(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return [part.decode() for part in handle.read().split(b"\0") if part]
    except OSError:
        return []


def unreaped_child(pid: int) -> bool:
    """True if `pid` is a child of this process whose exit status nobody has collected yet."""
    try:
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return False
    return True


if __name__ == "__main__":
    unittest.main()
