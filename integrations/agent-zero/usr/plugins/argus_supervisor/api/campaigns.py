"""POST /api/plugins/argus_supervisor/campaigns: list, get, create, history (body as in docs/api.md)."""
from usr.plugins.argus_supervisor.helpers import base


class Campaigns(base.ArgusProxyHandler):
    def forward(self, body: dict) -> dict:
        key = base.idempotency_key(body)
        return self.client().campaigns(body, idempotency_key=key)
