"""Stand-in for the host's helpers/plugins.py (agent-zero 2d95cd9): get_plugin_config only.
Tests set CONFIGS[plugin_name]; the host resolves config.json / default_config.yaml instead."""
CONFIGS: dict = {}


def get_plugin_config(plugin_name: str, agent=None, project_name: str | None = None, agent_profile: str | None = None):
    return CONFIGS.get(plugin_name)
