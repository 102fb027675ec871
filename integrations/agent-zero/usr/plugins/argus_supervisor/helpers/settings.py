"""The plugin's settings, resolved once per use: the host's config (helpers.plugins.get_plugin_config:
project/agent config.json, then usr/plugins/argus_supervisor/config.json, then default_config.yaml)
turned into paths and a client. No key is ever part of the settings: only the key file's path
and the NAMES of the two credentials (helpers/authority.py resolves them from the host).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from usr.plugins.argus_supervisor.helpers import authority
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
    # (token name, key name): what helpers/authority.py looks up in the host's environment/secrets.
    credential_names: tuple = (authority.DEFAULT_TOKEN_NAME, authority.DEFAULT_KEY_NAME)

    @property
    def plugin_state_dir(self) -> str:
        """This plugin's own files (the watcher's cursor, the sidecar's lock and log)."""
        return os.path.join(self.state_root, "plugin")

    @property
    def token_file(self) -> str:
        """Where the sidecar hands serve the A2A token (0600; there from spawn until serve is ready)."""
        return os.path.join(self.plugin_state_dir, "a2a-token")

    @property
    def host_key_file(self) -> str:
        """Where the sidecar puts a key the host provides (0600); serve and this client read it."""
        return os.path.join(self.plugin_state_dir, "api-key")

    @property
    def credential_config(self) -> dict:
        return {"credential_names": {"a2a": self.credential_names[0], "serve": self.credential_names[1]}}

    def client(self) -> ArgusClient:
        return ArgusClient(self.socket_path, self.key_file, self.connect_timeout_s, self.request_timeout_s)


def from_config(config: dict | None) -> Settings:
    config = config or {}
    root = str(config.get("state_root") or DEFAULT_STATE_ROOT)
    sidecar = dict(config.get("sidecar") or {})
    # The key file: one set explicitly; else, when our sidecar runs serve and the host provides
    # the key, the file the sidecar writes it to; else serve's own generated key.
    key_file = config.get("key_file") or ""
    if not key_file and sidecar.get("enabled", True) and authority.key(config).host_provided:
        key_file = os.path.join(root, "plugin", "api-key")
    return Settings(
        state_root=root,
        socket_path=str(config.get("socket_path") or os.path.join(root, "run", "serve.sock")),
        key_file=str(key_file or os.path.join(root, "local-api-key")),
        connect_timeout_s=float(config.get("connect_timeout_s", 2)),
        request_timeout_s=float(config.get("request_timeout_s", 15)),
        stream_idle_timeout_s=float(config.get("stream_idle_timeout_s", 40)),
        sidecar=sidecar,
        credential_names=authority.names(config),
    )


def load() -> Settings:
    """The host's resolved config for this plugin (imported lazily: only the host has it)."""
    from helpers import plugins

    return from_config(plugins.get_plugin_config(PLUGIN_NAME))
