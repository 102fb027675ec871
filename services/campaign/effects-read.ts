/**
 * The heartbeat's status read, behind the campaign's long-lived `statusReader` child: each READ
 * the chart sends is answered by exactly one READ_DONE (or READ_CRASHED). The common case (10,000 campaigns every
 * cadence) is one GetTask request and one string comparison: an unchanged fingerprint with no
 * failure streak returns `observation: null` without reading the document. Only a material,
 * recovering or failed read asks for the published dedupe keys and runs the reducer.
 * @module
 */
import { fromCallback } from 'xstate';
import { INTERRUPTED_STATES, ok } from '../../adapters/a2a/index.js';
import type { ReadRequest, ReadStatusInput, ReadStatusOutput } from '../../machines/campaign.types.js';
import { materialFingerprint } from '../reducer/fingerprint.js';
import { leaseReadbackOf, readFailureBackoffMs, reduce, reduceReadFailure } from '../reducer/reducer.js';
import { REMOTE_NOT_CONFIGURED, type EffectDeps } from './effect-deps.js';
import { remoteOf } from '../authority/authority-ports.js';

/** Failure codes that mean the remote did not answer at all (a clear answer means it is up). */
export const UNREACHABLE_CODES: ReadonlySet<string> = new Set(['remote_timeout', 'remote_unreachable', 'remote_http_status']);

export const isUnreachable = (code: string | null): boolean => code !== null && UNREACHABLE_CODES.has(code);

type ReadAnswer = { type: 'READ_DONE'; output: ReadStatusOutput } | { type: 'READ_CRASHED' };

export function createReadEffects(deps: EffectDeps) {
  const { controllerId } = deps;
  /** Whether Argus can run and Foreman is on: facts the attention region decides a wake with. */
  const decisionFacts = () => {
    const available = deps.decisions?.recentAvailability();
    return { argusAvailable: available?.argus.available ?? false, foremanEnabled: available?.foreman.available ?? false };
  };

  /** One status read (exported for the tests that drive a read without a campaign actor). */
  const readOnce = async (input: ReadStatusInput): Promise<ReadStatusOutput> => {
    const { campaignId, previous, readFailures } = input;
    const remote = remoteOf(deps, campaignId);
    if (!remote) {
      // Nothing was read, so nothing counts against the remote: the streak stands, no alert.
      const consecutive = readFailures.consecutive;
      return {
        ok: false,
        requestedAt: deps.now().toISOString(),
        answeredAt: null,
        code: REMOTE_NOT_CONFIGURED,
        failure: { consecutive, critical: false, backoffMs: readFailureBackoffMs(consecutive, input.cadenceMs), drafts: [] },
      };
    }
    // The beat's listing answered for this task already (same boundary, same identity checks):
    // its answer is this read's, and the chart judges it exactly as a GetTask answer. Only a
    // beat's read takes it: an operator's OBSERVE asked for a fresh read.
    const listed = input.beat === true ? deps.fleet?.take(input.taskId, input.contextId) : undefined;
    const requestedAt = listed ? listed.requestedAt : deps.now().toISOString();
    // The answer must be about this task and (once known) its context, else it is a failed read.
    const read = listed ? ok(listed.snapshot) : await remote.getTask(input.taskId, { contextId: input.contextId });
    const answeredAt = listed ? listed.answeredAt : deps.now();
    const at = answeredAt.toISOString();

    if (!read.ok) {
      const consecutive = readFailures.consecutive + 1;
      const failure = reduceReadFailure(consecutive, {
        campaignId,
        cadenceMs: input.cadenceMs,
        // The last successful observation names this outage, so the next outage alerts again.
        outageStartedAt: previous?.observedAt ?? input.createdAt,
        errorCode: read.error.code,
        published: await deps.publishedKeys(campaignId),
      });
      return {
        ok: false,
        requestedAt,
        answeredAt: at,
        code: read.error.code,
        failure: { consecutive, critical: failure.critical, backoffMs: failure.backoffMs, drafts: failure.publicEvents },
      };
    }

    const snapshot = read.value;
    const answered = { requestedAt, answeredAt: at, message: snapshot.latestAgentMessageExcerpt };
    const fingerprint = materialFingerprint(snapshot);
    const readback = leaseReadbackOf(snapshot, at);
    const recovering = readFailures.consecutive > 0;
    if (previous?.fingerprint === fingerprint && !recovering) return { ok: true, ...answered, fingerprint, readback, observation: null };

    const reduced = reduce(previous, snapshot, { campaignId, controllerId, now: answeredAt, published: await deps.publishedKeys(campaignId) });
    // A recovering read that is otherwise noise still stamps when the remote last answered: the
    // next outage is named by it (`outageStartedAt`), so it must not reuse the previous outage's
    // dedupe key and be silenced as an already-published CRITICAL.
    const view = reduced.material ? reduced.view : { ...reduced.view, observedAt: at };
    return {
      ok: true,
      ...answered,
      fingerprint,
      readback,
      observation: {
        view,
        events: reduced.events,
        wakes: reduced.wakes,
        drafts: reduced.publicEvents,
        remoteBlocked: INTERRUPTED_STATES.has(snapshot.state),
        ...decisionFacts(),
      },
    };
  };

  // The read slots: one queue for every campaign's reads, so a sweep's TICKs go out at once and
  // its reads still reach the remote at a bounded concurrency. A waiting read is two array
  // entries (its input and its reader's `sendBack`), no promise: a sweep queues thousands.
  const slots = deps.readConcurrency ?? 64;
  let active = 0;
  const waiting: (ReadStatusInput | ((event: ReadAnswer) => void))[] = [];
  let head = 0;
  const start = (input: ReadStatusInput, sendBack: (event: ReadAnswer) => void): void => {
    active++;
    readOnce(input)
      .then(
        (output) => sendBack({ type: 'READ_DONE', output }),
        () => sendBack({ type: 'READ_CRASHED' }),
      )
      .finally(next);
  };
  function next(): void {
    active--;
    if (head >= waiting.length) return;
    const input = waiting[head] as ReadStatusInput;
    const sendBack = waiting[head + 1] as (event: ReadAnswer) => void;
    waiting[head] = waiting[head + 1] = undefined as never;
    head += 2;
    if (head === waiting.length) waiting.length = head = 0;
    else if (head > 4096 && head * 2 > waiting.length) {
      waiting.splice(0, head);
      head = 0;
    }
    start(input, sendBack);
  }

  // A reader stopped mid-read (pause, close, stop) drops its answer: `sendBack` after stop is
  // a no-op in XState, like the output of a stopped promise actor.
  const statusReader = fromCallback<ReadRequest>(({ receive, sendBack }) => {
    receive(({ input }) => {
      if (active < slots) start(input, sendBack);
      else waiting.push(input, sendBack);
    });
  });

  return { statusReader, readOnce };
}
