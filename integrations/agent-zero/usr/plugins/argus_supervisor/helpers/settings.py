"""The plugin's settings, resolved once per use: the host's config (helpers.plugins.get_plugin_config:
project/agent config.json, then usr/plugins/argus_supervisor/config.json, then default_config.yaml)
turned into paths and a client. No key is ever part of the settings: only the key file's path.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from usr.plugins.argus_supervisor.helpers.argus_client import ArgusClient

PLUGIN_NAME = "argus_supervisor"
DEFAULT_STATE_ROOT = "/a0/usr/argus-supervisor"


@dataclass(frozen=True)
class Settings:
    state_root: str
    socket_path: str
    key_file: str
    connect_timeout_s: float = 2.0
    request_timeout_s: float = 15.0
    stream_idle_timeout_s: float = 40.0
    sidecar: dict = field(default_factory=dict)

    @property
    def plugin_state_dir(self) -> str:
        """This plugin's own files (the watcher's cursor, the sidecar's lock and log)."""
        return os.path.join(self.state_root, "plugin")

    def client(self) -> ArgusClient:
        return ArgusClient(self.socket_path, self.key_file, self.connect_timeout_s, self.request_timeout_s)


def from_config(config: dict | None) -> Settings:
    config = config or {}
    root = str(config.get("state_root") or DEFAULT_STATE_ROOT)
    return Settings(
        state_root=root,
        socket_path=str(config.get("socket_path") or os.path.join(root, "run", "serve.sock")),
        key_file=str(config.get("key_file") or os.path.join(root, "local-api-key")),
        connect_timeout_s=float(config.get("connect_timeout_s", 2)),
        request_timeout_s=float(config.get("request_timeout_s", 15)),
        stream_idle_timeout_s=float(config.get("stream_idle_timeout_s", 40)),
        sidecar=dict(config.get("sidecar") or {}),
    )


def load() -> Settings:
    """The host's resolved config for this plugin (imported lazily: only the host has it)."""
    from helpers import plugins

    return from_config(plugins.get_plugin_config(PLUGIN_NAME))
