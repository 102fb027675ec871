"""The plugin's layout as the host reads it (agent-zero 2d95cd9: docs/developer/plugins.md,
helpers/modules.py load_classes_from_file, helpers/api.py register_api_route)."""
import glob
import inspect
import os
import re
import unittest

import yaml

from argus_supervisor_tests import support
from helpers.api import ApiHandler
from helpers.extension import Extension
from helpers.tool import Tool

ROUTES = {"health", "status", "campaigns", "campaign_action", "events"}
# A YAML key (at any depth, in a list item, quoted or not) whose name holds a secret's word
# anywhere: `a2a_token:` and `openai_api_key:` too, which `\b(token)` misses (`_` is a word character).
SECRET_KEY = re.compile(r"(?im)^[ \t-]*[\"']?[\w.-]*(api_?key|token|secret|password|passwd)[\w.-]*[\"']?[ \t]*:")


def subclasses_in(module, base) -> list:
    """What the host's loader considers: the module's class members that subclass `base`."""
    return [c for _n, c in inspect.getmembers(module, inspect.isclass) if c is not base and issubclass(c, base)]


def host_pick(module, base):
    """The host's rule: iterate members backwards (alphabetical) and take the first subclass."""
    for _n, cls in reversed(inspect.getmembers(module, inspect.isclass)):
        if cls is not base and issubclass(cls, base):
            return cls
    return None


def load(rel: str):
    import importlib

    return importlib.import_module("usr.plugins.argus_supervisor." + rel.replace("/", ".").removesuffix(".py"))


class PluginLayout(unittest.TestCase):
    def test_plugin_yaml_names_its_folder(self):
        with open(os.path.join(support.PLUGIN_DIR, "plugin.yaml"), encoding="utf-8") as handle:
            meta = yaml.safe_load(handle)
        self.assertEqual(meta["name"], os.path.basename(support.PLUGIN_DIR))
        self.assertRegex(meta["name"], r"^[a-z0-9_]+$")
        for field in ("title", "description", "version"):
            self.assertTrue(meta[field])
        self.assertEqual(meta["settings_sections"], ["external"])

    def test_default_config_holds_paths_and_timeouts_never_a_key(self):
        with open(os.path.join(support.PLUGIN_DIR, "default_config.yaml"), encoding="utf-8") as handle:
            config = yaml.safe_load(handle)
        self.assertEqual(config["state_root"], "/a0/usr/argus-supervisor")
        flat = yaml.safe_dump(config)
        with open(os.path.join(support.PLUGIN_DIR, "default_config.yaml"), encoding="utf-8") as handle:
            raw = handle.read()
        self.assertNotRegex(flat, SECRET_KEY)
        self.assertNotRegex(raw, SECRET_KEY)
        self.assertEqual(config["key_file"], "")  # a path (empty: <state root>/local-api-key)
        self.assertEqual(config["credential_names"], {"a2a": "OPENTRAINING_A2A_TOKEN", "serve": "ARGUS_SUPERVISOR_API_KEY"})  # names only

    def test_settings_page_edits_names_and_shows_credentials_masked(self):
        with open(os.path.join(support.PLUGIN_DIR, "webui", "config.html"), encoding="utf-8") as handle:
            page = handle.read()
        bound = re.findall(r'x-model(?:\.\w+)*="([^"]+)"', page)
        self.assertIn("config.credential_names.a2a", bound)
        self.assertTrue(all(b.startswith("config.") for b in bound), bound)
        # No editable field for a value: nothing bound whose last part names a secret.
        self.assertEqual([b for b in bound if re.search(r"(api_?key|token|secret|password)$", b.split(".")[-1], re.I)], [])
        # The credentials come read-only from our health route (source + the host's mask).
        self.assertIn("callJsonApi('/plugins/argus_supervisor/health'", page)
        self.assertRegex(page, r'readonly :value="item.value"')

    def test_the_secret_key_check_can_fail(self):
        for caught in ("a2a_token: x", "api_key: x", "sidecar:\n  env:\n    OPENAI_API_KEY: x", "- token: x", '"client_secret": x', "db_password : x"):
            self.assertRegex(caught, SECRET_KEY, caught)
        for passed in ("key_file: ''", "state_root: /a0", "# never put a token here: no", "request_timeout_s: 15"):
            self.assertNotRegex(passed, SECRET_KEY, passed)

    def test_each_api_file_exposes_exactly_one_handler_the_host_picks(self):
        files = sorted(glob.glob(os.path.join(support.PLUGIN_DIR, "api", "*.py")))
        self.assertEqual({os.path.basename(f)[:-3] for f in files}, ROUTES)
        for path in files:
            module = load("api/" + os.path.basename(path))
            found = subclasses_in(module, ApiHandler)
            self.assertEqual(len(found), 1, f"{path}: {found}")
            self.assertIs(host_pick(module, ApiHandler), found[0])
            self.assertEqual(found[0].__module__, module.__name__)
            # The host's defaults: the browser's session and CSRF, POST only, no key.
            self.assertEqual((found[0].requires_auth(), found[0].requires_csrf(), found[0].requires_api_key(), found[0].get_methods()), (True, True, False, ["POST"]))

    def test_extension_and_tool_are_single_classes(self):
        ext = load("extensions/python/job_loop/_50_argus_supervisor.py")
        self.assertEqual(len(subclasses_in(ext, Extension)), 1)
        tool = load("tools/argus_campaign.py")
        self.assertEqual(len(subclasses_in(tool, Tool)), 1)
        self.assertTrue(os.path.isfile(os.path.join(support.PLUGIN_DIR, "prompts", "agent.system.tool.argus_campaign.md")))

    def test_the_profile_is_a_facade(self):
        profile = os.path.join(support.ROOT, "agents", "argus-supervisor")
        with open(os.path.join(profile, "agent.yaml"), encoding="utf-8") as handle:
            meta = yaml.safe_load(handle)
        self.assertEqual(set(meta), {"title", "description", "context"})
        with open(os.path.join(profile, "prompts", "agent.system.main.role.md"), encoding="utf-8") as handle:
            role = handle.read()
        self.assertIn("Never decide a change yourself", role)
        self.assertIn("argus_campaign", role)

    def test_python_files_import_only_the_standard_library_and_the_host(self):
        allowed_roots = {"helpers", "usr"}
        for path in glob.glob(os.path.join(support.PLUGIN_DIR, "**", "*.py"), recursive=True):
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
            for root in re.findall(r"^\s*(?:from|import)\s+([A-Za-z_][A-Za-z0-9_]*)", text, re.M):
                self.assertTrue(root in allowed_roots or root == "__future__" or root in _stdlib(), f"{path}: {root}")


def _stdlib() -> frozenset:
    import sys

    return frozenset(sys.stdlib_module_names)


if __name__ == "__main__":
    unittest.main()
