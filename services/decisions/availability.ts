/**
 * Whether the decision runtimes could run, found out from the configuration and the file
 * system alone: no child is started and no model is called to ask (a probe would be a model
 * process launched by a health check). So the answer is "everything it needs is in place",
 * not "it answered": a runtime that is present but broken fails its first call with its own
 * code (`argus_unavailable`, `foreman_unavailable`), which the caller treats as "no decision".
 *
 * What each missing part means (reported by `/health` as names only, never a path or a value):
 * - `backend`: `ARGUS_SUPERVISOR_BACKEND` is unset. It is required and never inferred.
 * - `argus_python` / `foreman_python`: the interpreter is unset, or is not an executable file.
 * - `argus_runtime`: the Argus MCP server is not installed beside that interpreter (no
 *   `argus_skill/plugin/mcp_server.py` in the venv's site-packages, laid out like
 *   /opt/venv-argus), or the SIMULATED server script given instead does not exist, or the
 *   child's environment or home cannot be built (e.g. a backend variable equal to one of our
 *   secrets). A python outside such a venv is reported missing even if it could import
 *   argus_skill: the check reads files, it never starts python.
 * - `foreman_shim`: the shim (runtime/foreman_shim.py, or the SIMULATED one) does not exist.
 * - `foreman_runtime`: the upstream `foreman` package is not beside the Foreman interpreter
 *   (not checked for the SIMULATED shim, which needs nothing but python).
 * @module
 */
import { accessSync, constants, existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

export type ArgusMissing = 'backend' | 'argus_python' | 'argus_runtime';
export type ForemanMissing = 'foreman_python' | 'foreman_shim' | 'foreman_runtime';

export interface DecisionAvailability {
  argus: { available: boolean; missing: ArgusMissing[] };
  /** `available` is false while disabled; `missing` still lists what enabling it would lack. */
  foreman: { enabled: boolean; available: boolean; missing: ForemanMissing[] };
}

/** An existing regular file (symlinks followed, as a venv's python is one) we may execute. */
export function executableFile(file: string | null): boolean {
  if (file === null || !path.isAbsolute(file)) return false;
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Library folders a CPython prefix uses for installed packages (venv, Debian, /usr/local). */
const LIB_DIRS = ['lib', 'lib64', path.join('local', 'lib')];
const PACKAGE_DIRS = ['site-packages', 'dist-packages'];

/**
 * True when `relative` (e.g. `argus_skill/plugin/mcp_server.py`) exists in a site-packages of
 * the prefix of `python` (`<prefix>/bin/python` → `<prefix>/lib/python3.X/site-packages`).
 * The interpreter path is used as given, not resolved: a venv's python is a symlink to the
 * system one, and the venv, not the system, holds the packages.
 */
export function installedBeside(python: string, relative: string): boolean {
  const prefix = path.dirname(path.dirname(python));
  for (const lib of LIB_DIRS) {
    let versions: string[];
    try {
      versions = readdirSync(path.join(prefix, lib)).filter((name) => /^python3(\.\d+)?$/.test(name));
    } catch {
      continue;
    }
    for (const version of versions) {
      for (const packages of PACKAGE_DIRS) {
        if (existsSync(path.join(prefix, lib, version, packages, relative))) return true;
      }
    }
  }
  return false;
}

/** The module the real Argus MCP server is started as (`-m argus_skill.plugin.mcp_server`). */
export const ARGUS_SERVER_FILE = path.join('argus_skill', 'plugin', 'mcp_server.py');
/** The upstream package the real shim imports (`from foreman.config import ...`). */
export const FOREMAN_PACKAGE_FILE = path.join('foreman', '__init__.py');
