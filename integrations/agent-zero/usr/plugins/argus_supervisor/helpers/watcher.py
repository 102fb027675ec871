"""Follows serve's public events and raises the host's notification for NEEDS_YOU and CRITICAL,
each exactly once, across restarts of the host and of serve.

- Event ids are `<campaign_id>:<seq>`, stable and never reused (docs/api.md "Public events"), so
  the cursor is the highest seq handled per campaign, kept in <state root>/plugin/watch-cursor.json
  (0600, written to a temp file, fsynced, renamed).
- On each (re)connect it first reads `status` (the feed serve still holds, which survives serve's
  restart) and handles what is newer than the cursor, then follows the stream with
  `Last-Event-ID`. So an event raised while the host was down is raised after it comes back, and
  one already handled is not raised again.
- The notification is raised before the cursor is saved, with the event id as the host's
  notification id: a crash between the two raises it again after the restart, where the host's
  notification list (kept in memory) no longer has it, and a second raise in one process updates
  the same notification instead of adding one.
"""
from __future__ import annotations

import html
import json
import os
import threading
from typing import Callable

from usr.plugins.argus_supervisor.helpers.argus_client import ArgusClient, ArgusError

NOTIFY_KINDS = ("NEEDS_YOU", "CRITICAL")
CURSOR_FILE = "watch-cursor.json"
DETAIL_LIMIT = 300

Notify = Callable[[dict], None]


def split_id(event_id: str) -> tuple[str, int] | None:
    campaign, sep, seq = str(event_id).rpartition(":")
    if not sep or not campaign or not seq.isdigit():
        return None
    return campaign, int(seq)


class Cursor:
    def __init__(self, folder: str):
        self.path = os.path.join(folder, CURSOR_FILE)
        self.seen: dict[str, int] = {}
        self.last_event_id: str | None = None
        self._load()

    def _load(self) -> None:
        try:
            with open(self.path, encoding="utf-8") as handle:
                data = json.load(handle)
        except FileNotFoundError:
            return
        except ValueError:
            # A damaged cursor: start over (notifications may repeat once) rather than go silent.
            return
        self.seen = {str(k): int(v) for k, v in dict(data.get("seen", {})).items()}
        self.last_event_id = data.get("last_event_id")

    def is_new(self, event_id: str) -> bool:
        parts = split_id(event_id)
        return parts is not None and parts[1] > self.seen.get(parts[0], 0)

    def advance(self, event_id: str) -> None:
        parts = split_id(event_id)
        if parts is None:
            return
        self.seen[parts[0]] = max(parts[1], self.seen.get(parts[0], 0))
        self.last_event_id = event_id
        self._save()

    def _save(self) -> None:
        folder = os.path.dirname(self.path)
        os.makedirs(folder, mode=0o700, exist_ok=True)
        temp = f"{self.path}.{os.getpid()}.tmp"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump({"version": 1, "seen": self.seen, "last_event_id": self.last_event_id}, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, self.path)


def host_notify(event: dict) -> None:
    """Raises the host's notification (helpers/notification.py NotificationManager.send_notification)."""
    from helpers.notification import NotificationManager, NotificationPriority, NotificationType

    NotificationManager.send_notification(**notification_fields(event, NotificationType, NotificationPriority))


def notification_fields(event: dict, types, priorities) -> dict:
    kind = event.get("kind")
    campaign = str(event.get("campaign_id", ""))
    data = event.get("data") if isinstance(event.get("data"), dict) else {}
    if kind == "NEEDS_YOU":
        title = f"Argus: campaign {campaign} needs you"
        # The question is the remote's words: untrusted, so escaped (detail is HTML) and bounded.
        detail = html.escape(str(data.get("question") or "")[:DETAIL_LIMIT])
        type_, priority = types.WARNING, priorities.HIGH
    else:
        title = f"Argus: CRITICAL on campaign {campaign}"
        detail = html.escape(str(data.get("reason") or ""))
        type_, priority = types.ERROR, priorities.HIGH
    return {
        "type": type_,
        "priority": priority,
        "message": str(event.get("summary") or kind),
        "title": title,
        "detail": detail,
        "display_time": 30,
        "group": "argus_supervisor",
        "id": f"argus_supervisor:{event.get('id')}",
    }


class EventWatcher:
    def __init__(self, client: ArgusClient, state_dir: str, notify: Notify = host_notify, idle_timeout_s: float = 40.0):
        self.client = client
        self.cursor = Cursor(state_dir)
        self.notify = notify
        self.idle_timeout_s = idle_timeout_s
        self.raised = 0

    def handle(self, event: dict) -> None:
        event_id = event.get("id")
        if not isinstance(event_id, str) or not self.cursor.is_new(event_id):
            return
        if event.get("kind") in NOTIFY_KINDS:
            self.notify(event)
            self.raised += 1
        self.cursor.advance(event_id)

    def catch_up(self) -> None:
        for event in self.client.status().get("events", []):
            if isinstance(event, dict):
                self.handle(event)

    def follow_once(self, stop: threading.Event | None = None) -> None:
        """One connection: catch up, then follow until serve ends the stream (or `stop`)."""
        self.catch_up()
        for frame in self.client.events(last_event_id=self.cursor.last_event_id, idle_timeout_s=self.idle_timeout_s):
            if stop is not None and stop.is_set():
                return
            if frame["event"] == "public" and isinstance(frame["data"], dict):
                self.handle(frame["data"])
            elif frame["event"] == "reconnect":
                return

    def run(self, stop: threading.Event, backoff_initial_s: float = 1.0, backoff_max_s: float = 30.0) -> None:
        """Follows forever: reconnects at once after a normal end, with back-off after a failure."""
        backoff = backoff_initial_s
        while not stop.is_set():
            try:
                self.follow_once(stop)
                backoff = backoff_initial_s
            except ArgusError as error:
                if error.code == "argus_timeout":
                    continue  # a silent stream: reconnect now
                if stop.wait(backoff):
                    return
                backoff = min(backoff * 2, backoff_max_s)
