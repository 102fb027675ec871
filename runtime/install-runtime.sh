#!/usr/bin/env bash
# Builds one pinned runtime venv (argus or foreman) from runtime/source-lock.json. Container build
# only: neither package is on an index these machines reach (argus-skill is on none at all, and
# their dependencies need one). Never run at supervisor run time; no sudo.
#   ARGUS_SUPERVISOR_IMAGE_BUILD=1 runtime/install-runtime.sh argus|foreman   # install
#   runtime/install-runtime.sh argus|foreman --plan                           # print what it would do
# install-argus.sh and install-foreman.sh are the two ways the image build calls it.
set -euo pipefail
name="${1:-}"
# What the installed venv must import, or the image is refused (the names the bridge/shim use).
case "$name" in
  argus) check='import argus_skill.plugin.mcp_server  # the only entry the bridge starts' ;;
  foreman)
    check='from foreman.foreman.jev import JevForemanModel
from foreman.observation import FactoryObservation
from foreman.policy import FactoryPolicy
from foreman.responsibilities import builtin_registry' ;;
  *)
    echo "usage: install-runtime.sh argus|foreman [--plan]" >&2
    exit 2 ;;
esac
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
lock="${ARGUS_SUPERVISOR_SOURCE_LOCK:-$here/source-lock.json}"
pin() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]][sys.argv[3]])' "$lock" "$name" "$1"; }

venv="$(pin venv)"
package="$(pin package)"
version="$(pin version)"
source="$(pin source)"
commit="$(pin commit)"
repo="${source#github:}"
# Installed from the pinned commit's source archive, not "latest" from an index.
spec="${package} @ https://github.com/${repo}/archive/${commit}.tar.gz"

if [ "${2:-}" = "--plan" ]; then
  printf 'venv=%s\nspec=%s\nversion=%s\n' "$venv" "$spec" "$version"
  exit 0
fi
if [ "${ARGUS_SUPERVISOR_IMAGE_BUILD:-}" != "1" ]; then
  echo "install-${name}.sh runs only in the container build (ARGUS_SUPERVISOR_IMAGE_BUILD=1)." >&2
  exit 2
fi

python3 -m venv "$venv"
"$venv/bin/python" -m pip install --no-cache-dir "$spec"
# Refuse an image whose runtime is not the pinned one, or lacks a name we import.
"$venv/bin/python" - "$package" "$version" "$check" <<'PY'
import importlib.metadata, sys
package, version, check = sys.argv[1], sys.argv[2], sys.argv[3]
installed = importlib.metadata.version(package)
if installed != version:
    sys.exit(f"{package} {installed} installed, {version} pinned")
exec(check)
print(f"{package} {installed} ready")
PY
