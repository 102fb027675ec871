"""Stand-in for the host's helpers/secrets.py (agent-zero 2d95cd9): the secrets store the host's
Settings > Secrets edits (`usr/secrets.env`). Only what the plugin calls:
`get_default_secrets_manager()` and `SecretsManager.load_secrets() -> dict[str, str]`, plus the
host's `MASK_VALUE`. Tests put values in STORE; the host parses usr/secrets.env instead."""
from typing import Dict

STORE: Dict[str, str] = {}


class SecretsManager:
    MASK_VALUE = "***"

    def load_secrets(self) -> Dict[str, str]:
        return dict(STORE)


def get_default_secrets_manager() -> SecretsManager:
    return SecretsManager()
