"""Job-loop extension: keeps the sidecar running and one watcher task alive.

The host calls every enabled plugin's job_loop extensions each tick of helpers/job_loop.py
(every 60 s, on the JobLoop DeferredTask's event loop). Each call is cheap and idempotent: the
sidecar starts once per state root, and the watcher is one asyncio task on that loop, replaced
only once it has ended. The blocking socket work runs in a worker thread (asyncio.to_thread).
"""
import asyncio
import threading

from helpers.extension import Extension

from usr.plugins.argus_supervisor.helpers import runtime_state
from usr.plugins.argus_supervisor.helpers import settings as plugin_settings
from usr.plugins.argus_supervisor.helpers.sidecar import Sidecar
from usr.plugins.argus_supervisor.helpers.watcher import EventWatcher


class ArgusSupervisorLoop(Extension):
    async def execute(self, **kwargs):
        settings = plugin_settings.load()
        if settings.sidecar.get("enabled", True):
            runtime_state.ensure_sidecar(settings, Sidecar)
        task = runtime_state.watch_tasks.get(settings.state_root)
        if task is None or task.done():
            watcher = EventWatcher(settings.client(), settings.plugin_state_dir, idle_timeout_s=settings.stream_idle_timeout_s)
            stop = threading.Event()
            task = asyncio.create_task(asyncio.to_thread(watcher.run, stop))
            task.add_done_callback(lambda _t: stop.set())
            runtime_state.watch_tasks[settings.state_root] = task
