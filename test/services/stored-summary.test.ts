/**
 * The view a replica shows of a campaign another replica hosts, projected from its stored
 * document: a document whose projection throws is shown as corrupt (null), so one bad document
 * cannot fail the whole `list` of every replica.
 */
import { describe, expect, it } from 'vitest';
import { NO_ENVIRONMENT } from '../../machines/campaign.types.js';
import { storedSummary } from '../../services/runtime/stored-summary.js';
import { makeDoc } from '../persistence/support/documents.js';

const deps = { environment: () => NO_ENVIRONMENT, allowedActions: () => ['observe'], now: () => new Date('2026-12-02T12:00:00Z') };

describe('a stored summary', () => {
  it('projects a stored document with its owner', () => {
    expect(storedSummary(makeDoc('s1'), 'replica-b', deps)).toMatchObject({ campaign_id: 's1', hosted_by: 'replica-b' });
  });

  it('answers null (shown as corrupt) when projecting throws, instead of throwing', () => {
    const broken = { ...deps, environment: () => { throw new Error('projection failed'); } };
    expect(storedSummary(makeDoc('s2'), 'replica-b', broken)).toBeNull();
  });
});
