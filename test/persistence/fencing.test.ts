/**
 * The hosting right's fence (persistence/ownership.ts): every claim gets a greater fence than
 * any before it on the root (after a release, and after a SIGKILLed owner is taken over), and
 * every store write carries it: a write from a process whose right was taken over is refused
 * with `fence_stale` and changes nothing on disk. Children run a transpiled copy of
 * persistence/ (support/build-persistence.ts) through fixtures/owner-child.mjs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, readdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCampaignStore } from '../../persistence/campaign-store.js';
import { stateRootOwnership, WHOLE_STATE_ROOT, type HostingRight } from '../../persistence/owner-lock.js';
import { recordChildOutput } from '../fixtures/child-output.js';
import { removeScratch } from '../fixtures/scratch.js';
import { buildPersistence } from './support/build-persistence.js';
import { makeDoc } from './support/documents.js';
import { useTempDirs } from './support/temp-dir.js';

const tempDir = useTempDirs('argus-fencing-');
const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'owner-child.mjs');
const children = new Set<ChildProcess>();
let buildDir = '';

beforeAll(async () => {
  buildDir = await buildPersistence();
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (buildDir) await removeScratch(buildDir);
});

function startChild(mode: 'hold' | 'writer', root: string, id = '') {
  const child = recordChildOutput(spawn(process.execPath, [fixture, buildDir, mode, root, id], { stdio: ['pipe', 'pipe', 'pipe'] }), `owner-child-${mode}`);
  children.add(child);
  const lines: string[] = [];
  let stderr = '';
  let buffer = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      lines.push(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
    }
  });
  /** The first stdout line after `seen` lines that starts with `prefix` (rest of the line). */
  const next = async (prefix: string, seen = 0): Promise<string> => {
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 10))) {
      const line = lines.slice(seen).find((l) => l.startsWith(`${prefix} `));
      if (line) return line.slice(prefix.length + 1);
      if (child.exitCode !== null || child.signalCode !== null) break;
    }
    throw new Error(`no "${prefix}" line from owner-child (stderr: ${stderr})`);
  };
  return { child, lines, exited, next, send: (line: string) => child.stdin!.write(`${line}\n`) };
}

const ownerFile = (root: string) => path.join(root, 'owner.json');
const readOwner = async (root: string) => JSON.parse(await readFile(ownerFile(root), 'utf8')) as Record<string, unknown> & { fencing: number; pid: number };

async function claimed(root: string): Promise<HostingRight> {
  const right = await stateRootOwnership({ root }).claim(WHOLE_STATE_ROOT);
  if (!right.ok) throw new Error(`${right.code}: ${right.message}`);
  return right;
}

describe('the fence only goes up', () => {
  it('release then claim works, and the second claim gets a greater fence, persisted in owner.json', async () => {
    const root = await tempDir();
    const first = await claimed(root);
    expect(first.fence).toBe(1);
    expect(await stateRootOwnership({ root }).claim(WHOLE_STATE_ROOT)).toMatchObject({ ok: false, code: 'state_root_locked' });
    await first.release();
    expect(first.lost).toBe(true);
    expect(first.fenceFor('c1')).toBeNull();
    const second = await claimed(root);
    expect(second.fence).toBe(2);
    expect((await readOwner(root)).fencing).toBe(2);
    expect(await second.renew()).toEqual({ ok: true });
    await second.release();
  });

  it('the embedded right covers the whole root: a per-campaign claim is refused as unsupported', async () => {
    const root = await tempDir();
    const ownership = stateRootOwnership({ root });
    expect(ownership.granularity).toBe('state-root');
    expect(await ownership.claim({ kind: 'campaign', campaignId: 'c1' })).toMatchObject({ ok: false, code: 'scope_unsupported' });
  });

  it('a takeover after SIGKILL of the owner gets a greater fence', async () => {
    const root = await tempDir();
    await (await claimed(root)).release(); // fence 1 given and given back
    const owner = startChild('hold', root);
    const killedFence = Number(await owner.next('fence'));
    expect(killedFence).toBe(2);
    expect(await stateRootOwnership({ root }).claim(WHOLE_STATE_ROOT)).toMatchObject({ ok: false, code: 'state_root_locked', pid: owner.child.pid });
    owner.child.kill('SIGKILL');
    expect((await owner.exited).signal).toBe('SIGKILL');
    const next = await claimed(root);
    expect(next.fence).toBeGreaterThan(killedFence);
    expect((await readOwner(root)).fencing).toBe(next.fence);
    await next.release();
  }, 30_000);
});

describe('every store write carries the fence', () => {
  it('a process whose right was taken over while it still runs has its write refused, and nothing on disk changes', async () => {
    const root = await tempDir();
    const setup = await openCampaignStore({ root });
    expect((await setup.create(makeDoc('c1'))).ok).toBe(true);
    const a = startChild('writer', root, 'c1');
    const aFence = Number(await a.next('fence'));
    a.send('write');
    expect(JSON.parse(await a.next('result'))).toEqual({ ok: true, written: true });

    // A on "another host" that stopped touching its record 31 s ago (a pause, a partition):
    // B's real claim takes the root over, exactly as it would from another machine.
    const record = await readOwner(root);
    await writeFile(ownerFile(root), JSON.stringify({ ...record, host: 'paused-host.example' }));
    const old = new Date(Date.now() - 31_000);
    await utimes(ownerFile(root), old, old);
    const b = await claimed(root);
    expect(b.fence).toBe(aFence + 1);

    const before = await readFile(setup.layout.documentPath('c1'), 'utf8');
    const seen = a.lines.length;
    a.send('write');
    expect(JSON.parse(await a.next('result', seen))).toEqual({ ok: false, code: 'fence_stale' });
    expect(await a.next('lost')).toContain(`fence ${aFence}`);
    expect(await readFile(setup.layout.documentPath('c1'), 'utf8')).toBe(before);
    expect((await readdir(setup.layout.campaignsDir)).sort()).toEqual(['c1.json']); // no temp file left
    expect(await readdir(path.join(root, 'locks'))).toEqual([]);
    expect((await readOwner(root)).fencing).toBe(b.fence); // A did not touch B's record

    // B writes under its own fence.
    const bStore = await openCampaignStore({ root, fence: b });
    expect(await bStore.transact('c1', (d) => ({ ...d, objective: `${d.objective}!` }))).toMatchObject({ ok: true, written: true });
    a.child.kill('SIGKILL');
    await a.exited;
    await b.release();
  }, 30_000);

  it('in process: a greater fence on disk refuses create and transact, fires onLost once, and writes nothing', async () => {
    const root = await tempDir();
    const reasons: string[] = [];
    const right = await stateRootOwnership({ root, onLost: (r) => reasons.push(r) }).claim(WHOLE_STATE_ROOT);
    if (!right.ok) throw new Error(right.message);
    const store = await openCampaignStore({ root, fence: right });
    expect((await store.create(makeDoc('c1'))).ok).toBe(true);
    const before = await readFile(store.layout.documentPath('c1'), 'utf8');
    const events = await readFile(store.layout.eventsPath('c1'), 'utf8').catch(() => null);

    // Another owner's record with the next fence replaces ours (what a takeover writes).
    const record = await readOwner(root);
    await writeFile(ownerFile(root), JSON.stringify({ ...record, pid: record.pid + 1, claimId: 'another-owner', fencing: right.fence + 1 }));

    expect(await store.transact('c1', (d) => ({ ...d, objective: `${d.objective}!` }))).toMatchObject({ ok: false, code: 'fence_stale' });
    expect(right.lost).toBe(true);
    expect(await store.create(makeDoc('c2'))).toMatchObject({ ok: false, code: 'fence_stale' });
    expect(await right.renew()).toMatchObject({ ok: false, code: 'hosting_lost' });
    expect(reasons).toHaveLength(1);
    expect(await readFile(store.layout.documentPath('c1'), 'utf8')).toBe(before);
    expect(await readFile(store.layout.eventsPath('c1'), 'utf8').catch(() => null)).toBe(events);
    expect((await readdir(store.layout.campaignsDir)).sort()).toEqual(['c1.json']);
    // Releasing a lost right leaves the other owner's record alone.
    await right.release();
    expect((await readOwner(root)).fencing).toBe(right.fence + 1);
    expect((await readOwner(root)).releasedAt).toBeNull();
  });

  it('a write carrying another fence than the right holds, or for a campaign not hosted, is refused', async () => {
    const root = await tempDir();
    const right = await claimed(root);
    expect(await (await openCampaignStore({ root, fence: right })).create(makeDoc('c1'))).toMatchObject({ ok: true });
    expect(await right.verify('c1', right.fence - 1)).toMatchObject({ ok: false, code: 'fence_stale' });
    expect(await right.verify('c1', right.fence)).toEqual({ ok: true });
    const notHosting = { fenceFor: () => null, verify: right.verify };
    const store = await openCampaignStore({ root, fence: notHosting });
    expect(await store.transact('c1', (d) => ({ ...d, objective: `${d.objective}!` }))).toMatchObject({ ok: false, code: 'fence_stale' });
    expect(await readdir(path.join(root, 'locks'))).toEqual([]);
    await right.release();
  });
});
