#!/usr/bin/env bash
# Builds /opt/venv-argus from runtime/source-lock.json. Container build only: argus-skill is not
# on any package index and its dependencies (mcp, pydantic-settings, ...) need one, which the
# development machines and CI do not reach. Never run at supervisor run time; no sudo.
#   ARGUS_SUPERVISOR_IMAGE_BUILD=1 runtime/install-argus.sh   # install
#   runtime/install-argus.sh --plan                           # print what it would do
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
lock="${ARGUS_SUPERVISOR_SOURCE_LOCK:-$here/source-lock.json}"
pin() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["argus"][sys.argv[2]])' "$lock" "$1"; }

venv="$(pin venv)"
package="$(pin package)"
version="$(pin version)"
source="$(pin source)"
commit="$(pin commit)"
repo="${source#github:}"
spec="${package} @ https://github.com/${repo}/archive/${commit}.tar.gz"

if [ "${1:-}" = "--plan" ]; then
  printf 'venv=%s\nspec=%s\nversion=%s\n' "$venv" "$spec" "$version"
  exit 0
fi
if [ "${ARGUS_SUPERVISOR_IMAGE_BUILD:-}" != "1" ]; then
  echo "install-argus.sh runs only in the container build (ARGUS_SUPERVISOR_IMAGE_BUILD=1)." >&2
  exit 2
fi

python3 -m venv "$venv"
"$venv/bin/python" -m pip install --no-cache-dir "$spec"
"$venv/bin/python" - "$package" "$version" <<'PY'
import importlib.metadata, sys
package, version = sys.argv[1], sys.argv[2]
installed = importlib.metadata.version(package)
if installed != version:
    sys.exit(f"{package} {installed} installed, {version} pinned")
import argus_skill.plugin.mcp_server  # noqa: F401  (the only entry the bridge starts)
print(f"{package} {installed} ready")
PY
