"""The plugin's long-lived objects, one per host process: the sidecar and the watcher task.

Kept in a helpers module (not in the extension file) so that the host re-reading the extension
every job-loop tick does not forget them, as the host's own _email_integration keeps its poll
tasks in helpers/handler.py.
"""
from __future__ import annotations

import threading
from typing import Any

_lock = threading.Lock()
sidecars: dict[str, Any] = {}  # state root -> Sidecar
watch_tasks: dict[str, Any] = {}  # state root -> asyncio.Task


def sidecar_status() -> dict:
    with _lock:
        if not sidecars:
            return {"state": "not_started"}
        return next(iter(sidecars.values())).status()


def ensure_sidecar(settings, factory) -> Any:
    """The sidecar of this state root, started once (a second start is a no-op)."""
    with _lock:
        current = sidecars.get(settings.state_root)
        if current is None:
            current = factory(settings)
            sidecars[settings.state_root] = current
        current.start()
        return current


def stop_all() -> None:
    with _lock:
        items = list(sidecars.values())
        sidecars.clear()
    for sidecar in items:
        sidecar.stop()
    for task in list(watch_tasks.values()):
        task.cancel()
    watch_tasks.clear()
