"""POST /api/plugins/argus_supervisor/health: serve's own health plus the sidecar's state.

`api_key_source` is serve's (`generated_local`, `deployment_secret`, ...): where the key came
from, never the key.
"""
from usr.plugins.argus_supervisor.helpers import base
from usr.plugins.argus_supervisor.helpers import runtime_state
from usr.plugins.argus_supervisor.helpers.argus_client import ArgusError


class Health(base.ArgusProxyHandler):
    def forward(self, body: dict) -> dict:
        sidecar = runtime_state.sidecar_status()
        try:
            answer = self.client().health()
        except ArgusError as error:
            return {"ok": False, "error": error.as_dict()["error"], "sidecar": sidecar}
        answer["sidecar"] = sidecar
        return answer
