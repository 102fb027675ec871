/**
 * The health projection (issue 20, item 2) as a table: each row is a machine context's facts and
 * the health the views must show; then the last error and the remote's status text.
 */
import { describe, expect, it } from 'vitest';
import { campaignHealth, errorSentence, shownMessageChanged, HEALTH_ORDER, lastErrorView, STATUS_MESSAGE_CAP, statusMessageView, type HealthInput } from '../../services/api/campaign-health.js';

const remote = (state: string, missionComplete = false) => ({ state, missionComplete });
const reads = (consecutive: number, criticalRaised = false) => ({ consecutive, criticalRaised });
const base: HealthInput = { authority: 'observing', remote: remote('working'), readFailures: reads(0) };

describe('campaignHealth', () => {
  const table: [string, Partial<HealthInput>, string][] = [
    ['a working task, every read answered', {}, 'ok'],
    ['no read yet', { remote: null }, 'ok'],
    ['controlling, reads fine', { authority: 'controlling' }, 'ok'],
    ['one read failure', { readFailures: reads(1) }, 'degraded'],
    ['two read failures', { readFailures: reads(2) }, 'degraded'],
    ['three read failures: the CRITICAL raised', { readFailures: reads(3, true) }, 'critical'],
    ['five failures, CRITICAL raised earlier in the streak', { readFailures: reads(5, true) }, 'critical'],
    ['three failures counted but the CRITICAL not yet recorded', { readFailures: reads(3) }, 'critical'],
    ['a good read after the outage (the machine resets the streak)', { readFailures: reads(0, false) }, 'ok'],
    ['control lost', { authority: 'control-lost' }, 'critical'],
    ['an intent in doubt', { authority: 'ambiguous-intent' }, 'critical'],
    ['control lost with one read failure', { authority: 'control-lost', readFailures: reads(1) }, 'critical'],
    ['the remote task failed', { remote: remote('failed') }, 'failed'],
    ['the remote task was rejected', { remote: remote('rejected') }, 'failed'],
    ['failed outranks a read outage', { remote: remote('failed'), readFailures: reads(4, true) }, 'failed'],
    ['failed outranks a closed campaign', { authority: 'closed', remote: remote('failed') }, 'failed'],
    ['the task completed', { remote: remote('completed') }, 'done'],
    ['the mission is complete', { remote: remote('completed', true) }, 'done'],
    ['closed after completion', { authority: 'closed', remote: remote('completed', true) }, 'done'],
    ['completed but reads fail now', { remote: remote('completed'), readFailures: reads(1) }, 'degraded'],
    ['blocked on a question is not a failure', { remote: remote('input-required') }, 'ok'],
    ['canceled is not "failed"', { remote: remote('canceled') }, 'ok'],
  ];
  it.each(table)('%s', (_name, patch, expected) => {
    expect(campaignHealth({ ...base, ...patch })).toBe(expected);
  });

  it('orders worst first', () => {
    expect(HEALTH_ORDER).toEqual(['failed', 'critical', 'degraded', 'ok', 'done']);
  });
});

describe('lastErrorView', () => {
  it('is null without an error, a code and one sentence otherwise', () => {
    expect(lastErrorView(null, null)).toBeNull();
    expect(lastErrorView('remote_http_status', null)).toEqual({ code: 'remote_http_status', sentence: 'The remote answered with an HTTP error.', at: null });
  });

  it('takes the time of the failed read this process saw, only for the same code', () => {
    const seen = { code: 'remote_timeout', at: '2026-01-02T03:04:05.000Z' };
    expect(lastErrorView('remote_timeout', seen)?.at).toBe(seen.at);
    expect(lastErrorView('lease_lost', seen)?.at).toBeNull();
  });

  it('an unknown code still reads as a sentence naming it', () => {
    expect(errorSentence('something_new')).toBe('The last operation failed (something_new).');
  });
});

describe('statusMessageView', () => {
  it('only for a failed or blocked task', () => {
    for (const state of ['failed', 'rejected', 'input-required', 'auth-required']) expect(statusMessageView(state, 'why')).toBe('why');
    for (const state of ['working', 'completed', 'submitted', 'canceled']) expect(statusMessageView(state, 'why')).toBeNull();
    expect(statusMessageView(null, 'why')).toBeNull();
    expect(statusMessageView('failed', null)).toBeNull();
  });

  it('passes the remote-text boundary: no control, bidi or escape characters, bounded', () => {
    const hostile = `\u001b[31mOOM\u202e at step 4\u0000\n<img src=x onerror=alert(1)> ${'x'.repeat(2000)}`;
    const shown = statusMessageView('failed', hostile)!;
    expect(shown).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    expect(shown.startsWith('OOM at step 4 <img src=x onerror=alert(1)>')).toBe(true);
    expect(shown.length).toBeLessThanOrEqual(STATUS_MESSAGE_CAP);
    expect(statusMessageView('failed', '\u200b\u0007 ')).toBeNull();
  });
});

describe('shownMessageChanged', () => {
  it('a working task\'s noisy text never re-projects the view; a failed task\'s new text does', () => {
    expect(shownMessageChanged('working', 'step 1 loss 2.2', 'step 2 loss 2.1')).toBe(false);
    expect(shownMessageChanged('failed', null, 'OOM')).toBe(true);
    expect(shownMessageChanged('failed', 'OOM', 'OOM')).toBe(false);
    expect(shownMessageChanged(null, null, 'anything')).toBe(false);
  });
});
