"""The client and the api handlers against a REAL `serve` child on a Unix socket (no stand-in
server): every route, refusals with our codes, a timeout (serve stopped with SIGSTOP), the server gone."""
import asyncio
import os
import signal
import time
import unittest

from argus_supervisor_tests import support
from usr.plugins.argus_supervisor.helpers.argus_client import ArgusClient, ArgusError


class ClientAgainstServe(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        entry = support.require_serve(cls)  # type: ignore[arg-type]
        cls.root = support.new_state_root(cls, "client")
        cls.serve = support.ServeChild(entry, cls.root)
        cls.client = ArgusClient(cls.serve.socket_path, cls.serve.key_file, connect_timeout_s=2, request_timeout_s=5)
        cls.serve.wait_ready(cls.client)

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()

    def test_health_reports_where_the_key_came_from_never_the_key(self):
        self.assertEqual(self.client.public_health()["status"], "ok")
        health = self.client.health()
        self.assertEqual(health["api_key_source"], "generated_local")
        with open(self.serve.key_file, encoding="ascii") as handle:
            key = handle.read().strip()
        self.assertNotIn(key, repr(health))
        self.assertNotIn(key, repr(self.client))

    def test_status_campaigns_and_actions(self):
        self.assertEqual(self.client.status()["ok"], True)
        created = self.client.campaigns({"action": "create", "campaign_id": "a0-sweep", "objective": "train a small model"}, idempotency_key="a0-create-1")
        self.assertEqual(created["campaign"]["state"], "observing")
        listed = self.client.campaigns({"action": "list"})
        self.assertIn("a0-sweep", [c["campaign_id"] for c in listed["campaigns"]])
        got = self.client.campaigns({"action": "get", "campaign_id": "a0-sweep"})
        self.assertEqual(got["campaign"]["campaign_id"], "a0-sweep")
        history = self.client.campaigns({"action": "history", "campaign_id": "a0-sweep"})
        self.assertEqual(history["history"][0]["detail"], "create")
        paused = self.client.campaign_action({"campaign_id": "a0-sweep", "action": "pause"})
        self.assertTrue(paused["campaign"]["paused"])

    def test_refusals_keep_our_codes_and_status(self):
        with self.assertRaises(ArgusError) as caught:
            self.client.campaigns({"action": "get", "campaign_id": "no-such-campaign"})
        self.assertEqual((caught.exception.code, caught.exception.status), ("campaign_not_found", 404))
        with self.assertRaises(ArgusError) as caught:
            self.client.campaigns({"action": "list", "epcoh": 1})
        self.assertEqual((caught.exception.code, caught.exception.status), ("invalid_request", 400))
        self.client.campaigns({"action": "create", "campaign_id": "a0-fenced", "objective": "fenced"})
        with self.assertRaises(ArgusError) as caught:
            self.client.campaign_action({"campaign_id": "a0-fenced", "action": "cancel", "epoch": 3, "reason": "stop"})
        # No remote is configured, so the fenced gate stops at its first rule with our code.
        self.assertIn((caught.exception.code, caught.exception.status), {("remote_not_configured", 503), ("supervisor_disabled", 503)})

    def test_a_wrong_key_is_refused_unauthorized(self):
        wrong = os.path.join(self.root, "plugin-wrong-key")
        fd = os.open(wrong, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.write(fd, b"x" * 43)
        os.close(fd)
        with self.assertRaises(ArgusError) as caught:
            ArgusClient(self.serve.socket_path, wrong).status()
        self.assertEqual((caught.exception.code, caught.exception.status), ("unauthorized", 401))

    def test_an_unsafe_key_file_is_refused_before_any_request(self):
        loose = os.path.join(self.root, "plugin-loose-key")
        fd = os.open(loose, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.write(fd, b"y" * 43)
        os.close(fd)
        os.chmod(loose, 0o644)
        with self.assertRaises(ArgusError) as caught:
            ArgusClient(self.serve.socket_path, loose).status()
        self.assertEqual(caught.exception.code, "key_file_unsafe")

    def test_events_stream_says_hello(self):
        frames = self.client.events(idle_timeout_s=5)
        first = next(frames)
        frames.close()
        self.assertEqual(first["event"], "hello")
        self.assertIsInstance(first["data"]["revision"], int)

    def test_handlers_forward_and_pass_refusals_through(self):
        from helpers import plugins
        from usr.plugins.argus_supervisor.api.campaign_action import CampaignAction
        from usr.plugins.argus_supervisor.api.events import Events
        from usr.plugins.argus_supervisor.api.health import Health
        from usr.plugins.argus_supervisor.api.status import Status

        plugins.CONFIGS["argus_supervisor"] = {"state_root": self.root, "socket_path": self.serve.socket_path, "request_timeout_s": 5}
        run = lambda handler, body: asyncio.run(handler(None, None).process(body, None))  # noqa: E731
        self.assertTrue(run(Status, {})["ok"])
        self.assertEqual(run(Health, {})["api_key_source"], "generated_local")
        refused = run(CampaignAction, {"campaign_id": "missing-one", "action": "pause"})
        self.assertEqual(refused.status, 404)
        self.assertEqual(refused.get_json()["error"]["code"], "campaign_not_found")
        self.assertEqual(run(Events, {"wait_s": 0.3})["ok"], True)

    def test_z_timeout_then_server_gone(self):
        # Named to run last in this class: it stops serve.
        os.kill(self.serve.proc.pid, signal.SIGSTOP)
        try:
            started = time.monotonic()
            with self.assertRaises(ArgusError) as caught:
                ArgusClient(self.serve.socket_path, self.serve.key_file, connect_timeout_s=1, request_timeout_s=1).status()
            self.assertEqual(caught.exception.code, "argus_timeout")
            self.assertLess(time.monotonic() - started, 4)
        finally:
            os.kill(self.serve.proc.pid, signal.SIGCONT)
        self.serve.stop()
        with self.assertRaises(ArgusError) as caught:
            self.client.status()
        self.assertEqual(caught.exception.code, "argus_unreachable")


if __name__ == "__main__":
    unittest.main()
