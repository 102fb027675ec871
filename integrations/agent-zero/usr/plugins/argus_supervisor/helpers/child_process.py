"""Starting `serve` so that it dies with its parent, and telling whether it has been reaped.

Why no preexec_fn: Python documents it as unsafe when the parent has threads (the child runs
Python code between fork and exec, where a lock another thread held stays locked forever), and the
host has many. Instead the child is started as a fresh interpreter (a whole fork+exec, so no
inherited lock matters) running a few lines that ask the kernel for PR_SET_PDEATHSIG (SIGTERM when
the thread that started it ends), check the parent did not die first, and exec `serve` in place:
same pid, and `serve`'s own argv in /proc. The session (its own process group) comes from
Popen(start_new_session=True), which the subprocess module does without Python code in the child.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

PR_SET_PDEATHSIG = 1
# argv: <parent pid> <program> <args...>. Isolated (-I) and without site (-S): nothing from the
# environment or the host's packages is imported; ctypes, os, signal and sys are the stdlib's.
TRAMPOLINE = (
    "import ctypes, os, signal, sys\n"
    "ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)\n"
    "if os.getppid() != int(sys.argv[1]):\n"
    "    sys.exit(70)  # the parent died before prctl took effect: start nothing\n"
    "os.execvp(sys.argv[2], sys.argv[2:])\n"
)


def dying_with_parent(command: list[str]) -> list[str]:
    """`command`, to be run so it gets SIGTERM when the calling thread's process ends."""
    if not sys.executable:
        raise OSError("no Python interpreter to start the child with")
    return [sys.executable, "-I", "-S", "-c", TRAMPOLINE, str(os.getpid()), *command]


def leader_reaped(proc: subprocess.Popen) -> bool:
    """True once the child's exit status was collected (by us, or by anyone else)."""
    if proc.returncode is not None:
        return True
    try:
        os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True  # not our child any more: reaped elsewhere
    return False


def leader_exited(proc: subprocess.Popen) -> bool:
    """True when the child has exited, without reaping it (WNOWAIT), so its pid stays reserved."""
    if proc.returncode is not None:
        return True
    try:
        return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def wait_leader_exit(proc: subprocess.Popen, timeout_s: float | None) -> bool:
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    while not leader_exited(proc):
        if deadline is not None and time.monotonic() >= deadline:
            return False
        time.sleep(0.02)
    return True
