/**
 * The proposal channel (docs/argus-bridge.md): Argus has no typed "propose an action" API, so
 * the envelope asks the mission to write one JSON file, `decisions/<event key file>.json`, in
 * the project workdir. This module names that file and reads it back as hostile input: the
 * workdir is written by a model-driven process, so the file may be a symlink, a FIFO, a hard
 * link to something of ours, megabytes long, not JSON, or a well-formed record that tries to
 * smuggle authority (an epoch, a task id). Only a strict, sanitized record comes out.
 * Reading a proposal approves nothing: machines/argus.verdict.ts decides that.
 * @module
 */
import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { isRemoteIdentifier, redactSecrets, sanitizeRemoteText } from '../a2a/sanitize.js';
import { parseStrictJson } from './strict-json.js';

/** An event key usable as a file name: the campaign's durable event keys are built from these characters. */
export const EVENT_KEY_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** The proposal file is small: a few capped strings (4,000 + 4,000 + 1,000 + 20 × 256 ≈ 14 KiB) with room for JSON escapes. */
export const PROPOSAL_MAX_BYTES = 32 * 1024;

export const PROPOSAL_CAPS = { text: 4_000, instruction: 4_000, reason: 1_000, evidenceRefs: 20, evidenceRef: 256 } as const;

export const PROPOSAL_KINDS = ['observe', 'submit', 'intervene', 'cancel'] as const;
export type ProposalKind = (typeof PROPOSAL_KINDS)[number];

export function isEventKey(key: string): boolean {
  return EVENT_KEY_PATTERN.test(key);
}

/**
 * The file name (without `.json`) for an event key: `:` becomes `_` (a colon is not portable in
 * a file name). Two keys that differ only there share a file; the record's own `event_key`
 * must then still equal the key asked for, so the other event's file reads as `proposal_other_event`.
 * @throws TypeError when `key` is not an event key (never silently rewritten into one).
 */
export function eventKeyFileName(key: string): string {
  if (!isEventKey(key)) throw new TypeError('the event key is not a valid event key');
  return key.replace(/:/g, '_');
}

/** `decisions/<file>.json`, relative to the project workdir: the path the envelope names. */
export function proposalRelativePath(key: string): string {
  return `decisions/${eventKeyFileName(key)}.json`;
}

const identifier = z.string().refine((v) => isRemoteIdentifier(v, []), 'not an identifier');

/**
 * The record, strict: unknown keys (an `epoch`, `task_id`, `context_id`, `controller_id` a model
 * might add to steer authority) make it invalid, never ignored. `text` belongs to `submit` and
 * `instruction` to `intervene` only, so a record means one thing.
 */
export const ProposalSchema = z
  .strictObject({
    decision_id: identifier,
    event_key: z.string().max(128),
    kind: z.enum(PROPOSAL_KINDS),
    text: z.string().max(PROPOSAL_CAPS.text).optional(),
    instruction: z.string().max(PROPOSAL_CAPS.instruction).optional(),
    reason: z.string().min(1).max(PROPOSAL_CAPS.reason),
    evidence_refs: z.array(z.string().max(PROPOSAL_CAPS.evidenceRef)).max(PROPOSAL_CAPS.evidenceRefs),
  })
  .superRefine((p, ctx) => {
    if (p.kind === 'submit' && !p.text) ctx.addIssue({ code: 'custom', message: 'submit needs text' });
    if (p.kind !== 'submit' && p.text !== undefined) ctx.addIssue({ code: 'custom', message: 'text is for submit only' });
    if (p.kind === 'intervene' && !p.instruction) ctx.addIssue({ code: 'custom', message: 'intervene needs instruction' });
    if (p.kind !== 'intervene' && p.instruction !== undefined) ctx.addIssue({ code: 'custom', message: 'instruction is for intervene only' });
  });

export type Proposal = z.infer<typeof ProposalSchema>;
export type ProposalRead = { status: 'none' } | { status: 'invalid'; code: string } | { status: 'found'; proposal: Proposal };

const invalid = (code: string): ProposalRead => ({ status: 'invalid', code });

/**
 * Validates a parsed record and returns it sanitized (one line per field, secrets redacted,
 * capped). A record whose required text sanitizes to nothing, or whose decision id carries a
 * secret, is invalid. Exported so the fake and the chart's tests check the same rule.
 */
export function parseProposal(raw: unknown, eventKey: string, secrets: readonly string[] = []): ProposalRead {
  const parsed = ProposalSchema.safeParse(raw);
  if (!parsed.success) return invalid('proposal_invalid');
  const p = parsed.data;
  if (redactSecrets(p.decision_id, secrets) !== p.decision_id) return invalid('proposal_invalid');
  if (p.event_key !== eventKey) return invalid('proposal_other_event');
  const text = p.text === undefined ? undefined : sanitizeRemoteText(p.text, secrets, PROPOSAL_CAPS.text);
  const instruction = p.instruction === undefined ? undefined : sanitizeRemoteText(p.instruction, secrets, PROPOSAL_CAPS.instruction);
  const reason = sanitizeRemoteText(p.reason, secrets, PROPOSAL_CAPS.reason);
  if (text === '' || instruction === '' || reason === '') return invalid('proposal_invalid');
  const evidence_refs = p.evidence_refs.map((r) => sanitizeRemoteText(r, secrets, PROPOSAL_CAPS.evidenceRef)).filter((r) => r !== '');
  return {
    status: 'found',
    proposal: {
      decision_id: p.decision_id,
      event_key: p.event_key,
      kind: p.kind,
      ...(text !== undefined ? { text } : {}),
      ...(instruction !== undefined ? { instruction } : {}),
      reason,
      evidence_refs,
    },
  };
}

const errnoCode = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | null)?.code;

/**
 * Reads `<workdir>/decisions/<eventKeyFileName(eventKey)>.json`. No file → `none` (a settled
 * turn with nothing to do). The folder and the file are lstat'ed (a symlink, a folder, a FIFO or
 * a file with another hard link → `proposal_not_a_file`), then opened with O_NOFOLLOW|O_NONBLOCK
 * and fstat'ed again, so a swap between the checks can neither follow a link nor block on a
 * FIFO. At most PROPOSAL_MAX_BYTES + 1 bytes are read (`proposal_too_large`); the bytes must be
 * UTF-8 JSON (`proposal_not_json`) with no key repeated in any object, then a strict record
 * (`proposal_invalid` for either) about this event
 * (`proposal_other_event`). Never throws.
 */
export async function readProposal(workdir: string, eventKey: string, opts: { secrets?: readonly string[] } = {}): Promise<ProposalRead> {
  if (!isEventKey(eventKey)) return invalid('event_key_invalid');
  const dir = path.join(workdir, 'decisions');
  const file = path.join(dir, `${eventKeyFileName(eventKey)}.json`);
  try {
    const d = await lstat(dir);
    if (!d.isDirectory()) return invalid('proposal_not_a_file');
    const s = await lstat(file);
    if (!s.isFile() || s.nlink !== 1) return invalid('proposal_not_a_file');
    if (s.size > PROPOSAL_MAX_BYTES) return invalid('proposal_too_large');
  } catch (e) {
    return errnoCode(e) === 'ENOENT' ? { status: 'none' } : invalid('proposal_unreadable');
  }
  let bytes: Buffer;
  try {
    const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const s = await handle.stat();
      if (!s.isFile() || s.nlink !== 1) return invalid('proposal_not_a_file');
      const buf = Buffer.alloc(PROPOSAL_MAX_BYTES + 1);
      let length = 0;
      // Read to the cap whatever the stat said: the file may grow between stat and read.
      while (length < buf.length) {
        const { bytesRead } = await handle.read(buf, length, buf.length - length, length);
        if (bytesRead === 0) break;
        length += bytesRead;
      }
      if (length > PROPOSAL_MAX_BYTES) return invalid('proposal_too_large');
      bytes = buf.subarray(0, length);
    } finally {
      await handle.close();
    }
  } catch (e) {
    const code = errnoCode(e);
    if (code === 'ENOENT') return { status: 'none' };
    // O_NOFOLLOW on a symlink fails with ELOOP (Linux) or EMLINK (some BSDs).
    return code === 'ELOOP' || code === 'EMLINK' ? invalid('proposal_not_a_file') : invalid('proposal_unreadable');
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return invalid('proposal_not_json');
  }
  // A key written twice would mean one thing to JSON.parse (the last) and another to a reader (the first).
  const parsed = parseStrictJson(text);
  if (!parsed.ok) return invalid(parsed.code === 'duplicate_key' ? 'proposal_invalid' : 'proposal_not_json');
  return parseProposal(parsed.value, eventKey, opts.secrets ?? []);
}
