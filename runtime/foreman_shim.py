"""One Foreman assessment for argus-supervisor: one JSON observation in, one JSON directive out.

Runs in the pinned Foreman runtime (/opt/venv-foreman, see runtime/source-lock.json), started by
adapters/foreman/foreman-runner.ts as ``python -B -s foreman_shim.py`` with an environment
built from nothing. It uses only upstream foreman-core (thruwire/foreman) public classes:

  FactoryObservation (foreman.observation)      -- validates the observation (extra="forbid")
  JevForemanModel    (foreman.foreman.jev)      -- assess(observation, checks) -> ForemanResult
  builtin_registry / ResponsibilityRegistry     -- routed to the four checks we use
  FactoryPolicy      (foreman.policy)           -- evaluate(state, result) -> selected directive

Checks used: core.human-escalation, core.worker-health, core.completion, core.verification
(repository.instructions is left out: the remote is not a repository we can show Foreman).

stdout: exactly one line {"action", "reason", "confidence"}; nothing else is printed there.
stderr: one line {"error": code} on failure, never the observation or a secret.
Exit: 0 ok, 1 assessment failed, 2 observation rejected, 3 upstream not importable.

This file cannot run on the development machines (foreman-core and its dependencies are not
installable there); its tests drive it against a clearly labelled stub package.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

MAX_STDIN_BYTES = 64 * 1024
REASON_CAP = 300
EXIT_FAILED = 1
EXIT_REJECTED = 2
EXIT_UNAVAILABLE = 3


class ShimError(Exception):
    def __init__(self, exit_code: int, code: str) -> None:
        super().__init__(code)
        self.exit_code = exit_code
        self.code = code


def read_observation() -> dict[str, Any]:
    raw = sys.stdin.buffer.read(MAX_STDIN_BYTES + 1)
    if len(raw) > MAX_STDIN_BYTES:
        raise ShimError(EXIT_REJECTED, "observation_too_large")
    try:
        payload = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise ShimError(EXIT_REJECTED, "observation_not_json") from error
    if not isinstance(payload, dict):
        raise ShimError(EXIT_REJECTED, "observation_not_object")
    return payload


def load_upstream() -> dict[str, Any]:
    """Imports exactly the upstream names the shim uses (paths verified in the lock)."""
    try:
        from foreman.config import FactoryConfig
        from foreman.foreman.base import ForemanModelError
        from foreman.foreman.jev import JevForemanModel
        from foreman.models import (
            FactoryState,
            FactoryStatus,
            VerificationResult,
            WorkerRecord,
            WorkerStatus,
            WorkerType,
        )
        from foreman.observation import FactoryObservation
        from foreman.policy import FactoryPolicy
        from foreman.responsibilities import (
            COMPLETION,
            HUMAN_ESCALATION,
            VERIFICATION,
            WORKER_HEALTH,
            builtin_registry,
        )
    except ImportError as error:
        raise ShimError(EXIT_UNAVAILABLE, "foreman_not_importable") from error
    return dict(locals())


def fit_previous_field(payload: dict[str, Any], fields: Any) -> dict[str, Any]:
    """The pinned version names the field previous_result; older ones previous_assessment.

    Both are always null from the supervisor, so renaming cannot change what Foreman sees.
    """
    out = dict(payload)
    for name in ("previous_result", "previous_assessment"):
        if name in fields and name not in out:
            out[name] = None
        elif name not in fields and name in out and out[name] is None:
            del out[name]
    return out


def build_state(up: dict[str, Any], observation: Any, config: Any) -> Any:
    """A FactoryState that agrees with the observation (upstream responsibilities read both)."""
    mission = observation.original_job[:50_000] or observation.run_id
    workers = []
    seen: set[str] = set()
    for item in list(observation.worker_history) + list(observation.active_workers):
        worker_id = str(item.get("worker_id") or "")
        if not worker_id or worker_id in seen:
            continue
        seen.add(worker_id)
        workers.append(
            up["WorkerRecord"](
                worker_id=worker_id,
                worker_type=up["WorkerType"].CODING,
                mission=mission,
                status=up["WorkerStatus"](item.get("status", "completed")),
                attempt=max(1, int(item.get("attempt") or 1)),
                started_at=item.get("started_at"),
                finished_at=item.get("finished_at"),
                exit_code=item.get("exit_code"),
            )
        )
    verification = [
        up["VerificationResult"](
            worker_id=str(item.get("worker_id") or "remote"),
            passed=bool(item.get("passed")),
            summary=str(item.get("summary") or ""),
        )
        for item in observation.verification_results
    ]
    return up["FactoryState"](
        run_id=observation.run_id,
        job=mission,
        # FactoryState only needs a non-empty label here: no worker or git call is ever made.
        repository=f"remote:{observation.run_id}",
        status=up["FactoryStatus"](observation.factory_status),
        iteration=observation.iteration,
        max_iterations=config.max_iterations,
        workers=workers,
        active_workers=[str(item.get("worker_id")) for item in observation.active_workers],
        latest_intervention=observation.previous_intervention,
        verification_results=verification,
        verification_started=bool(verification),
        verification_completed=bool(verification),
        retry_count=max(0, len(workers) - 1),
    )


async def assess(up: dict[str, Any], payload: dict[str, Any]) -> dict[str, Any]:
    config = up["FactoryConfig"]()
    observation_type = up["FactoryObservation"]
    try:
        observation = observation_type.model_validate(
            fit_previous_field(payload, observation_type.model_fields)
        )
        state = build_state(up, observation, config)
    except (ValueError, TypeError, KeyError) as error:  # pydantic ValidationError is a ValueError
        raise ShimError(EXIT_REJECTED, "observation_invalid") from error

    registry = up["builtin_registry"](config).routed(
        [up["HUMAN_ESCALATION"], up["WORKER_HEALTH"], up["COMPLETION"], up["VERIFICATION"]]
    )
    model = up["JevForemanModel"](timeout_seconds=config.jev_timeout_seconds)
    try:
        result = await model.assess(observation, registry.checks())
    except up["ForemanModelError"] as error:
        raise ShimError(EXIT_FAILED, "assessment_failed") from error
    finally:
        await model.close()

    evaluated = up["FactoryPolicy"](config, registry).evaluate(state, result)
    selected = evaluated.selected_directive
    if selected is None:
        raise ShimError(EXIT_FAILED, "no_directive")
    return {
        "action": str(selected.action.value),
        "reason": str(selected.reason)[:REASON_CAP],
        "confidence": selected.confidence,
    }


def main() -> int:
    try:
        payload = read_observation()
        up = load_upstream()
        directive = asyncio.run(assess(up, payload))
    except ShimError as error:
        sys.stderr.write(json.dumps({"error": error.code}) + "\n")
        return error.exit_code
    except Exception as error:  # noqa: BLE001 - any upstream surprise is one failed assessment
        sys.stderr.write(json.dumps({"error": "unexpected", "type": type(error).__name__}) + "\n")
        return EXIT_FAILED
    sys.stdout.write(json.dumps(directive) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
