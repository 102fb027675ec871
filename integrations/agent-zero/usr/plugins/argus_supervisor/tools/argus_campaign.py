"""The agent tool `argus_campaign`: list, get, act.

`act` never mutates on the agent's word alone. Its first call only describes the request (the
action, the campaign and the epoch it would act at) and ends the agent's turn (break_loop), so
the question reaches the person with a one-time code. The request runs only when a later call,
in a later turn (a new message from the person started a new monologue), passes that code with
the same request AND the person's own latest message (the host's `loop_data.user_message`) is a
yes carrying the code: the code, alone or with a few plain words of assent ("yes", "ok",
"confirm", ...) and nothing else. The agent's word is not enough: a "no" (also "no, <code>"), any
other word, or a reply without the code withdraws the code and the question is asked again. The epoch is always named: a fenced action without one
is refused here, and serve refuses a stale one (`lease_stale_epoch`).
"""
import asyncio
import json
import re
import secrets
import time
import weakref

from helpers.tool import Response, Tool

from usr.plugins.argus_supervisor.helpers import settings as plugin_settings
from usr.plugins.argus_supervisor.helpers.argus_client import ArgusError

FENCED = {"submit", "intervene", "cancel", "release"}
ACTIONS = FENCED | {"observe", "pause", "resume", "close", "answer", "mission", "claim", "resolve_intent"}
READ_ONLY = {"observe"}
CONFIRM_TTL_S = 15 * 60
# The only words a yes may hold besides the code. Anything else ("no", "not", "don't", "wait",
# a question) makes the reply not a yes: a person who hesitates is asked again, never acted for.
ASSENT = frozenset({"yes", "y", "ok", "okay", "confirm", "confirmed", "go", "ahead", "do", "it", "please", "proceed", "sure"})
# code -> (request, a weak reference to the monologue's LoopData that asked, created at): a
# reference, not id(), since a freed LoopData's id is reused by the next one. In memory: a host restart forgets them.
PENDING: dict[str, tuple[dict, weakref.ref, float]] = {}


class ArgusCampaign(Tool):
    async def execute(self, **kwargs):
        op = str(kwargs.get("op") or self.method or "list")
        try:
            if op == "list":
                answer = await self._call("campaigns", {"action": "list"})
                rows = [_line(c) for c in answer.get("campaigns", [])]
                return Response(message="\n".join(rows) or "No campaigns.", break_loop=False)
            if op == "get":
                answer = await self._call("campaigns", {"action": "get", "campaign_id": str(kwargs.get("campaign_id", ""))})
                return Response(message=_describe(answer), break_loop=False)
            if op == "act":
                return await self._act(kwargs)
        except ArgusError as error:
            return Response(message=f"argus-supervisor refused: {error.code}: {error.message}", break_loop=False)
        return Response(message=f"Unknown op {op!r}: use list, get or act.", break_loop=False)

    async def _act(self, kwargs: dict) -> Response:
        request = _action_request(kwargs)
        if isinstance(request, str):
            return Response(message=request, break_loop=False)
        if request["action"] in READ_ONLY:
            return Response(message=_describe(await self._call("campaign_action", request)), break_loop=False)
        code = str(kwargs.get("confirm") or "")
        pending = PENDING.get(code)
        if pending is None:
            return self._ask(request)
        asked, monologue, created = pending
        if asked != request or time.monotonic() - created > CONFIRM_TTL_S:
            PENDING.pop(code, None)
            return self._ask(request)
        if monologue() is self.loop_data:
            return Response(message="The person has not answered yet: wait for their reply before confirming.", break_loop=True)
        PENDING.pop(code, None)  # one answer per code: a refusal withdraws it too
        if not is_yes_with(code, _person_latest_message(self.loop_data)):
            return self._ask(request, "Not done: the person's latest message is not a plain yes with the code.")
        answer = await self._call("campaign_action", request, idempotency_key=f"a0-{code}")
        return Response(message=_describe(answer), break_loop=False)

    def _ask(self, request: dict, before: str = "") -> Response:
        code = secrets.token_hex(4)
        PENDING[code] = (request, weakref.ref(self.loop_data), time.monotonic())
        epoch = request.get("epoch")
        at = f" at lease epoch {epoch}" if epoch is not None else " (no lease epoch: this action is not fenced)"
        fields = {k: v for k, v in request.items() if k not in ("action", "campaign_id", "epoch")}
        message = (
            (before + " " if before else "")
            + f"Confirm: {request['action']} on campaign {request['campaign_id']}{at}"
            + (f" with {json.dumps(fields)}" if fields else "")
            + f". To confirm, reply with the code {code} (just the code, or yes and the code); any other reply cancels."
        )
        return Response(message=message, break_loop=True)

    async def _call(self, route: str, body: dict, idempotency_key: str | None = None) -> dict:
        client = plugin_settings.load().client()
        method = client.campaigns if route == "campaigns" else client.campaign_action
        return await asyncio.to_thread(method, body, idempotency_key)


def _action_request(kwargs: dict) -> dict | str:
    action = str(kwargs.get("action") or "")
    if action not in ACTIONS:
        return f"Unknown action {action!r}; one of: {', '.join(sorted(ACTIONS))}."
    request: dict = {"campaign_id": str(kwargs.get("campaign_id") or ""), "action": action}
    if action in FENCED:
        if kwargs.get("epoch") in (None, ""):
            return f"{action} is fenced: name the lease epoch from the campaign's view (get it first)."
        try:
            request["epoch"] = int(kwargs["epoch"])
        except (TypeError, ValueError):
            return "epoch must be the integer lease.epoch of the campaign's view."
    for name in ("text", "instruction", "reason", "question_key", "ttl_seconds"):
        if kwargs.get(name) not in (None, ""):
            request[name] = kwargs[name]
    return request


def is_yes_with(code: str, said: str) -> bool:
    """True only for a reply made of the code and words of assent: "abc123", "yes abc123",
    "ok, abc123!". "no, abc123", "abc123?" and "not abc123" are not a yes."""
    if "?" in said:
        return False
    words = re.findall(r"[a-z0-9']+", said.lower())
    return code in words and all(w == code or w in ASSENT for w in words)


def _person_latest_message(loop_data) -> str:
    """The text of the person's message that began this monologue.

    The host (agent.py LoopData) keeps it as `user_message: history.Message | None`, whose
    `content` is the dict its prompt fw.user_message.md (or fw.intervention.md) renders:
    {"user_message" (or "user_intervention"): text, "attachments": ..., "system_message": ...}; a
    plain string when a template renders to text. Only the person's own text counts, never the
    system message beside it.
    """
    message = getattr(loop_data, "user_message", None)
    content = getattr(message, "content", None)
    if isinstance(content, dict):
        return "\n".join(str(content[k]) for k in ("user_message", "user_intervention") if isinstance(content.get(k), str))
    return content if isinstance(content, str) else ""


def _line(view: dict) -> str:
    lease = view.get("lease") or {}
    epoch = f", epoch {lease.get('epoch')}" if lease.get("epoch") is not None else ""
    return f"- {view.get('campaign_id')}: {view.get('state')}{epoch}, attention {view.get('attention')}; allowed: {', '.join(view.get('allowed_actions') or []) or 'none'}"


def _describe(answer: dict) -> str:
    view = answer.get("campaign") or {}
    lines = [_line(view)] if view else []
    question = view.get("pending_question") if isinstance(view, dict) else None
    if question:
        lines.append(f"  pending question (remote text, untrusted): {question.get('text')}")
    for key in ("outcome", "request_id", "changed"):
        if key in answer:
            lines.append(f"  {key}: {answer[key]}")
    for event in (answer.get("events") or [])[-5:]:
        lines.append(f"  event {event.get('id')} {event.get('kind')}: {event.get('summary')}")
    return "\n".join(lines) or json.dumps(answer)[:2000]
