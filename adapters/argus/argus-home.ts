/**
 * Where Argus keeps its state: `ARGUS_SKILL_HOME`, always inside our own state root so one
 * backup, one permission check and one cleanup cover both, and so a misconfigured path can
 * never point Argus (a model-driven process that writes files) at the operator's home or `/`.
 * @module
 */
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** A configuration we refuse to run with; `code` is an identifier the caller can surface. */
export class ArgusConfigError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ArgusConfigError';
  }
}

/** True when `child` lies strictly below `parent` (both absolute, normalized). */
function strictlyInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/**
 * The real location of `p`: the realpath of its nearest existing ancestor plus the rest. A
 * symlinked parent of a not-yet-created home would otherwise slip past the check.
 */
function realLocation(p: string): string {
  let existing = p;
  const rest: string[] = [];
  while (!existsSync(existing)) {
    const parent = path.dirname(existing);
    if (parent === existing) break;
    rest.unshift(path.basename(existing));
    existing = parent;
  }
  return path.join(realpathSync(existing), ...rest);
}

/**
 * `ARGUS_SKILL_HOME` for this installation: `<stateRoot>/argus-home` by default. A configured
 * path (absolute, or relative to the state root) must lie strictly inside the state root, both
 * as written and after resolving symlinks; the state root itself is refused too (Argus's files
 * would mix with our campaign files).
 * @throws ArgusConfigError `argus_home_outside_state_root`
 */
export function resolveArgusHome(stateRoot: string, configured?: string): string {
  const root = path.resolve(stateRoot);
  const home = configured === undefined || configured.trim() === '' ? path.join(root, 'argus-home') : path.resolve(root, configured);
  const refuse = () =>
    new ArgusConfigError('argus_home_outside_state_root', 'The Argus home must be a folder inside the state root.');
  if (!strictlyInside(root, home)) throw refuse();
  if (existsSync(root) && !strictlyInside(realLocation(root), realLocation(home))) throw refuse();
  return home;
}

/** The campaign id rule of persistence/campaign-id.ts (adapters may not import it): no leading dot, no separator. */
const CAMPAIGN_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

/** The Argus project workdir of one campaign (we create it; Argus only binds to it). */
export function campaignWorkdir(home: string, campaignId: string): string {
  if (!CAMPAIGN_ID.test(campaignId)) {
    throw new ArgusConfigError('invalid_campaign_id', 'A campaign id must be a plain identifier to name a workdir.');
  }
  return path.join(home, 'workspaces', campaignId);
}
