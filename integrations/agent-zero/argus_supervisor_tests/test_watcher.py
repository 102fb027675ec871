"""The watcher raises each NEEDS_YOU / CRITICAL once across restarts of the host and of serve.
serve is SIMULATED here (fake_serve.py); the notifications go to the host stand-in."""
import asyncio
import os
import secrets
import unittest

from argus_supervisor_tests import support
from argus_supervisor_tests.fake_serve import FakeServe, event
from helpers import notification, plugins
from usr.plugins.argus_supervisor.helpers.argus_client import ArgusClient
from usr.plugins.argus_supervisor.helpers.watcher import EventWatcher, host_notify


def key_for(root: str) -> str:
    path = os.path.join(root, "local-api-key")
    if not os.path.exists(path):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, secrets.token_urlsafe(32).encode())
        os.close(fd)
    with open(path, encoding="ascii") as handle:
        return handle.read().strip()


class WatcherOnce(unittest.TestCase):
    def setUp(self):
        notification.SENT.clear()
        self.root = support.new_state_root(self, "watch")
        self.key = key_for(self.root)
        self.socket_path = os.path.join(self.root, "fake.sock")
        self.state_dir = os.path.join(self.root, "plugin")
        self.feed = [event("c1", 1, "NEEDS_YOU", question="<b>which</b> lr?"), event("c1", 2, "STAGE_TRANSITION"), event("c2", 1, "CRITICAL", reason="lease_lost")]

    def watcher(self) -> EventWatcher:
        return EventWatcher(ArgusClient(self.socket_path, os.path.join(self.root, "local-api-key"), 1, 3), self.state_dir, notify=host_notify, idle_timeout_s=3)

    def ids(self) -> list[str]:
        return [n["id"] for n in notification.SENT]

    def test_each_raised_once_across_host_and_serve_restarts(self):
        serve = FakeServe(self.socket_path, self.key, self.feed)
        try:
            self.watcher().follow_once()
            self.assertEqual(self.ids(), ["argus_supervisor:c1:1", "argus_supervisor:c2:1"])
            first = notification.SENT[0]
            self.assertEqual((first["type"], first["priority"]), (notification.NotificationType.WARNING, notification.NotificationPriority.HIGH))
            self.assertEqual(first["detail"], "&lt;b&gt;which&lt;/b&gt; lr?")  # remote text escaped, never markup
            self.assertEqual(notification.SENT[1]["type"], notification.NotificationType.ERROR)
            # A live event after the cursor: replayed by the stream after Last-Event-ID, and in status.
            self.feed.append(event("c2", 2, "NEEDS_YOU", question="go on?"))
            self.watcher().follow_once()  # also a host restart: a new watcher reads the cursor file
            self.assertEqual(self.ids()[2:], ["argus_supervisor:c2:2"])
            self.watcher().follow_once()  # a host restart with nothing new
            self.assertEqual(len(notification.SENT), 3)
            self.assertTrue(any("last=c2:2" in r for r in serve.requests), serve.requests)
        finally:
            serve.stop()
        # While serve (and the host) are down, one more; serve restarts without its memory.
        self.feed.append(event("c1", 3, "CRITICAL", reason="remote_unavailable"))
        self.feed.append(event("c1", 4, "ATTEMPT_COMPLETED"))
        serve = FakeServe(self.socket_path, self.key, self.feed)
        try:
            self.watcher().follow_once()
            self.watcher().follow_once()
        finally:
            serve.stop()
        self.assertEqual(self.ids(), ["argus_supervisor:c1:1", "argus_supervisor:c2:1", "argus_supervisor:c2:2", "argus_supervisor:c1:3"])
        self.assertEqual(oct(os.stat(os.path.join(self.state_dir, "watch-cursor.json")).st_mode & 0o777), "0o600")

    def test_the_job_loop_extension_keeps_one_watcher_task(self):
        from usr.plugins.argus_supervisor.extensions.python.job_loop._50_argus_supervisor import ArgusSupervisorLoop
        from usr.plugins.argus_supervisor.helpers import runtime_state

        serve = FakeServe(self.socket_path, self.key, self.feed)
        plugins.CONFIGS["argus_supervisor"] = {"state_root": self.root, "socket_path": self.socket_path, "request_timeout_s": 3, "stream_idle_timeout_s": 3, "sidecar": {"enabled": False}}

        async def host_ticks():
            await ArgusSupervisorLoop(agent=None).execute()
            task = runtime_state.watch_tasks[self.root]
            await ArgusSupervisorLoop(agent=None).execute()  # the next tick keeps the same task
            self.assertIs(runtime_state.watch_tasks[self.root], task)
            for _ in range(50):
                if len(notification.SENT) >= 2:
                    break
                await asyncio.sleep(0.1)
            task.cancel()  # the host stopping: its done callback stops the thread's loop

        try:
            asyncio.run(host_ticks())
        finally:
            runtime_state.watch_tasks.clear()
            serve.stop()
        self.assertEqual(self.ids(), ["argus_supervisor:c1:1", "argus_supervisor:c2:1"])


if __name__ == "__main__":
    unittest.main()
