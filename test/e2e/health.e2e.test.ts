/// <reference lib="dom" />
/**
 * Failure in plain sight in Debian's Chromium at 1366×768 (issue 20, item 2): a remote task that
 * fails shows as failed in the list within one update (icon and word, not colour alone), first
 * by default (worst first); the health filter and sort; the detail shows the last error and the
 * remote's own words as text (never markup). The screenshot goes to docs/page-failed-campaign.png.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { REPO_ROOT, createScope } from '../fixtures/supervisor-harness.js';
import { logIn, openLaptopPage, startWorld, type E2EWorld } from './e2e-fixture.js';

const scope = createScope();
let w: E2EWorld;
let page: Page;
beforeAll(async () => {
  w = await startWorld(scope);
  page = await openLaptopPage(w);
  for (const [id, objective] of [['a-fine', 'Tune the learning rate'], ['b-fine', 'Find the best batch size']]) {
    expect((await w.api('campaigns', { action: 'create', campaign_id: id, objective })).ok).toBe(true);
  }
  await logIn(w);
}, 90_000);
afterAll(() => scope.dispose());

const rowIds = () => page.$$eval('#campaign-rows tr:not([hidden])', (rows) => rows.map((r) => r.getAttribute('data-campaign')));
const healthOf = (id: string) => page.locator(`tr[data-campaign="${id}"] .cell-health`).textContent();

describe('a failed remote task at 1366×768', () => {
  it('shows as failed in the list within one update, first, with its icon and word', async () => {
    const [taskId] = await w.sim.tasks(1, 'failed');
    expect((await w.api('campaigns', { action: 'create', campaign_id: 'z-oom', objective: 'Train until memory runs out', remote_task_id: taskId })).ok).toBe(true);
    await page.locator('tr[data-campaign="z-oom"]').waitFor({ timeout: 5000 });
    let state = '';
    for (let i = 0; i < 6 && state !== 'failed'; i++) {
      expect((await w.api('campaign_action', { campaign_id: 'z-oom', action: 'observe' })).ok).toBe(true);
      const got = (await w.api('campaigns', { action: 'get', campaign_id: 'z-oom' })) as { campaign?: { health: string } };
      state = got.campaign?.health ?? '';
    }
    expect(state).toBe('failed');
    // One update: the view that says failed reaches the page over the live stream within 2 s.
    await page.locator('tr[data-campaign="z-oom"][data-health="failed"]').waitFor({ timeout: 2000 });
    expect(await healthOf('z-oom')).toBe('✖ failed');
    expect(await healthOf('a-fine')).toBe('✓ ok');
    expect(await rowIds()).toEqual(['z-oom', 'a-fine', 'b-fine']);
    const colour = await page.locator('tr[data-campaign="z-oom"] .cell-health').evaluate((n) => getComputedStyle(n).color);
    expect(colour).toBe('rgb(165, 29, 45)');
  });

  it('filters and sorts by health', async () => {
    await page.getByLabel('Filter by health').selectOption('failed');
    expect(await rowIds()).toEqual(['z-oom']);
    expect(await page.locator('#campaign-count').textContent()).toBe('(1 of 3)');
    await page.getByLabel('Filter by health').selectOption('ok');
    expect(await rowIds()).toEqual(['a-fine', 'b-fine']);
    await page.getByLabel('Filter by health').selectOption('');
    await page.locator('th[data-sort="health"] .sort').click();
    expect(await page.locator('th[data-sort="health"]').getAttribute('aria-sort')).toBe('descending');
    expect(await rowIds()).toEqual(['a-fine', 'b-fine', 'z-oom']);
    await page.locator('th[data-sort="health"] .sort').click();
    expect(await rowIds()).toEqual(['z-oom', 'a-fine', 'b-fine']);
  });

  it('the detail shows the health, the last error and the remote’s own words as text', async () => {
    await page.locator('tr[data-campaign="z-oom"] .cell-state').click();
    await page.locator('#detail-title').filter({ hasText: 'z-oom' }).waitFor();
    const facts = await page.$$eval('#detail-facts dt', (dts) => dts.map((dt) => [dt.textContent, dt.nextElementSibling?.textContent ?? '']));
    const fact = (name: string) => facts.find(([k]) => k === name)?.[1] ?? null;
    expect(fact('Health')).toBe('failed (0 read failures in a row)');
    expect(fact('Last error')).toBe('none');
    expect(fact('Remote says (untrusted)')).toMatch(/^Training failed at step \d+: CUDA error: out of memory/);
    // Text, never markup: the remote's words are one text node in a <q>.
    const q = await page.locator('#detail-facts q.remote-text').evaluate((n) => ({ children: n.children.length, nodes: n.childNodes.length }));
    expect(q).toEqual({ children: 0, nodes: 1 });
    await page.screenshot({ path: path.join(REPO_ROOT, 'docs', 'page-failed-campaign.png') });
  });
});
