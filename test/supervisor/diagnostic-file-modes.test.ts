/**
 * Diagnostic files may quote remote text, so they are private like the documents: events/*.jsonl
 * and corrupt/* are 0600 in 0700 folders — new ones, and those an older version left 0644 in
 * 0755 folders (tightened when the store opens).
 */
import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openCampaignStore } from '../../persistence/campaign-store.js';
import { appendPublicEvents } from '../../persistence/outbox.js';
import { stateRootOwnership, WHOLE_STATE_ROOT } from '../../persistence/owner-lock.js';
import { makeDoc, T0 } from '../persistence/support/documents.js';
import { createScope, tempStateRoot } from '../fixtures/supervisor-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());
const modeOf = async (p: string) => (await stat(p)).mode & 0o777;

describe('diagnostic file modes', () => {
  it('writes new event projections and corrupt reports 0600 in 0700 folders', async () => {
    const root = await tempStateRoot(scope);
    const store = await openCampaignStore({ root });
    await store.create(makeDoc('c1'));
    const appended = await store.transact('c1', (d) => appendPublicEvents(d, [{ kind: 'STAGE_TRANSITION', dedupeKey: 'k1', summary: '' }], T0).doc);
    expect(appended.ok).toBe(true);
    await writeFile(path.join(root, 'campaigns', 'c2.json'), '{"truncated', { mode: 0o600 });
    expect((await store.load('c2')).ok).toBe(false);

    for (const dir of ['campaigns', 'events', 'corrupt', 'locks']) expect(await modeOf(path.join(root, dir)), dir).toBe(0o700);
    expect(await modeOf(path.join(root, 'events', 'c1.jsonl'))).toBe(0o600);
    expect(await modeOf(path.join(root, 'corrupt', 'c2.json'))).toBe(0o600);
    expect(await modeOf(path.join(root, 'campaigns', 'c1.json'))).toBe(0o600);
  });

  it('tightens folders and files an older version left world-readable', async () => {
    const root = await tempStateRoot(scope);
    for (const dir of ['campaigns', 'events', 'corrupt', 'locks']) await mkdir(path.join(root, dir), { mode: 0o755 });
    await writeFile(path.join(root, 'events', 'old.jsonl'), '{}\n');
    await writeFile(path.join(root, 'corrupt', 'old.json'), '{}\n');
    await chmod(path.join(root, 'events', 'old.jsonl'), 0o644);
    await chmod(path.join(root, 'corrupt', 'old.json'), 0o644);
    await chmod(path.join(root, 'events'), 0o755);

    await openCampaignStore({ root });
    for (const dir of ['campaigns', 'events', 'corrupt', 'locks']) expect(await modeOf(path.join(root, dir)), dir).toBe(0o700);
    expect(await modeOf(path.join(root, 'events', 'old.jsonl'))).toBe(0o600);
    expect(await modeOf(path.join(root, 'corrupt', 'old.json'))).toBe(0o600);
  });

  it('keeps the owner record private too', async () => {
    const root = await tempStateRoot(scope);
    const lease = await stateRootOwnership({ root }).claim(WHOLE_STATE_ROOT);
    expect(lease.ok).toBe(true);
    if (lease.ok) scope.defer(lease, (l) => l.release());
    expect(await modeOf(path.join(root, 'owner.json'))).toBe(0o600);
  });
});
