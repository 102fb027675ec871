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
