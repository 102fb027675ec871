/**
 * Dialect normalization: a task as any supported A2A version sends it (1.0 `TASK_STATE_*`
 * and `{text}` parts, 0.3/0.2.5 lowercase states and `kind` fields) becomes one TaskSnapshot.
 * Unknown fields are ignored; a field of the wrong type makes the whole answer malformed.
 * @module
 */
import { hash } from 'node:crypto';
import { z } from 'zod';
import { CONTROL_EXTENSION_URI } from './control-contract.js';
import { err, ok, remoteError, type Result } from './errors.js';
import { boundArtifacts, boundControl, checkTaskIdentity, payloadInvalid } from './remote-fields.js';
import { REMOTE_TEXT_CAPS, remoteText, sanitizeRemoteText } from './sanitize.js';
import { controlMetadataSchema, type NormalizedState, type TaskSnapshot } from './snapshot.js';

/** Long enough to recognize a status line; short enough never to flood a prompt or a log. */
export const EXCERPT_MAX = REMOTE_TEXT_CAPS.excerpt;

const partSchema = z.object({ text: z.string().optional() });
const messageSchema = z.object({ role: z.string(), parts: z.array(partSchema).default([]) });

export const wireTaskSchema = z.object({
  id: z.string().min(1),
  contextId: z.string().min(1),
  status: z.object({
    state: z.string(),
    message: messageSchema.nullish(),
    timestamp: z.string().nullish(),
  }),
  artifacts: z.array(z.object({ artifactId: z.string(), name: z.string().nullish() })).nullish(),
  history: z.array(messageSchema).nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});
type WireMessage = z.infer<typeof messageSchema>;

/** Both spellings map here: 1.0 `TASK_STATE_INPUT_REQUIRED` and 0.3 `input-required`. */
const STATES: Readonly<Record<string, NormalizedState>> = {
  submitted: 'submitted',
  working: 'working',
  'input-required': 'input-required',
  'auth-required': 'auth-required',
  completed: 'completed',
  failed: 'failed',
  canceled: 'canceled',
  cancelled: 'canceled',
  rejected: 'rejected',
};

export function normalizeState(raw: string): NormalizedState {
  const key = raw.startsWith('TASK_STATE_') ? raw.slice('TASK_STATE_'.length).toLowerCase().replace(/_/g, '-') : raw;
  return STATES[key] ?? 'unknown';
}

const isAgent = (m: WireMessage) => m.role === 'agent' || m.role === 'ROLE_AGENT';

const textOf = (m: WireMessage): string =>
  m.parts
    .map((p) => p.text)
    .filter((t): t is string => t !== undefined)
    .join('\n');

/** The status message if it says something, else the last agent entry in history (0.2.5 keeps results there). */
function latestAgentText(task: z.infer<typeof wireTaskSchema>): string | null {
  const status = task.status.message;
  if (status && isAgent(status)) {
    const text = textOf(status);
    if (text !== '') return text;
  }
  const history = task.history ?? [];
  for (let i = history.length - 1; i >= 0; i--) {
    const entry = history[i];
    if (entry && isAgent(entry)) {
      const text = textOf(entry);
      if (text !== '') return text;
    }
  }
  return null;
}

const malformed = (sentence: string) => err(remoteError('remote_malformed', sentence, 'ambiguous'));

/**
 * Normalizes one wire task through the remote-text boundary: ids validated, every string
 * sanitized, `secrets` redacted (a remote may echo a credential), every field capped.
 * @example normalizeTask({id: 't', contextId: 'c', status: {state: 'TASK_STATE_WORKING'}}, []) // ok(snapshot)
 */
export function normalizeTask(raw: unknown, secrets: readonly string[]): Result<TaskSnapshot> {
  const parsed = wireTaskSchema.safeParse(raw);
  if (!parsed.success) return malformed('the remote task does not have the shape of an A2A task');
  const task = parsed.data;
  const identity = checkTaskIdentity(task, secrets);
  if (!identity.ok) return identity;

  const block = task.metadata?.[CONTROL_EXTENSION_URI];
  let control: TaskSnapshot['control'] = null;
  if (block !== undefined && block !== null) {
    const controlParsed = controlMetadataSchema.safeParse(block);
    if (!controlParsed.success) return malformed('the remote task carries an invalid control-extension block');
    const bounded = boundControl(controlParsed.data, secrets);
    if (!bounded.ok) return bounded;
    // A lease covers a context: one reported for another context than the task's is not ours to read.
    if (bounded.value.lease && bounded.value.lease.contextId !== task.contextId) {
      return payloadInvalid('the remote task reports a lease on another context than its own');
    }
    control = bounded.value;
  }

  const text = latestAgentText(task);
  return ok({
    id: task.id,
    contextId: task.contextId,
    state: normalizeState(task.status.state),
    timestamp: remoteText(task.status.timestamp, secrets, REMOTE_TEXT_CAPS.instant),
    artifacts: boundArtifacts(task.artifacts ?? [], secrets),
    // One-shot `hash` (Node >= 20.12): no Hash object per read, same digest.
    latestAgentMessageDigest: text === null ? null : hash('sha256', text, 'hex'),
    latestAgentMessageExcerpt: text === null ? null : sanitizeRemoteText(text, secrets, EXCERPT_MAX),
    control,
  });
}
