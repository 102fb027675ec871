/**
 * The history's bound and shape in the document (persistence/state-history.ts): at most 100
 * entries, the oldest dropped first; a document without one (written before it existed) is
 * valid as it is and answers an empty history whose current state has no known start; and
 * the save that moves a state (services/campaign/campaign-save.ts) appends exactly one entry.
 */
import { describe, expect, it } from 'vitest';
import { parseCampaignDocument } from '../../persistence/campaign-document.js';
import { appendHistory, HISTORY_RETENTION, type HistoryEntry } from '../../persistence/state-history.js';
import { historyView } from '../../services/api/campaign-history-view.js';
import { applySave } from '../../services/campaign/campaign-save.js';
import { at, makeDoc } from './support/documents.js';

const entry = (minute: number): HistoryEntry => ({
  at: at(minute),
  from: { authority: 'observing', attention: 'idle' },
  to: { authority: 'observing', attention: minute % 2 ? 'needs-you' : 'idle' },
  cause: 'remote',
  detail: `read ${minute}`,
});

describe('the state history in the document', () => {
  it('keeps the newest 100 entries; the document refuses more', () => {
    let history: HistoryEntry[] = [];
    for (let i = 0; i < HISTORY_RETENTION + 5; i++) history = appendHistory(history, entry(i));
    expect(HISTORY_RETENTION).toBe(100);
    expect(history).toHaveLength(100);
    expect(history[0]!.detail).toBe('read 5');
    expect(history.at(-1)!.detail).toBe('read 104');
    expect(parseCampaignDocument(makeDoc('c1', { history })).ok).toBe(true);
    const tooLong = parseCampaignDocument(makeDoc('c1', { history: [...history, entry(105)] }));
    expect(tooLong).toMatchObject({ ok: false, code: 'document_corrupt' });
  });

  it('a document without a history (an older one) is valid as it is, and its history is empty with no known start', () => {
    const doc = makeDoc('old');
    expect('history' in doc).toBe(false);
    const parsed = parseCampaignDocument(JSON.parse(JSON.stringify(doc)));
    expect(parsed.ok).toBe(true);
    expect(historyView(doc, { state: 'observing', attention: 'idle' })).toEqual({
      campaign_id: 'old',
      created_at: doc.createdAt,
      current: { state: 'observing', attention: 'idle', since: null },
      history: [],
    });
  });

  it('a save whose snapshot moves a state appends one entry; one that moves none appends nothing', () => {
    const doc = makeDoc('s');
    const snapshot = doc.machine.snapshot as { value: unknown };
    const paused = { ...snapshot, value: 'paused' };
    const save = (from: typeof doc, to: unknown) =>
      applySave(from, { machine: { version: doc.machine.version, snapshot: to }, emitted: [], doubtCode: 'x', inDoubt: null, binding: { taskId: doc.remote.taskId, contextId: doc.remote.contextId }, trigger: { operator: ['pause'], read: false }, now: new Date(at(3)) }).doc;
    const moved = save(doc, paused);
    expect(moved.history).toEqual([{ at: at(3), from: { authority: 'observing', attention: 'idle' }, to: { authority: 'paused', attention: 'idle' }, cause: 'operator', detail: 'pause' }]);
    expect(save(moved, paused).history).toEqual(moved.history);
    expect(save(doc, snapshot).history).toBeUndefined();
  });
});
