"""POST /api/plugins/argus_supervisor/campaign_action: one action on one campaign.

The fenced mutations need the `epoch` the person saw; serve refuses a stale one
(`lease_stale_epoch`), and that refusal is passed through with its status.
"""
from usr.plugins.argus_supervisor.helpers import base


class CampaignAction(base.ArgusProxyHandler):
    def forward(self, body: dict) -> dict:
        key = base.idempotency_key(body)
        return self.client().campaign_action(body, idempotency_key=key)
