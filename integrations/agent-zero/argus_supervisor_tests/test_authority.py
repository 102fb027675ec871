"""Token authority as the host does it (helpers/authority.py): the A2A token and our key come from
the host's environment (`deployment_secret`) or its secrets store (`configured`), the key else
from serve itself (`generated_local`); settings and health show the source and the host's mask,
never the value. With a REAL serve: the sidecar hands both over as 0600 files, so the child's
/proc/<pid>/cmdline and environ hold paths only, and the token file is gone once serve answers."""
import asyncio
import os
import stat
import unittest
from unittest import mock

from argus_supervisor_tests import support
from helpers import plugins
from helpers import secrets as host_secrets
from usr.plugins.argus_supervisor.helpers import authority
from usr.plugins.argus_supervisor.helpers import settings as plugin_settings
from usr.plugins.argus_supervisor.helpers.sidecar import Sidecar

TOKEN_NAME, KEY_NAME = authority.DEFAULT_TOKEN_NAME, authority.DEFAULT_KEY_NAME


class Resolution(unittest.TestCase):
    def setUp(self):
        self.token = support.test_secret("ARGUS_A0_TEST_TOKEN_FILE")
        self.addCleanup(host_secrets.STORE.clear)

    def test_environment_then_secrets_store_then_generated_or_missing(self):
        store = lambda: {TOKEN_NAME: "from-the-store-" + "x" * 16}  # noqa: E731
        self.assertEqual(authority.token(None, environ={TOKEN_NAME: self.token}, secrets=store).source, "deployment_secret")
        self.assertEqual(authority.token(None, environ={TOKEN_NAME: self.token}, secrets=store).value, self.token)
        self.assertEqual(authority.token(None, environ={TOKEN_NAME: "  "}, secrets=store).source, "configured")  # blank = unset
        self.assertEqual(authority.token(None, environ={}, secrets=dict).source, "missing")
        self.assertEqual(authority.key(None, environ={}, secrets=dict).source, "generated_local")
        # The names come from the plugin's config, and must be plain variable names.
        config = {"credential_names": {"a2a": "MY_TOKEN", "serve": "MY_KEY"}}
        self.assertEqual(authority.token(config, environ={"MY_TOKEN": self.token}, secrets=dict).source, "deployment_secret")
        self.assertEqual(authority.resolve("BAD NAME", local_fallback=False, environ={"BAD NAME": self.token}).source, "missing")

    def test_the_host_secrets_store_is_read_through_the_hosts_helper(self):
        host_secrets.STORE[KEY_NAME] = self.token
        with mock.patch.dict(os.environ, {}, clear=False):
            os.environ.pop(KEY_NAME, None)
            self.assertEqual(authority.key(None).source, "configured")

    def test_masked_view_never_holds_the_value(self):
        for credential in (authority.Credential(TOKEN_NAME, "deployment_secret", self.token), authority.Credential(KEY_NAME, "configured", self.token)):
            shown = credential.masked()
            self.assertEqual(shown["value"], authority.MASK)
            self.assertTrue(shown["present"])
            self.assertNotIn(self.token, repr(shown) + repr(credential) + str(credential))
        self.assertEqual(authority.Credential(TOKEN_NAME, "missing").masked(), {"name": TOKEN_NAME, "source": "missing", "present": False, "value": ""})

    def test_health_handler_reports_sources_masked_even_with_serve_down(self):
        from usr.plugins.argus_supervisor.api.health import Health

        root = support.new_state_root(self, "authority-health")
        plugins.CONFIGS["argus_supervisor"] = {"state_root": root, "sidecar": {"enabled": False}, "connect_timeout_s": 0.5}
        self.addCleanup(plugins.CONFIGS.pop, "argus_supervisor", None)
        host_secrets.STORE[KEY_NAME] = self.token
        with mock.patch.dict(os.environ, {TOKEN_NAME: self.token}):
            answer = asyncio.run(Health(None, None).process({}, None))
        self.assertIs(answer["ok"], False)  # no serve there: the credentials are shown all the same
        self.assertEqual(answer["credentials"]["a2a_token"], {"name": TOKEN_NAME, "source": "deployment_secret", "present": True, "value": authority.MASK})
        self.assertEqual(answer["credentials"]["api_key"]["source"], "configured")
        self.assertNotIn(self.token, repr(answer))

    def test_settings_hook_never_saves_a_secret_field(self):
        import importlib

        hooks = importlib.import_module("usr.plugins.argus_supervisor.hooks")
        saved = hooks.save_plugin_config(settings={"state_root": "/x", "a2a_token": self.token, "sidecar": {"api_key": self.token, "node": "/usr/bin/node"}, "credential_names": {"a2a": TOKEN_NAME}})
        self.assertNotIn(self.token, repr(saved))
        self.assertEqual(saved["sidecar"], {"node": "/usr/bin/node"})
        self.assertEqual(saved["credential_names"], {"a2a": TOKEN_NAME})


class SidecarHandsOverHostCredentials(unittest.TestCase):
    def setUp(self):
        entry = support.require_serve(self)
        self.entry = entry
        self.token = support.test_secret("ARGUS_A0_TEST_TOKEN_FILE")
        self.host_key = support.test_secret("ARGUS_A0_TEST_HOST_KEY_FILE")
        self.root = support.new_state_root(self, "host-credentials")
        self.addCleanup(host_secrets.STORE.clear)

    def test_token_and_key_reach_serve_as_files_never_in_argv_or_environ(self):
        host_secrets.STORE[KEY_NAME] = self.host_key  # the key from the host's secrets store
        config = support.plugin_config(self.root, enabled=True, env={"ARGUS_SUPERVISOR_ENABLED": "1", "OPENTRAINING_A2A_URL": "http://127.0.0.1:1/a2a"})
        with mock.patch.dict(os.environ, {TOKEN_NAME: self.token}):  # the token from the host's environment
            os.environ.pop(KEY_NAME, None)
            settings = plugin_settings.from_config(config)
            self.assertEqual(settings.key_file, settings.host_key_file)
            sidecar = Sidecar(settings).start()
            try:
                self.assertTrue(sidecar.wait_ready(20), sidecar.status())
                health = settings.client().health()
                pid = sidecar.pid
                with open(f"/proc/{pid}/cmdline", "rb") as handle:
                    cmdline = handle.read()
                with open(f"/proc/{pid}/environ", "rb") as handle:
                    environ = handle.read()
                token_file_after_ready = os.path.exists(settings.token_file)
                status = sidecar.status()
            finally:
                sidecar.stop()
        self.assertEqual(health["api_key_source"], "deployment_secret")
        self.assertEqual(health["configured"]["remote_token"], True)
        self.assertEqual(status["credentials"]["a2a_token"]["source"], "deployment_secret")
        self.assertEqual(status["credentials"]["api_key"]["source"], "configured")
        variables = dict(item.split(b"=", 1) for item in environ.split(b"\0") if item)
        self.assertEqual(variables[b"OPENTRAINING_A2A_TOKEN_FILE"], settings.token_file.encode())
        self.assertEqual(variables[b"ARGUS_SUPERVISOR_API_KEY_FILE"], settings.host_key_file.encode())
        self.assertNotIn(TOKEN_NAME.encode(), variables)
        self.assertNotIn(KEY_NAME.encode(), variables)
        for secret in (self.token, self.host_key):
            self.assertNotIn(secret.encode(), cmdline)
            self.assertNotIn(secret.encode(), environ)
            self.assertNotIn(secret, repr(health) + repr(status))
        self.assertFalse(token_file_after_ready, "the token file outlived serve's start")
        self.assertEqual(stat.S_IMODE(os.stat(settings.host_key_file).st_mode), 0o600)
        # On disk: the token nowhere; the key only in its own file.
        self.assertEqual(support.files_containing(self.root, self.token, set()), [])
        self.assertEqual(support.files_containing(self.root, self.host_key, {settings.host_key_file}), [])


if __name__ == "__main__":
    unittest.main()
