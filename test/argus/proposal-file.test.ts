/**
 * The proposal file read back as hostile input, on a real file system: the name mapping, every
 * refusal code (symlink, FIFO, hard link, folder, too large, not JSON, not the schema, authority
 * keys, another event) and the sanitizing of every text field (controls, escapes, a canary).
 */
import { spawnSync } from 'node:child_process';
import { link, mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventKeyFileName, isEventKey, PROPOSAL_MAX_BYTES, proposalRelativePath, readProposal } from '../../adapters/argus/proposal-file.js';
import { canary } from '../fixtures/canary.js';
import { recordSyncOutput } from '../fixtures/child-output.js';
import { removeScratch, scratchDir } from '../fixtures/scratch.js';

const EVENT_ID = 'camp-1:attempt-completed:3';
const SECRET = canary('proposal-secret');
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200b-\u200f\u2060\ufeff]/;
let root: string;
let n = 0;

const record = (over: Record<string, unknown> = {}) => ({
  decision_id: 'dec-7',
  event_key: EVENT_ID,
  kind: 'submit',
  text: 'resume from checkpoint 12',
  reason: 'the eval regressed',
  evidence_refs: ['journal:j1'],
  ...over,
});

/** A fresh workdir with `decisions/` (or without, when `dir` is false). */
async function workdir(dir = true): Promise<string> {
  const wd = path.join(root, `wd-${++n}`);
  await mkdir(dir ? path.join(wd, 'decisions') : wd, { recursive: true });
  return wd;
}
/**
 * The bytes on disk never hold the canary in a form the end-of-run scan reads (the file is
 * hostile input, not a leak): each occurrence is written as JSON \u escapes, which
 * JSON.parse turns back into the canary the reader must then redact.
 */
const hideCanary = (json: string) =>
  json.replace(new RegExp(SECRET, 'gi'), (m) => [...m].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''));
async function withFile(content: string | Buffer, key = EVENT_ID): Promise<string> {
  const wd = await workdir();
  await writeFile(path.join(wd, proposalRelativePath(key)), typeof content === 'string' ? hideCanary(content) : content);
  return wd;
}

beforeAll(async () => {
  root = await scratchDir('argus-proposal-');
});
afterAll(() => removeScratch(root));

describe('eventKeyFileName', () => {
  it('maps : to _ and keeps the rest', () => {
    expect(eventKeyFileName('c1:attempt-completed:3')).toBe('c1_attempt-completed_3');
    expect(eventKeyFileName('A.b_c-9')).toBe('A.b_c-9');
    expect(proposalRelativePath('c1:x')).toBe('decisions/c1_x.json');
  });
  it.each(['', 'a/b', '../x', 'a b', 'x'.repeat(129), 'ключ', 'a\u0000b'])('refuses %j rather than rewriting it', (key) => {
    expect(isEventKey(key)).toBe(false);
    expect(() => eventKeyFileName(key)).toThrow(TypeError);
  });
});

describe('readProposal', () => {
  it('no decisions folder or no file → none', async () => {
    expect(await readProposal(await workdir(false), EVENT_ID)).toEqual({ status: 'none' });
    expect(await readProposal(await workdir(), EVENT_ID)).toEqual({ status: 'none' });
  });

  it('a valid record → found, exactly as written', async () => {
    const wd = await withFile(JSON.stringify(record()));
    expect(await readProposal(wd, EVENT_ID)).toEqual({ status: 'found', proposal: record() });
  });

  it('an invalid event key → event_key_invalid, nothing read', async () => {
    expect(await readProposal(await workdir(), '../../etc/passwd')).toEqual({ status: 'invalid', code: 'event_key_invalid' });
  });

  it('a record for another key that maps to the same file → proposal_other_event', async () => {
    const wd = await withFile(JSON.stringify(record({ event_key: 'camp-1_attempt-completed_3' })));
    expect(await readProposal(wd, EVENT_ID)).toEqual({ status: 'invalid', code: 'proposal_other_event' });
  });

  it.each<[string, Record<string, unknown>]>([
    ['an epoch', { epoch: 7 }],
    ['a task id', { task_id: 't-1' }],
    ['a context id', { context_id: 'ctx' }],
    ['a controller id', { controller_id: 'me' }],
    ['an unknown kind', { kind: 'delete_everything' }],
    ['submit without text', { text: undefined }],
    ['intervene without instruction', { kind: 'intervene', text: undefined }],
    ['text on a cancel', { kind: 'cancel' }],
    ['instruction on a submit', { instruction: 'also this' }],
    ['text over 4,000', { text: 'x'.repeat(4_001) }],
    ['reason over 1,000', { reason: 'r'.repeat(1_001) }],
    ['an empty reason', { reason: '' }],
    ['21 evidence refs', { evidence_refs: Array.from({ length: 21 }, (_, i) => `r${i}`) }],
    ['an evidence ref over 256', { evidence_refs: ['e'.repeat(257)] }],
    ['a decision id with a space', { decision_id: 'dec 1' }],
    ['a decision id that is a canary', { decision_id: SECRET }],
    ['a submit text that sanitizes to nothing', { text: '\u200b\u0007\u001b[2J' }],
  ])('%s → proposal_invalid', async (_name, over) => {
    const wd = await withFile(JSON.stringify(record(over)));
    expect(await readProposal(wd, EVENT_ID, { secrets: [SECRET] })).toEqual({ status: 'invalid', code: 'proposal_invalid' });
  });

  it('an array, a number or null is not a record → proposal_invalid', async () => {
    for (const raw of ['[]', '42', 'null']) expect(await readProposal(await withFile(raw), EVENT_ID)).toEqual({ status: 'invalid', code: 'proposal_invalid' });
  });

  it('a key written twice (the reader sees observe, JSON.parse cancel) → proposal_invalid, however spelled or placed', async () => {
    const tail = `"decision_id":"dec-7","event_key":"${EVENT_ID}","reason":"r","evidence_refs":[]`;
    for (const raw of [
      `{"kind":"observe","kind":"cancel",${tail}}`,
      `{"kind":"observe","k\\u0069nd":"cancel",${tail}}`,
      `{"kind":"cancel",${tail},"reason":"again"}`,
    ]) {
      expect(JSON.parse(raw)).toBeTypeOf('object'); // valid JSON: only the repeated key is wrong
      expect(await readProposal(await withFile(raw), EVENT_ID), raw).toEqual({ status: 'invalid', code: 'proposal_invalid' });
    }
    // The same keys once each still read as found.
    expect(await readProposal(await withFile(`{"kind":"cancel",${tail}}`), EVENT_ID)).toMatchObject({ status: 'found', proposal: { kind: 'cancel' } });
  });

  it('not JSON, or not UTF-8 → proposal_not_json', async () => {
    expect(await readProposal(await withFile('{"decision_id": '), EVENT_ID)).toEqual({ status: 'invalid', code: 'proposal_not_json' });
    expect(await readProposal(await withFile(Buffer.from([0x7b, 0xff, 0xfe, 0x7d])), EVENT_ID)).toEqual({ status: 'invalid', code: 'proposal_not_json' });
  });

  it('over 32 KiB → proposal_too_large (even when it is valid JSON)', async () => {
    const big = JSON.stringify({ ...record(), pad: ' '.repeat(PROPOSAL_MAX_BYTES) });
    expect(await readProposal(await withFile(big), EVENT_ID)).toEqual({ status: 'invalid', code: 'proposal_too_large' });
  });

  it('a symlink to a valid record elsewhere → proposal_not_a_file', async () => {
    const target = path.join(root, `outside-${++n}.json`);
    await writeFile(target, JSON.stringify(record()));
    const wd = await workdir();
    await symlink(target, path.join(wd, proposalRelativePath(EVENT_ID)));
    expect(await readProposal(wd, EVENT_ID)).toEqual({ status: 'invalid', code: 'proposal_not_a_file' });
  });

  it('a symlinked decisions folder → proposal_not_a_file', async () => {
    const elsewhere = await withFile(JSON.stringify(record()));
    const wd = await workdir(false);
    await symlink(path.join(elsewhere, 'decisions'), path.join(wd, 'decisions'));
    expect(await readProposal(wd, EVENT_ID)).toEqual({ status: 'invalid', code: 'proposal_not_a_file' });
  });

  it('a hard link to another file → proposal_not_a_file', async () => {
    const target = path.join(root, `linked-${++n}.json`);
    await writeFile(target, JSON.stringify(record()));
    const wd = await workdir();
    await link(target, path.join(wd, proposalRelativePath(EVENT_ID)));
    expect(await readProposal(wd, EVENT_ID)).toEqual({ status: 'invalid', code: 'proposal_not_a_file' });
  });

  it('a folder or a FIFO in its place → proposal_not_a_file, without blocking', async () => {
    const wd = await workdir();
    await mkdir(path.join(wd, proposalRelativePath(EVENT_ID)));
    expect(await readProposal(wd, EVENT_ID)).toEqual({ status: 'invalid', code: 'proposal_not_a_file' });
    const wd2 = await workdir();
    const fifo = path.join(wd2, proposalRelativePath(EVENT_ID));
    expect(recordSyncOutput('mkfifo', spawnSync('mkfifo', [fifo], { encoding: 'utf8' })).status).toBe(0);
    expect(await readProposal(wd2, EVENT_ID)).toEqual({ status: 'invalid', code: 'proposal_not_a_file' });
  });

  it('every text field comes out sanitized: controls, escapes, bidi, a canary, credential shapes', async () => {
    const wd = await withFile(
      JSON.stringify(
        record({
          text: `\u001b[31mresume\u001b[0m\nnow ${SECRET}\u202e`,
          reason: `because Bearer abc.def and x-api-key=${SECRET.toLowerCase()}\u0000`,
          evidence_refs: ['ok:1', '\u200b\u200b', `ref ${SECRET.slice(0, 12)}\u200b${SECRET.slice(12)}`],
        }),
      ),
    );
    const read = await readProposal(wd, EVENT_ID, { secrets: [SECRET] });
    expect(read.status).toBe('found');
    if (read.status !== 'found') return;
    expect(read.proposal.text).toBe('resume now [REDACTED]');
    expect(read.proposal.reason).toBe('because Bearer [REDACTED] and x-api-key: [REDACTED]');
    expect(read.proposal.evidence_refs).toEqual(['ok:1', 'ref [REDACTED]']);
    const all = JSON.stringify(read);
    expect(all).not.toContain(SECRET);
    expect(all.toLowerCase()).not.toContain(SECRET.toLowerCase());
    expect(Object.values(read.proposal).flat().filter((v) => CONTROLS.test(String(v)))).toEqual([]);
  });
});
