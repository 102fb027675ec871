/// <reference lib="dom" />
/**
 * The list stays usable with hundreds of campaigns: 300 render at once, the state filter
 * narrows them (with the count shown), and a live change updates its one row in place (every
 * other row is the same DOM node as before, so nothing was rebuilt) and re-applies the filter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScope } from '../fixtures/supervisor-harness.js';
import { logIn, startWorld, type E2EWorld } from './e2e-fixture.js';

const scope = createScope();
let w: E2EWorld;
const COUNT = 300;
const PAUSED = 5;
const id = (i: number) => `bulk-${String(i).padStart(3, '0')}`;

beforeAll(async () => {
  w = await startWorld(scope);
  for (let start = 0; start < COUNT; start += 25) {
    const batch = Array.from({ length: Math.min(25, COUNT - start) }, (_, k) => start + k);
    const answers = await Promise.all(batch.map((i) => w.api('campaigns', { action: 'create', campaign_id: id(i), objective: `bulk ${i}` })));
    expect(answers.every((a) => a.ok)).toBe(true);
  }
  for (let i = 0; i < PAUSED; i++) expect((await w.api('campaign_action', { campaign_id: id(i * 7), action: 'pause' })).ok).toBe(true);
}, 120_000);
afterAll(() => scope.dispose());

describe('the campaign list with hundreds of campaigns', () => {
  it('renders them all, filters by state, and updates one row in place when it changes', async () => {
    const { page } = w;
    const t0 = Date.now();
    await logIn(w);
    await page.waitForFunction((n) => document.querySelectorAll('#campaign-rows tr').length === n, COUNT);
    const renderMs = Date.now() - t0;
    expect(await page.locator('#campaign-count').textContent()).toBe(`(${COUNT})`);
    // Sorted by id, as a reader expects.
    const first = await page.locator('#campaign-rows tr').first().getAttribute('data-campaign');
    expect(first).toBe(id(0));

    await page.getByLabel('Filter by state').selectOption('paused');
    expect(await page.locator('#campaign-rows tr:not([hidden])').count()).toBe(PAUSED);
    expect(await page.locator('#campaign-count').textContent()).toBe(`(${PAUSED} of ${COUNT})`);
    await w.shot('list-filtered-paused');

    // Mark every row node; a rebuild would lose the marks.
    await page.evaluate(() => document.querySelectorAll('#campaign-rows tr').forEach((tr) => ((tr as unknown as { mark: boolean }).mark = true)));
    const target = id(COUNT - 1);
    const t1 = Date.now();
    expect((await w.api('campaign_action', { campaign_id: target, action: 'pause' })).ok).toBe(true);
    await page.locator(`tr[data-campaign="${target}"]:not([hidden]) .cell-state`).filter({ hasText: 'paused' }).waitFor({ timeout: 3000 });
    const liveMs = Date.now() - t1;
    expect(liveMs).toBeLessThan(1000);
    expect(await page.locator('#campaign-count').textContent()).toBe(`(${PAUSED + 1} of ${COUNT})`);
    const unmarked = await page.evaluate(() => Array.from(document.querySelectorAll('#campaign-rows tr')).filter((tr) => !(tr as unknown as { mark?: boolean }).mark).length);
    expect(unmarked).toBe(0);
    console.log(`e2e: ${COUNT} campaigns listed ${renderMs} ms after the login click; one live row update shown in ${liveMs} ms`);

    await page.getByLabel('Filter by state').selectOption('');
    expect(await page.locator('#campaign-rows tr:not([hidden])').count()).toBe(COUNT);
  });
});
