/**
 * "The intent is durable before the first byte leaves the process", recorded in one sequence:
 * every fsync of a file (with the bytes that handle wrote) and every socket write, in the
 * order they happen in this process. The supervisor runs in-process against a real loopback
 * simulator; the hooks sit on Node's FileHandle and net.Socket prototypes, below the store
 * and below undici, so no refactor of either can hide a reordering.
 */
import * as fsp from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { attached, authorityWorld, type AuthorityWorld } from '../authority/authority-fixture.js';

type Recorded = { kind: 'fsync'; text: string } | { kind: 'socket-write'; socket: net.Socket; text: string };

const undo: Array<() => void> = [];
let world: AuthorityWorld | null = null;
afterEach(async () => {
  while (undo.length > 0) undo.pop()!();
  await world?.close();
  world = null;
});

/** Replaces `proto[key]` for this test only. */
function hook<T extends object, K extends keyof T>(proto: T, key: K, replacement: T[K]): void {
  const own = Object.getOwnPropertyDescriptor(proto, key);
  (proto as Record<K, T[K]>)[key] = replacement;
  undo.push(() => (own ? Object.defineProperty(proto, key, own) : delete proto[key]));
}

async function fileHandlePrototype(): Promise<FileHandle> {
  const probe = await fsp.open(path.join(os.tmpdir(), `argus-proto-${process.pid}.probe`), 'w');
  await probe.close();
  await fsp.unlink(path.join(os.tmpdir(), `argus-proto-${process.pid}.probe`));
  return Object.getPrototypeOf(probe) as FileHandle;
}

async function recordFsyncsAndSocketWrites(): Promise<Recorded[]> {
  const sequence: Recorded[] = [];
  const proto = await fileHandlePrototype();
  const written = new WeakMap<object, string>();
  const { writeFile, sync } = proto;
  hook(proto, 'writeFile', async function (this: FileHandle, data: unknown, options?: unknown) {
    written.set(this, (written.get(this) ?? '') + String(data));
    return (writeFile as (...a: unknown[]) => Promise<void>).call(this, data, options);
  } as FileHandle['writeFile']);
  hook(proto, 'sync', async function (this: FileHandle) {
    sequence.push({ kind: 'fsync', text: written.get(this) ?? '' });
    return sync.call(this);
  });
  const socketWrite = net.Socket.prototype.write;
  hook(net.Socket.prototype, 'write', function (this: net.Socket, chunk: unknown, ...rest: unknown[]) {
    sequence.push({ kind: 'socket-write', socket: this, text: Buffer.isBuffer(chunk) ? chunk.toString('latin1') : String(chunk) });
    return (socketWrite as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof socketWrite);
  return sequence;
}

/** True when `text` is a campaign document journaling `requestId` with no outcome yet. */
function journalsOpenIntent(text: string, requestId: string): boolean {
  try {
    const doc = JSON.parse(text) as { intents?: Array<{ requestId: string; outcome: unknown }> };
    return doc.intents?.some((intent) => intent.requestId === requestId && intent.outcome === null) === true;
  } catch {
    return false;
  }
}

describe('intent journal before the wire', () => {
  it('fsyncs the document that journals the intent before the first byte of the mutation request is written to a socket', async () => {
    world = await authorityWorld();
    await attached(world, 'c1');
    const claimed = await world.act({ campaign_id: 'c1', action: 'claim' });
    expect(claimed.ok).toBe(true);

    const sequence = await recordFsyncsAndSocketWrites();
    const r = await world.act({ campaign_id: 'c1', action: 'intervene', epoch: claimed.value.lease.epoch, instruction: 'checkpoint now' });
    expect(r.ok).toBe(true);
    const requestId = r.value.request_id as string;

    const journalFsync = sequence.findIndex((e) => e.kind === 'fsync' && journalsOpenIntent(e.text, requestId));
    const bodyWrite = sequence.findIndex((e) => e.kind === 'socket-write' && e.text.includes(requestId));
    expect(journalFsync, 'no fsync of a document journaling the open intent').toBeGreaterThanOrEqual(0);
    expect(bodyWrite, 'the mutation request was never written to a socket').toBeGreaterThanOrEqual(0);
    // The request's first byte is its request line, written on the same socket just before its body.
    const socket = (sequence[bodyWrite] as Extract<Recorded, { kind: 'socket-write' }>).socket;
    const firstByte = sequence.findLastIndex(
      (e, i) => i <= bodyWrite && e.kind === 'socket-write' && e.socket === socket && /^POST /.test(e.text),
    );
    expect(firstByte).toBeGreaterThanOrEqual(0);
    expect(journalFsync).toBeLessThan(firstByte);
    expect(world.sim.stats().appliedByRequestId[requestId]).toBe(1);
  });
});
