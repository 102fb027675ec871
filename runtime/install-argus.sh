#!/usr/bin/env bash
# Builds the pinned argus venv from runtime/source-lock.json, in the container build only
# (ARGUS_SUPERVISOR_IMAGE_BUILD=1; `--plan` prints what it would do): see install-runtime.sh.
exec "$(dirname "${BASH_SOURCE[0]}")/install-runtime.sh" argus "$@"
