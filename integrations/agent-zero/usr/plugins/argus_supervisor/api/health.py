"""POST /api/plugins/argus_supervisor/health: serve's own health, the sidecar's state, and where
the two credentials came from.

`credentials` is helpers/authority.py's masked view, read fresh from the host: for the A2A token
and our key, the name looked up, the source (`deployment_secret`, `configured`,
`generated_local`, `missing`), whether one is there, and the host's mask, never the value.
`api_key_source` is serve's own view of the key it runs with.
"""
from usr.plugins.argus_supervisor.helpers import authority
from usr.plugins.argus_supervisor.helpers import base
from usr.plugins.argus_supervisor.helpers import runtime_state
from usr.plugins.argus_supervisor.helpers import settings as plugin_settings
from usr.plugins.argus_supervisor.helpers.argus_client import ArgusError


class Health(base.ArgusProxyHandler):
    def forward(self, body: dict) -> dict:
        settings = plugin_settings.load()
        config = settings.credential_config
        credentials = {"api_key": authority.key(config).masked(), "a2a_token": authority.token(config).masked()}
        sidecar = runtime_state.sidecar_status()
        try:
            answer = settings.client().health()
        except ArgusError as error:
            return {"ok": False, "error": error.as_dict()["error"], "sidecar": sidecar, "credentials": credentials}
        answer["sidecar"] = sidecar
        answer["credentials"] = credentials
        return answer
