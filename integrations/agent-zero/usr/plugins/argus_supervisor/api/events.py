"""POST /api/plugins/argus_supervisor/events: the public events after a cursor, as one JSON answer.

The host's handlers answer once, so the live stream is not relayed: this reads serve's feed with
`Last-Event-ID: <after>` for at most `wait_s` seconds (0-10, default 2) and answers the public
frames that came, with `cursor`, the id to send as `after` next time. Body: `{after?, campaign_id?, wait_s?}`.
"""
import time

from usr.plugins.argus_supervisor.helpers import base
from usr.plugins.argus_supervisor.helpers.argus_client import ArgusError

MAX_WAIT_S = 10.0


class Events(base.ArgusProxyHandler):
    def forward(self, body: dict) -> dict:
        after = body.get("after") if isinstance(body.get("after"), str) else None
        campaign_id = body.get("campaign_id") if isinstance(body.get("campaign_id"), str) else None
        try:
            wait_s = min(max(float(body.get("wait_s", 2)), 0.0), MAX_WAIT_S)
        except (TypeError, ValueError):
            wait_s = 2.0
        events: list = []
        deadline = time.monotonic() + wait_s
        client = self.client()
        try:
            for frame in client.events(last_event_id=after, campaign_id=campaign_id, idle_timeout_s=max(wait_s, 0.2)):
                if frame["event"] == "public" and isinstance(frame["data"], dict):
                    events.append(frame["data"])
                if time.monotonic() >= deadline or frame["event"] == "reconnect":
                    break
        except ArgusError as error:
            if error.code != "argus_timeout":  # silence until the deadline is the normal end
                raise
        cursor = events[-1]["id"] if events else after
        return {"ok": True, "events": events, "cursor": cursor}
