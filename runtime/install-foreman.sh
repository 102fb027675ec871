#!/usr/bin/env bash
# Builds /opt/venv-foreman from runtime/source-lock.json. Container build only: it needs a
# Python package index (foreman-core's dependencies: pydantic, typesafe-sdk, ...), which the
# development machines and CI do not reach. Never run at supervisor run time; no sudo.
#   ARGUS_SUPERVISOR_IMAGE_BUILD=1 runtime/install-foreman.sh   # install
#   runtime/install-foreman.sh --plan                           # print what it would do
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
lock="${ARGUS_SUPERVISOR_SOURCE_LOCK:-$here/source-lock.json}"
pin() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["foreman"][sys.argv[2]])' "$lock" "$1"; }

venv="$(pin venv)"
package="$(pin package)"
version="$(pin version)"
source="$(pin source)"
commit="$(pin commit)"
repo="${source#github:}"
# Installed from the pinned commit's source archive, not "latest" from an index.
spec="${package} @ https://github.com/${repo}/archive/${commit}.tar.gz"

if [ "${1:-}" = "--plan" ]; then
  printf 'venv=%s\nspec=%s\nversion=%s\n' "$venv" "$spec" "$version"
  exit 0
fi
if [ "${ARGUS_SUPERVISOR_IMAGE_BUILD:-}" != "1" ]; then
  echo "install-foreman.sh runs only in the container build (ARGUS_SUPERVISOR_IMAGE_BUILD=1)." >&2
  exit 2
fi

python3 -m venv "$venv"
"$venv/bin/python" -m pip install --no-cache-dir "$spec"
# Refuse an image whose Foreman is not the pinned one, or lacks a name the shim imports.
"$venv/bin/python" - "$package" "$version" <<'PY'
import importlib.metadata, sys
package, version = sys.argv[1], sys.argv[2]
installed = importlib.metadata.version(package)
if installed != version:
    sys.exit(f"{package} {installed} installed, {version} pinned")
from foreman.foreman.jev import JevForemanModel  # noqa: F401
from foreman.observation import FactoryObservation  # noqa: F401
from foreman.policy import FactoryPolicy  # noqa: F401
from foreman.responsibilities import builtin_registry  # noqa: F401
print(f"{package} {installed} ready")
PY
