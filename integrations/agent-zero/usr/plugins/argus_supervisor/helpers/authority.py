"""Where the plugin's two credentials come from, the host's way, and their masked view.

- The A2A token (what `serve` sends to OpenTraining) and our API key (what this plugin sends to
  `serve`) are looked up by NAME, never stored in the plugin's config: first the host process's
  environment (a deployment secret, e.g. a Space secret: `deployment_secret`), then the host's
  secrets store (Settings > Secrets, `usr/secrets.env` through helpers/secrets.py
  `get_default_secrets_manager().load_secrets()`: `configured`). The key has one more source: with
  neither, `serve` makes its own 0600 key file (`generated_local`). A token found nowhere is
  `missing` (a token cannot be invented).
- The source names are the host's own diagnostics (host-token-authority: `deployment_secret`,
  `configured`, `generated_local`, `missing`; `persisted_environment`, the host's `usr/.env`, is
  loaded into the same process environment and so reads here as `deployment_secret`).
- A value is shown only as the host's settings mask (helpers/settings.py API_KEY_PLACEHOLDER,
  twelve asterisks) or as the empty string when absent: presence and source, never the value,
  its length or a hash.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable, Mapping

# The host's mask for a stored key (helpers/settings.py API_KEY_PLACEHOLDER).
MASK = "************"
DEFAULT_TOKEN_NAME = "OPENTRAINING_A2A_TOKEN"
DEFAULT_KEY_NAME = "ARGUS_SUPERVISOR_API_KEY"
# Names we look up must be plain variable names (they are also shown in settings and health);
# any other name finds nothing, so a typo shows as `missing` rather than failing every route.
_NAME_CHARS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


@dataclass(frozen=True)
class Credential:
    name: str
    source: str  # deployment_secret | configured | generated_local | missing
    value: str | None = field(default=None, repr=False)

    @property
    def host_provided(self) -> bool:
        return self.value is not None

    def masked(self) -> dict:
        """What settings and health show: the name looked up, where it came from, the mask."""
        present = self.value is not None or self.source == "generated_local"
        return {"name": self.name, "source": self.source, "present": present, "value": MASK if present else ""}

    def __repr__(self) -> str:  # never the value, even in a traceback or a log of the object
        return f"Credential(name={self.name!r}, source={self.source!r})"


def host_secrets() -> dict[str, str]:
    """The host's secrets store (empty when the host has none or it cannot be read)."""
    try:
        from helpers.secrets import get_default_secrets_manager
    except ImportError:
        return {}
    try:
        return dict(get_default_secrets_manager().load_secrets() or {})
    except Exception:  # a broken secrets file is the host's to report; ours is only "not there"
        return {}


def resolve(name: str, *, local_fallback: bool, environ: Mapping[str, str] | None = None, secrets: Callable[[], Mapping[str, str]] = host_secrets) -> Credential:
    """The credential called `name`: environment, then the host's secrets, then (the key only)
    serve's own generated key; a blank value counts as unset."""
    fallback = Credential(name, "generated_local" if local_fallback else "missing")
    if not name or not set(name) <= _NAME_CHARS:
        return fallback  # not a variable name (a typo in the settings): nothing is looked up
    env = os.environ if environ is None else environ
    value = (env.get(name) or "").strip()
    if value:
        return Credential(name, "deployment_secret", value)
    value = str(secrets().get(name) or "").strip()
    if value:
        return Credential(name, "configured", value)
    return fallback


def names(config: dict | None) -> tuple[str, str]:
    """The names the plugin's config says to look up: (token name, key name)."""
    section = (config or {}).get("credential_names") or {}
    return str(section.get("a2a") or DEFAULT_TOKEN_NAME), str(section.get("serve") or DEFAULT_KEY_NAME)


def token(config: dict | None, **kwargs) -> Credential:
    return resolve(names(config)[0], local_fallback=False, **kwargs)


def key(config: dict | None, **kwargs) -> Credential:
    return resolve(names(config)[1], local_fallback=True, **kwargs)


def write_private(path: str, value: str) -> None:
    """`value` into `path`, 0600, atomically (a unique temp file, fsynced, renamed into place)."""
    folder = os.path.dirname(path)
    temp = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(value + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass
        raise


def unlink_if_there(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def hand_over(config: dict, token_file: str, key_file: str) -> tuple[dict[str, str], dict]:
    """For the sidecar: what the host provides, written to 0600 files, as the variables that name
    them (OPENTRAINING_A2A_TOKEN_FILE, ARGUS_SUPERVISOR_API_KEY_FILE), and the masked view. A file
    whose credential the host no longer provides is removed."""
    found_token, found_key = token(config), key(config)
    files = {}
    for credential, path, variable in ((found_token, token_file, "OPENTRAINING_A2A_TOKEN_FILE"), (found_key, key_file, "ARGUS_SUPERVISOR_API_KEY_FILE")):
        if credential.value is not None:
            write_private(path, credential.value)
            files[variable] = path
        else:
            unlink_if_there(path)
    return files, {"a2a_token": found_token.masked(), "api_key": found_key.masked()}
