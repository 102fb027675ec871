/**
 * Real processes against one store root: lock contention, SIGKILL mid-write, and recovery of
 * a lock left by a killed holder. Children run a transpiled copy of persistence/ (see
 * support/build-persistence.ts) through fixtures/store-child.mjs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCampaignStore, type CampaignStore } from '../../persistence/campaign-store.js';
import { buildPersistence } from './support/build-persistence.js';
import { contextOf, makeDoc } from './support/documents.js';
import { useTempDirs } from './support/temp-dir.js';
import { removeScratch } from '../fixtures/scratch.js';
import { recordChildOutput } from '../fixtures/child-output.js';

const tempDir = useTempDirs();
const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'store-child.mjs');
const children = new Set<ChildProcess>();
let buildDir = '';

beforeAll(async () => {
  buildDir = await buildPersistence();
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (buildDir) await removeScratch(buildDir);
});

interface Child {
  process: ChildProcess;
  lines: string[];
  /** Resolves when a stdout line matches. */
  waitFor(predicate: (line: string) => boolean): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

function startChild(mode: string, root: string, id: string, count?: number): Child {
  const child = recordChildOutput(
    spawn(process.execPath, [fixture, buildDir, mode, root, id, ...(count === undefined ? [] : [String(count)])], { stdio: ['ignore', 'pipe', 'pipe'] }),
    `store-child-${mode}`,
  );
  children.add(child);
  const lines: string[] = [];
  const waiters: { predicate: (line: string) => boolean; resolve: () => void }[] = [];
  let buffer = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      lines.push(line);
      for (const waiter of waiters.splice(0)) (waiter.predicate(line) ? waiter.resolve() : waiters.push(waiter));
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  // 'close', not 'exit': stdout and stderr are flushed and every line has been seen.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stderr })),
  );
  return {
    process: child,
    lines,
    exited,
    waitFor: (predicate) =>
      new Promise<void>((resolve, reject) => {
        if (lines.some(predicate)) return resolve();
        waiters.push({ predicate, resolve });
        void exited.then((e) => reject(new Error(`child exited (${e.code ?? e.signal}) before expected output: ${e.stderr}`)));
      }),
  };
}

async function storeWithCampaign(id: string): Promise<{ root: string; store: CampaignStore }> {
  const root = await tempDir();
  const store = await openCampaignStore({ root, lock: { staleMs: 5000 } });
  const created = await store.create(makeDoc(id));
  expect(created.ok).toBe(true);
  return { root, store };
}

describe('cross-process store', () => {
  it('two processes doing 50 transactions each lose none', async () => {
    const { root, store } = await storeWithCampaign('shared');
    const a = startChild('increment', root, 'shared', 50);
    const b = startChild('increment', root, 'shared', 50);
    const [ea, eb] = await Promise.all([a.exited, b.exited]);
    expect([ea.code, eb.code, ea.stderr, eb.stderr]).toEqual([0, 0, '', '']);
    const loaded = await store.load('shared');
    if (!loaded.ok) throw new Error(loaded.reason);
    expect(contextOf(loaded.doc).readFailures.consecutive).toBe(100);
    expect(loaded.doc.outbox.nextSeq).toBe(101);
    expect(loaded.doc.outbox.events.map((e) => e.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(await readdir(path.join(root, 'locks'))).toEqual([]);
  }, 60_000);

  it('a SIGKILLed writer leaves a whole document, and its lock is recovered', async () => {
    const { root, store } = await storeWithCampaign('churn');
    const child = startChild('churn', root, 'churn');
    await child.waitFor((line) => line === 'wrote 5');
    await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 40)));
    child.process.kill('SIGKILL');
    expect((await child.exited).signal).toBe('SIGKILL');
    const lastReported = Number(child.lines.filter((l) => l.startsWith('wrote ')).at(-1)!.slice('wrote '.length));

    const loaded = await store.load('churn');
    if (!loaded.ok) throw new Error(`torn document: ${loaded.reason}`);
    const snapshot = loaded.doc.machine!.snapshot as { n: number; pad: string; digest: string };
    expect(createHash('sha256').update(`${snapshot.n}:${snapshot.pad}`).digest('hex')).toBe(snapshot.digest);
    // Every write the child saw complete is on disk; at most the one in flight is missing.
    expect(snapshot.n).toBeGreaterThanOrEqual(lastReported);
    expect(snapshot.n).toBeLessThanOrEqual(lastReported + 1);

    // Whether or not it died holding the lock, the next writer gets through.
    const after = await store.transact('churn', (d) => ({ ...d, sourceSha: 'abc123' }));
    expect(after).toMatchObject({ ok: true, written: true });
    expect(await readdir(path.join(root, 'locks'))).toEqual([]);
  }, 60_000);

  it('a live holder is respected: a waiter with little patience times out', async () => {
    const { root } = await storeWithCampaign('held');
    const holder = startChild('hold', root, 'held');
    await holder.waitFor((line) => line === 'locked');
    const impatient = await openCampaignStore({
      root,
      lock: { staleMs: 5000, retries: { retries: 3, factor: 1, minTimeout: 50, maxTimeout: 50, randomize: false } },
    });
    expect(await impatient.transact('held', (d) => ({ ...d, sourceSha: 'abc123' }))).toMatchObject({ ok: false, code: 'lock_timeout' });
    holder.process.kill('SIGKILL');
    await holder.exited;
  }, 60_000);

  it('a lock left by a SIGKILLed holder goes stale and is taken over', async () => {
    const { root, store } = await storeWithCampaign('orphan');
    const holder = startChild('hold', root, 'orphan');
    await holder.waitFor((line) => line === 'locked');
    holder.process.kill('SIGKILL');
    await holder.exited;
    const lockDir = path.join(root, 'locks', 'orphan.lock');
    expect((await stat(lockDir)).isDirectory()).toBe(true);
    const result = await store.transact('orphan', (d) => ({ ...d, sourceSha: 'abc123' }));
    expect(result).toMatchObject({ ok: true, written: true });
    await expect(stat(lockDir)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(JSON.parse(await readFile(path.join(root, 'campaigns', 'orphan.json'), 'utf8'))).toMatchObject({ sourceSha: 'abc123' });
  }, 60_000);
});
