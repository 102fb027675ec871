"""SIMULATED Foreman for argus-supervisor tests and the demo. Not foreman-core, no model call.

Same contract as runtime/foreman_shim.py: one JSON observation on stdin, one line
{"action", "reason", "confidence"} on stdout, exit 0 (2 = observation rejected).

Deterministic. The directive comes from, in order:
  1. the script file named by FAKE_FOREMAN_SCRIPT (JSON), if set: either one directive for every
     call, or {"byRunId": {<run_id>: directive, "*": directive}}; a directive is
     {"action", "reason"?, "confidence"?, "exitCode"?, "sleepMs"?, "stdout"?} where "stdout"
     (raw text printed instead of the directive) and "exitCode"/"sleepMs" exercise the runner's
     bad-output / failure / timeout paths;
  2. otherwise the observation: factory_status FAILED/CANCELLED -> ESCALATE; an active attempt ->
     CONTINUE; a non-zero exit code in worker_exit_status -> RETRY_WORKER; all attempts exited 0
     and every verification passed -> FINISH; all exited 0, none verified -> START_VERIFIER;
     otherwise START_WORKER.

Every reason starts with "SIMULATED:". Each run appends {"argv", "env", "stdin"} as one JSON line
to FAKE_FOREMAN_RECORD (default $HOME/fake-foreman-record.jsonl), so tests can check that no
secret reached the child's environment, argv or stdin. A banner on stderr says SIMULATED.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

ACTIONS = {
    "CONTINUE", "START_WORKER", "START_VERIFIER", "STEER_WORKER",
    "STOP_WORKER", "RETRY_WORKER", "FINISH", "ESCALATE",
}


def record(raw: str) -> None:
    path = os.environ.get("FAKE_FOREMAN_RECORD") or os.path.join(
        os.environ.get("HOME", "."), "fake-foreman-record.jsonl"
    )
    entry = {"argv": sys.argv, "env": dict(os.environ), "stdin": raw}
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(entry) + "\n")


def scripted(run_id: str) -> dict[str, Any] | None:
    path = os.environ.get("FAKE_FOREMAN_SCRIPT")
    if not path:
        return None
    with open(path, encoding="utf-8") as handle:
        script = json.load(handle)
    if isinstance(script.get("byRunId"), dict):
        table = script["byRunId"]
        return table.get(run_id) or table.get("*")
    return script


def by_observation(obs: dict[str, Any]) -> tuple[str, str]:
    status = obs.get("factory_status")
    exits = obs.get("worker_exit_status") or {}
    verifications = obs.get("verification_results") or []
    if status in ("FAILED", "CANCELLED"):
        return "ESCALATE", f"campaign status is {status}"
    if obs.get("active_workers"):
        return "CONTINUE", "an attempt is still running"
    if any(code not in (0, None) for code in exits.values()):
        return "RETRY_WORKER", "the latest attempt exited with an error"
    if exits and all(code == 0 for code in exits.values()):
        if verifications and all(v.get("passed") for v in verifications):
            return "FINISH", "attempts succeeded and verification passed"
        if not verifications:
            return "START_VERIFIER", "attempts succeeded; verification is warranted"
    return "START_WORKER", "implementation work remains"


def main() -> int:
    sys.stderr.write("SIMULATED Foreman (simulator/foreman/fake_foreman.py): no model call\n")
    raw = sys.stdin.read(64 * 1024 + 1)
    record(raw)
    try:
        obs = json.loads(raw)
        if not isinstance(obs, dict) or not isinstance(obs.get("run_id"), str):
            raise ValueError("not an observation")
    except ValueError:
        sys.stderr.write(json.dumps({"error": "observation_invalid"}) + "\n")
        return 2
    plan = scripted(obs["run_id"])
    if plan is None:
        action, reason = by_observation(obs)
        plan = {"action": action, "reason": reason, "confidence": None}
    if plan.get("sleepMs"):
        time.sleep(float(plan["sleepMs"]) / 1000.0)
    if "stdout" in plan:
        sys.stdout.write(str(plan["stdout"]))
        sys.stdout.flush()
    elif plan.get("action") in ACTIONS or plan.get("exitCode", 0) == 0:
        directive = {
            "action": plan.get("action"),
            "reason": "SIMULATED: " + str(plan.get("reason") or "scripted directive"),
            "confidence": plan.get("confidence"),
        }
        sys.stdout.write(json.dumps(directive) + "\n")
        sys.stdout.flush()
    return int(plan.get("exitCode", 0))


if __name__ == "__main__":
    sys.exit(main())
