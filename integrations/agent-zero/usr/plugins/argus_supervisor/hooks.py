"""Host lifecycle hooks (helpers/plugins.py call_plugin_hook). Nothing is installed at run time:
Node and argus-supervisor come with the image (docs/agent-zero.md)."""


def install():
    """Called by the host's plugin installer after copying the plugin: only checks, never installs."""
    import os
    import shutil

    from usr.plugins.argus_supervisor.helpers import settings as plugin_settings

    sidecar = plugin_settings.load().sidecar
    missing = [p for p in (sidecar.get("entry"),) if p and not os.path.exists(p)]
    if not shutil.which(str(sidecar.get("node", "node"))):
        missing.append("node")
    return {"ok": not missing, "missing": missing}


# A field whose name holds a secret's word (a2a_token, api_key, ...): never saved to config.json.
# The host's plugin API returns config.json as saved (api/plugins.py get_config), so a value
# there would be shown unmasked; the credentials live in the host's environment or secrets
# store, and this plugin's config holds only their names (credential_names).
_SECRET_WORDS = ("apikey", "api_key", "token", "secret", "password", "passwd")


def _without_secrets(value):
    if isinstance(value, dict):
        return {k: _without_secrets(v) for k, v in value.items() if not any(w in str(k).lower() for w in _SECRET_WORDS)}
    if isinstance(value, list):
        return [_without_secrets(v) for v in value]
    return value


def save_plugin_config(settings=None, **kwargs):
    """The host's save hook (helpers/plugins.py save_plugin_config calls it before writing config.json)."""
    return _without_secrets(settings) if isinstance(settings, dict) else settings
