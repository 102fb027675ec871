/**
 * The v1 fixtures (test/persistence/fixtures/v1, written by the release that owns v1) parse
 * and restore into the states MANIFEST.md records. The schema-v2 migration (issue 8) rewrites
 * this test; the expected values below are the ones it must keep (outbox ids, intents, authority).
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseCampaignDocument } from '../../persistence/campaign-document.js';
import { describeStates, peekSnapshot } from '../../services/campaign/campaign-actor.js';

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/v1');

type Intent = [requestId: string, action: string, status: string | null];
interface Expected {
  authority: string;
  attention: string;
  outbox: string[];
  intents: Intent[];
  leaseEpoch: number | null;
  pendingQuestion: string | null;
  paused: boolean;
  readFailures: number;
  idempotency: number;
}

// Same values as MANIFEST.md (which the generator derives from the files).
const EXPECTED: Record<string, Expected> = {
  'ambiguous-intent': { authority: 'ambiguous-intent', attention: 'idle', outbox: ['ambiguous-intent:1'], intents: [['3e70d3f7-3ef9-40ea-9e45-d6c1e4f495d1', 'intervene', 'ambiguous']], leaseEpoch: null, pendingQuestion: null, paused: false, readFailures: 0, idempotency: 0 },
  closed: { authority: 'closed', attention: 'idle', outbox: ['closed:1'], intents: [], leaseEpoch: null, pendingQuestion: null, paused: false, readFailures: 0, idempotency: 0 },
  controlling: { authority: 'controlling', attention: 'idle', outbox: [], intents: [['f235e767-3951-42ce-866c-a0d65817a915', 'intervene', 'applied']], leaseEpoch: 1, pendingQuestion: null, paused: false, readFailures: 0, idempotency: 1 },
  'journaled-unsent': { authority: 'controlling', attention: 'awaiting-review', outbox: ['journaled-unsent:1'], intents: [['e4ff14f6-b8a8-4a59-a195-5fa88c9a18e5', 'submit', null]], leaseEpoch: 1, pendingQuestion: null, paused: false, readFailures: 0, idempotency: 0 },
  'needs-you': { authority: 'observing', attention: 'needs-you', outbox: ['needs-you:1'], intents: [], leaseEpoch: null, pendingQuestion: 'blocked:~7065c0896284e6eede5628a6be8d1815', paused: false, readFailures: 0, idempotency: 0 },
  'observing-with-events': { authority: 'observing', attention: 'awaiting-review', outbox: ['observing-with-events:1', 'observing-with-events:2'], intents: [], leaseEpoch: null, pendingQuestion: null, paused: false, readFailures: 0, idempotency: 0 },
  paused: { authority: 'paused', attention: 'idle', outbox: [], intents: [], leaseEpoch: null, pendingQuestion: null, paused: true, readFailures: 0, idempotency: 0 },
  'read-failures': { authority: 'observing', attention: 'idle', outbox: [], intents: [], leaseEpoch: null, pendingQuestion: null, paused: false, readFailures: 2, idempotency: 0 },
};

describe('v1 campaign-document fixtures', () => {
  it('every fixture file has expected values, and every expected fixture exists', () => {
    const files = readdirSync(DIR).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -'.json'.length)).sort();
    expect(files).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(Object.entries(EXPECTED))('%s parses and restores into the recorded state', (name, want) => {
    const parsed = parseCampaignDocument(JSON.parse(readFileSync(path.join(DIR, `${name}.json`), 'utf8')), name);
    if (!parsed.ok) throw new Error(`${name}: ${parsed.code} ${parsed.reason}`);
    const doc = parsed.doc;
    expect(doc.documentVersion).toBe(1);
    const { authority, attention, ...rest } = want;
    expect(describeStates(peekSnapshot(doc))).toEqual({ authority, attention });
    expect({
      outbox: doc.outbox.events.map((e) => e.id),
      intents: doc.intents.map((i): Intent => [i.requestId, i.action, i.outcome?.status ?? null]),
      leaseEpoch: doc.lease?.epoch ?? null,
      pendingQuestion: doc.pendingQuestion?.eventId ?? null,
      paused: doc.paused,
      readFailures: doc.readFailures.consecutiveFailures,
      idempotency: doc.idempotency.length,
    }).toEqual(rest);
  });
});
