"""The one shared handler base. Each api/<route>.py imports this *module* (`from ... import base`)
and subclasses `base.ArgusProxyHandler`, so the only ApiHandler subclass among that file's
members is its own: the host's loader (helpers/modules.py load_classes_from_file) takes the
alphabetically last subclass it finds, which would otherwise be this base.

Auth and CSRF are the host's defaults (requires_auth True, requires_csrf = requires_auth): the
browser's session and token, never our key. The key stays in the key file and goes only to serve.
"""
from __future__ import annotations

import json

from helpers.api import ApiHandler, Request, Response

from usr.plugins.argus_supervisor.helpers import settings as plugin_settings
from usr.plugins.argus_supervisor.helpers.argus_client import ArgusClient, ArgusError

# Our refusals keep their HTTP status; the client's own failures map to these.
CLIENT_ERROR_STATUS = {"key_file_missing": 503, "key_file_unsafe": 503, "argus_unreachable": 503, "argus_timeout": 504, "argus_bad_answer": 502}


class ArgusProxyHandler(ApiHandler):
    """Forwards the request body to the same route of serve and answers what serve answered."""

    route = ""

    def client(self) -> ArgusClient:
        return plugin_settings.load().client()

    async def process(self, input: dict, request: Request) -> dict | Response:
        import asyncio

        try:
            return await asyncio.to_thread(self.forward, dict(input or {}))
        except ArgusError as error:
            return refusal(error)

    def forward(self, body: dict) -> dict:
        raise NotImplementedError


def refusal(error: ArgusError) -> Response:
    status = error.status or CLIENT_ERROR_STATUS.get(error.code, 502)
    return Response(response=json.dumps(error.as_dict()), status=status, mimetype="application/json")


def idempotency_key(body: dict) -> str | None:
    """An `idempotency_key` field of the host's body becomes our Idempotency-Key header."""
    value = body.pop("idempotency_key", None)
    return value if isinstance(value, str) and value else None
