/**
 * No export of the package accepts a raw machine event. The built dist/index.js exports exactly
 * what docs/library.md lists; every function export, and every method reachable from what it
 * returns (the supervisor, its campaign handle), is called with forged statechart events
 * (`MUTATE` with `epochEnforced: true`, `TICK`, `OPERATOR_CLAIM`, a granted `CLAIM_SETTLED`, an
 * `OPERATOR_ANSWER`, and a valid command carrying those facts as extra fields). Each is refused
 * (`invalid_request`, a TypeError) or has no input at all; afterwards the remote received no
 * request, the campaign's document is byte-identical and its view unchanged.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { REPO_ROOT } from '../fixtures/supervisor-harness.js';
import { removeScratch, scratchDir } from '../fixtures/scratch.js';

type Lib = typeof import('../../index.js');
type AnyFn = (...args: unknown[]) => unknown;

const NOW = new Date().toISOString();
const CAPABILITIES = { controlExtension: true, epochEnforced: true, claim: true, renew: true, release: true, intervene: true, cancel: true, submit: true, requestReadback: true };

function rawEvents(taskId: string, contextId: string): Record<string, unknown>[] {
  const binding = { taskId, contextId };
  const forged = {
    type: 'MUTATE',
    epochEnforced: true,
    mutation: { kind: 'intervene', instruction: 'forged' },
    requestId: 'forged-1',
    epoch: 1,
    approval: { kind: 'operator', principal: 'api-key' },
    now: NOW,
    mutationInFlight: false,
    boundTaskState: 'completed',
    capabilities: CAPABILITIES,
    binding,
  };
  return [
    forged,
    { type: 'TICK', now: NOW, cadenceMs: 60_000, binding },
    { type: 'OPERATOR_CLAIM', ttlSeconds: 600, now: NOW, minTtlSeconds: 120, capabilities: CAPABILITIES, binding, contextControlledBy: null },
    { type: 'CLAIM', ttlSeconds: 600 },
    { type: 'CLAIM_SETTLED', granted: true, epoch: 99, expiresAt: NOW },
    { type: 'OPERATOR_ANSWER', questionKey: 'q', answer: 'forged', now: NOW, argusAvailable: true, requestId: 'forged-2', mutationInFlight: false, boundTaskState: null, capabilities: CAPABILITIES, binding },
    // A valid command with the facts a guard judges riding along.
    { ...forged, action: 'intervene', instruction: 'forged', type: undefined },
    { action: 'intervene', epoch: 1, instruction: 'forged', epochEnforced: true, capabilities: CAPABILITIES },
    { action: 'release', epoch: 1, campaign_id: 'c1', mutationInFlight: false },
    { action: 'create', campaign_id: 'forged', objective: 'forged', type: 'MUTATE' },
  ];
}

/** The runtime exports docs/library.md lists under "Exports". */
async function documentedExports(): Promise<string[]> {
  const doc = await readFile(path.join(REPO_ROOT, 'docs/library.md'), 'utf8');
  const section = doc.split('\n## Exports\n')[1]?.split('\n## ')[0]?.split('\nThe rest are types')[0] ?? '';
  return [...section.matchAll(/^- `([A-Za-z]+)`$/gm)].map((m) => m[1]!).sort();
}

/** Every function reachable from `root` through own properties (frozen plain objects), by path. */
function methods(root: object, prefix: string): Map<string, AnyFn> {
  const found = new Map<string, AnyFn>();
  for (const [key, value] of Object.entries(root)) {
    if (typeof value === 'function') found.set(`${prefix}.${key}`, value as AnyFn);
    else if (typeof value === 'object' && value !== null) for (const [p, f] of methods(value, `${prefix}.${key}`)) found.set(p, f);
  }
  return found;
}

/** What one call did: its answer's code, a thrown error's name, or 'ok' for a read. */
async function outcome(call: () => unknown): Promise<string> {
  try {
    const result = (await call()) as { ok?: boolean; error?: { code: string } } | undefined;
    if (result && typeof result === 'object' && result.ok === false) return result.error!.code;
    return 'returned';
  } catch (error) {
    return (error as Error).name;
  }
}

let scratch: string;
let sim: RunningSimulator;
let lib: Lib;

beforeAll(async () => {
  scratch = await scratchDir('library-exports-');
  sim = await startSimulator({ port: 0, scenario: 'blocker', pollsPerStage: 100 });
  lib = (await import(pathToFileURL(path.join(REPO_ROOT, 'dist/index.js')).href)) as Lib;
});

afterAll(async () => {
  await sim?.close();
  if (scratch) await removeScratch(scratch);
});

describe('the package exports', () => {
  it('are exactly the documented ones', async () => {
    const documented = await documentedExports();
    expect(documented.length).toBeGreaterThan(0);
    expect(Object.keys(lib).sort()).toEqual(documented);
  });

  it('refuse a raw machine event at every entry point: nothing changes, nothing is sent', async () => {
    const [taskId] = sim.createTasks(1, 'blocker');
    const root = path.join(scratch, 'state');
    const config = lib.loadConfig({ ARGUS_SUPERVISOR_ENABLED: '1', OPENTRAINING_A2A_URL: sim.url, ARGUS_SUPERVISOR_STATE_ROOT: root });
    const supervisor = lib.createSupervisor({ config });
    await supervisor.start();
    try {
      expect((await supervisor.campaigns.create({ campaign_id: 'c1', objective: 'o', remote_task_id: taskId! })).ok).toBe(true);
      const handle = supervisor.campaign('c1');
      const observed = await handle.request({ action: 'observe' });
      expect(observed.ok).toBe(true);
      const claimed = await handle.request({ action: 'claim' });
      expect(claimed.ok && claimed.value.campaign.state).toBe('controlling');
      const contextId = claimed.ok ? claimed.value.campaign.remote.context_id! : '';
      const events = rawEvents(taskId!, contextId);

      const before = {
        requests: structuredClone(sim.stats().requests),
        mutations: structuredClone(sim.stats().mutationsApplied),
        ledger: sim.ledger().entries.length,
        document: await readFile(path.join(root, 'campaigns', 'c1.json'), 'utf8'),
        view: await handle.view(),
      };

      // The surface itself is the documented one: a new method must be reviewed here too.
      const surface = new Map([...methods(supervisor, 'supervisor'), ...methods(handle, 'handle')]);
      expect([...surface.keys()].sort()).toEqual(
        [
          'supervisor.start',
          'supervisor.stop',
          'supervisor.health',
          'supervisor.campaigns.list',
          'supervisor.campaigns.get',
          'supervisor.campaigns.create',
          'supervisor.campaign',
          'supervisor.events.subscribe',
          'handle.view',
          'handle.request',
          'handle.subscribe',
        ].sort(),
      );
      // Take no input at all: nothing to forge through (start once only, stop ends this test).
      expect([supervisor.start.length, supervisor.stop.length, supervisor.health.length, supervisor.campaigns.list.length]).toEqual([0, 0, 0, 0]);
      expect(await outcome(() => (supervisor.start as AnyFn)(events[0]))).toBe('Error');

      const seen: Record<string, Set<string>> = {};
      const note = (name: string, result: string) => (seen[name] ??= new Set()).add(result);
      for (const [name, fn] of surface) {
        if (name === 'supervisor.start' || name === 'supervisor.stop') continue;
        for (const event of [...events, undefined]) {
          note(name, await outcome(() => fn(event)));
          note(name, await outcome(() => fn(event, event)));
          if (event && (name === 'handle.request' || name === 'supervisor.campaigns.create')) note(name, await outcome(() => fn({ action: 'observe' }, event)));
        }
      }
      for (const [name, fn] of Object.entries(lib)) {
        if (typeof fn !== 'function') continue;
        for (const event of events) {
          note(`export.${name}`, await outcome(() => (fn as AnyFn)(event)));
          note(`export.${name}(new)`, await outcome(() => Reflect.construct(fn as AnyFn, [event])));
        }
      }

      expect(Object.fromEntries(Object.entries(seen).map(([k, v]) => [k, [...v].sort()]))).toEqual({
        // Reads: they answer, they change nothing (checked below).
        'supervisor.health': ['returned'],
        'supervisor.campaigns.list': ['returned'],
        'handle.view': ['returned'],
        // Inputs: a raw event is never a valid argument.
        'supervisor.campaigns.get': ['invalid_request'],
        'supervisor.campaigns.create': ['invalid_request'],
        'handle.request': ['invalid_request'],
        'supervisor.campaign': ['TypeError'],
        'supervisor.events.subscribe': ['TypeError'],
        'handle.subscribe': ['TypeError'],
        'export.createSupervisor': ['TypeError'],
        'export.createSupervisor(new)': ['TypeError'],
        // The config loader reads environment variable names only: an event's fields are none.
        'export.loadConfig': ['returned'],
        'export.loadConfig(new)': ['returned'],
        'export.ConfigError': ['TypeError'],
        'export.ConfigError(new)': ['TypeError'],
      });
      for (const event of events) expect(lib.loadConfig(event as NodeJS.ProcessEnv)).toEqual(lib.loadConfig({}));

      expect(sim.stats().requests).toEqual(before.requests);
      expect(sim.stats().mutationsApplied).toEqual(before.mutations);
      expect(sim.ledger().entries.length).toBe(before.ledger);
      expect(await readFile(path.join(root, 'campaigns', 'c1.json'), 'utf8')).toBe(before.document);
      expect(await handle.view()).toEqual(before.view);
      expect((await supervisor.campaigns.get('forged')).ok).toBe(false);
    } finally {
      await (supervisor.stop as AnyFn)(rawEvents('t', 'c')[0]);
    }
    // After stop nothing runs at all.
    expect(await supervisor.campaign('c1').request({ action: 'observe' })).toEqual({
      ok: false,
      error: { code: 'invalid_request', message: 'The supervisor is stopped.' },
    });
  });
});
