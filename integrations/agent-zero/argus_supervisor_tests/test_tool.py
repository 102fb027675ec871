"""The argus_campaign tool: a mutation is only asked about in the turn that proposes it (the
turn ends), names the epoch, and runs only after a later turn whose message from the person
carries the one-time code. serve is SIMULATED by a recording client here; the client itself is
covered against the real serve."""
import asyncio
import re
import unittest

from argus_supervisor_tests import support  # noqa: F401  (the host stand-ins on sys.path)
from usr.plugins.argus_supervisor.tools import argus_campaign


class RecordingClient:
    def __init__(self):
        self.calls = []

    def campaigns(self, body, key=None):
        self.calls.append(("campaigns", body, key))
        return {"ok": True, "campaigns": [{"campaign_id": "c1", "state": "controlling", "attention": "idle", "lease": {"epoch": 4}, "allowed_actions": ["cancel"]}]}

    def campaign_action(self, body, key=None):
        self.calls.append(("campaign_action", body, key))
        return {"ok": True, "campaign": {"campaign_id": "c1", "state": "controlling"}, "outcome": "applied"}


class PersonMessage:  # the host's history.Message: `content` as fw.user_message.md renders it
    def __init__(self, text: str):
        self.ai = False
        self.content = {"system_message": [], "user_message": text, "attachments": []}


class Turn:  # the host's LoopData: one per monologue (one per message from the person)
    def __init__(self, said: str | None = None):
        self.user_message = PersonMessage(said) if said is not None else None


def code_in(message: str) -> str:
    found = re.findall(r"reply with the code ([0-9a-f]{8})\b", message)
    assert len(found) == 1, message
    return found[0]


class ToolConfirms(unittest.TestCase):
    def setUp(self):
        self.client = RecordingClient()
        argus_campaign.PENDING.clear()
        self._load = argus_campaign.plugin_settings.load
        argus_campaign.plugin_settings.load = lambda: type("S", (), {"client": lambda _s: self.client})()

    def tearDown(self):
        argus_campaign.plugin_settings.load = self._load

    def run_tool(self, turn, **args):
        tool = argus_campaign.ArgusCampaign(agent=None, name="argus_campaign", method=None, args=args, message="", loop_data=turn)
        return asyncio.run(tool.execute(**args))

    def test_list_reads(self):
        answer = self.run_tool(Turn(), op="list")
        self.assertIn("c1: controlling, epoch 4", answer.message)
        self.assertFalse(answer.break_loop)

    def test_a_mutation_waits_for_the_person(self):
        args = {"op": "act", "campaign_id": "c1", "action": "cancel", "epoch": 4, "reason": "stop it"}
        turn = Turn()
        asked = self.run_tool(turn, **args)
        self.assertTrue(asked.break_loop)
        self.assertIn("cancel on campaign c1 at lease epoch 4", asked.message)
        code = code_in(asked.message)
        same_turn = self.run_tool(turn, confirm=code, **args)  # the model confirming by itself
        self.assertIn("has not answered", same_turn.message)
        changed = self.run_tool(Turn(f"yes {code}"), confirm=code, **{**args, "epoch": 5})  # another request
        self.assertTrue(changed.break_loop)
        self.assertEqual([c for c in self.client.calls if c[0] == "campaign_action"], [])
        code = code_in(changed.message)
        done = self.run_tool(Turn(f"yes, {code}"), confirm=code, **{**args, "epoch": 5})
        self.assertIn("outcome: applied", done.message)
        self.assertEqual(self.client.calls, [("campaign_action", {"campaign_id": "c1", "action": "cancel", "epoch": 5, "reason": "stop it"}, f"a0-{code}")])

    def test_a_no_from_the_person_is_never_a_yes(self):
        args = {"op": "act", "campaign_id": "c1", "action": "cancel", "epoch": 4}
        code = code_in(self.run_tool(Turn("cancel c1"), **args).message)
        # The person says no; the model calls again with the right code and request anyway.
        refused = self.run_tool(Turn("no, leave it running"), confirm=code, **args)
        self.assertTrue(refused.break_loop)
        self.assertIn("Not done", refused.message)
        again = code_in(refused.message)
        self.assertNotEqual(again, code)
        # The old code is withdrawn: a later yes with it does not act either.
        late = self.run_tool(Turn(f"actually yes {code}"), confirm=code, **args)
        self.assertTrue(late.break_loop)
        # No message at all (none recorded for the turn), or the code only in the system part.
        self.run_tool(Turn(), confirm=again, **args)
        system_only = Turn("ok")
        system_only.user_message.content["system_message"] = [code_in(late.message)]
        self.run_tool(system_only, confirm=code_in(late.message), **args)
        self.assertEqual([c for c in self.client.calls if c[0] == "campaign_action"], [])

    def test_a_no_that_carries_the_code_is_still_a_no(self):
        args = {"op": "act", "campaign_id": "c1", "action": "cancel", "epoch": 4}
        code = code_in(self.run_tool(Turn("cancel c1"), **args).message)
        for said in (f"no, {code}", f"{code}? no", f"do not {code}", f"wait {code}", f"NO {code.upper()}", f"{code} no"):
            with self.subTest(said=said):
                refused = self.run_tool(Turn(said), confirm=code, **args)
                self.assertIn("Not done", refused.message)
                code = code_in(refused.message)  # each refusal withdraws the code and asks again
        self.assertEqual([c for c in self.client.calls if c[0] == "campaign_action"], [])
        for said in (code, f"Yes {code}", f"ok, {code}!", f"confirm {code} please"):
            self.assertTrue(argus_campaign.is_yes_with(code, said), said)
        done = self.run_tool(Turn(f"ok, {code}!"), confirm=code, **args)
        self.assertIn("outcome: applied", done.message)

    def test_a_fenced_action_without_an_epoch_is_refused(self):
        answer = self.run_tool(Turn(), op="act", campaign_id="c1", action="release")
        self.assertIn("name the lease epoch", answer.message)
        self.assertEqual(self.client.calls, [])


if __name__ == "__main__":
    unittest.main()
