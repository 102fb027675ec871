/**
 * The heartbeat's status read, behind the campaign's long-lived `statusReader` child: each READ
 * the chart sends is answered by exactly one READ_DONE (or READ_CRASHED). The common case (10,000 campaigns every
 * cadence) is one GetTask request and one string comparison: an unchanged fingerprint with no
 * failure streak returns `observation: null` without reading the document. Only a material,
 * recovering or failed read asks for the published dedupe keys and runs the reducer.
 * @module
 */
import { fromCallback } from 'xstate';
import { INTERRUPTED_STATES, type TaskSnapshot } from '../../adapters/a2a/index.js';
import type { ReadRequest, ReadStatusInput, ReadStatusOutput } from '../../machines/campaign.types.js';
import { materialFingerprint } from '../reducer/fingerprint.js';
import { leaseReadbackOf, readFailureBackoffMs, reduce, reduceReadFailure } from '../reducer/reducer.js';
import { REMOTE_NOT_CONFIGURED, type EffectDeps } from './effect-deps.js';
import { remoteOf } from '../authority/authority-ports.js';
import type { ListedAnswer } from './fleet-read.js';

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
    if (listed) return answerSnapshot(input, listed.snapshot, listed.requestedAt, listed.answeredAt);
    const requestedAt = deps.now().toISOString();
    // The answer must be about this task and (once known) its context, else it is a failed read.
    const read = await remote.getTask(input.taskId, { contextId: input.contextId });
    const answeredAt = deps.now();
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
    return answerSnapshot(input, read.value, requestedAt, answeredAt);
  };

  /**
   * What the chart hears of one answered read (GetTask's or the listing's: the same code). The
   * common case, an unchanged fingerprint with no failure streak, is answered at once (no
   * promise: the listed path hands it to the chart in the same call); only a material or
   * recovering read reads the document's published keys and runs the reducer.
   */
  const answerSnapshot = (input: ReadStatusInput, snapshot: TaskSnapshot, requestedAt: string, answeredAt: Date): ReadStatusOutput | Promise<ReadStatusOutput> => {
    const at = answeredAt.toISOString();
    const answered = { requestedAt, answeredAt: at, message: snapshot.latestAgentMessageExcerpt };
    const fingerprint = materialFingerprint(snapshot);
    const readback = leaseReadbackOf(snapshot, at);
    const recovering = input.readFailures.consecutive > 0;
    if (input.previous?.fingerprint === fingerprint && !recovering) return { ok: true, ...answered, fingerprint, readback, observation: null };
    return observe(input, snapshot, answered, fingerprint, readback, answeredAt);
  };

  const observe = async (
    input: ReadStatusInput,
    snapshot: TaskSnapshot,
    answered: { requestedAt: string; answeredAt: string; message: string | null },
    fingerprint: string,
    readback: ReturnType<typeof leaseReadbackOf>,
    answeredAt: Date,
  ): Promise<ReadStatusOutput> => {
    const { campaignId, previous } = input;
    const at = answered.answeredAt;
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
    // The answer, then the slot to the next read: one promise hop per read (no `finally`).
    readOnce(input).then(
      (output) => {
        try {
          sendBack({ type: 'READ_DONE', output });
        } finally {
          next();
        }
      },
      () => {
        try {
          sendBack({ type: 'READ_CRASHED' });
        } finally {
          next();
        }
      },
    );
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

  const answerListed = (input: ReadStatusInput, listed: ListedAnswer, sendBack: (event: ReadAnswer) => void): void => {
    let output: ReadStatusOutput | Promise<ReadStatusOutput>;
    try {
      output = answerSnapshot(input, listed.snapshot, listed.requestedAt, listed.answeredAt);
    } catch {
      return sendBack({ type: 'READ_CRASHED' });
    }
    if (output instanceof Promise) {
      output.then(
        (answer) => sendBack({ type: 'READ_DONE', output: answer }),
        () => sendBack({ type: 'READ_CRASHED' }),
      );
    } else sendBack({ type: 'READ_DONE', output });
  };

  // A reader stopped mid-read (pause, close, stop) drops its answer: `sendBack` after stop is
  // a no-op in XState, like the output of a stopped promise actor.
  const statusReader = fromCallback<ReadRequest>(({ receive, sendBack }) => {
    receive(({ input }) => {
      // A beat's read the listing answered sends no request, so it takes no slot: an unchanged
      // answer reaches the chart in this very call (no promise, no queue), like any READ_DONE.
      const listed = input.beat === true && remoteOf(deps, input.campaignId) ? deps.fleet?.take(input.taskId, input.contextId) : undefined;
      if (listed) return answerListed(input, listed, sendBack);
      if (active < slots) start(input, sendBack);
      else waiting.push(input, sendBack);
    });
  });

  return { statusReader, readOnce };
}
