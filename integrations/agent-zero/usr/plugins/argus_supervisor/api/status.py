"""POST /api/plugins/argus_supervisor/status: every campaign and the recent public events."""
from usr.plugins.argus_supervisor.helpers import base


class Status(base.ArgusProxyHandler):
    def forward(self, body: dict) -> dict:
        return self.client().status()
