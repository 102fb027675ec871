/// <reference lib="dom" />
/**
 * The state history in Debian's Chromium at 1366×768 (issue 20, item 3): the selected campaign
 * shows its state changes as a timeline beside the public events, newest first, each with its
 * time, cause and change; the time in the current state is shown (in the history card and on the
 * statechart card); a change made while the page is open (a pause through the API) reaches the
 * timeline over the live stream. The screenshot goes to docs/page-history.png.
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
  const [taskId] = await w.sim.tasks(1, 'blocker');
  expect((await w.api('campaigns', { action: 'create', campaign_id: 'resnet-sweep', objective: 'Reach 76% top-1', remote_task_id: taskId })).ok).toBe(true);
  expect((await w.api('campaign_action', { campaign_id: 'resnet-sweep', action: 'claim' })).ok).toBe(true);
  let attention = '';
  for (let i = 0; i < 6 && attention !== 'needs-you'; i++) {
    expect((await w.api('campaign_action', { campaign_id: 'resnet-sweep', action: 'observe' })).ok).toBe(true);
    attention = ((await w.api('campaigns', { action: 'get', campaign_id: 'resnet-sweep' })) as { campaign?: { attention: string } }).campaign?.attention ?? '';
  }
  expect(attention).toBe('needs-you');
  await logIn(w);
}, 90_000);
afterAll(() => scope.dispose());

const entries = () =>
  page.$$eval('#history li', (items) =>
    items.map((li) => [li.getAttribute('data-cause'), li.querySelector('.change')?.textContent ?? '', li.querySelector('.history-detail')?.textContent ?? '']),
  );

describe('the state history at 1366×768', () => {
  it('shows each change, newest first, with its cause, beside the public events, and the time in the current state', async () => {
    await page.locator('tr[data-campaign="resnet-sweep"] .cell-state').click();
    await page.locator('#history li[data-cause]').first().waitFor({ timeout: 5000 });
    const shown = await entries();
    expect(shown.map(([cause, change]) => [cause, change])).toEqual([
      ['remote', 'attention idle → needs-you'],
      ['operator', 'observing → controlling'],
      ['operator', 'created: observing · idle'],
    ]);
    expect(shown[0]![2]).toBe('(read: NEEDS_YOU)');
    expect(shown[1]![2]).toMatch(/^\(claim; stayed \d+ s\)$/);
    // Each entry's time is a <time> with its ISO value and the absolute time (with its zone) on hover.
    const time = await page.locator('#history li time').first().evaluate((t) => ({ iso: t.getAttribute('datetime'), title: t.getAttribute('title') }));
    expect(time.iso).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/);
    expect(time.title).toMatch(/\d{4}/);
    const now = await page.locator('#history-now').textContent();
    expect(now).toMatch(/^In controlling · needs-you for \d+ s \(since .+\)\.$/);
    // Beside the public events: the two cards side by side, top-aligned, at this width.
    const [history, events] = await Promise.all(['#history-title', '#timeline-title'].map((s) => page.locator(s).boundingBox()));
    expect(history!.y).toBe(events!.y);
    expect(history!.x).toBeLessThan(events!.x);
    expect(await page.locator('#timeline li').first().getAttribute('data-kind')).toBe('NEEDS_YOU');
    // The statechart card says the same time in state (it once said it could not).
    await page.locator('#chart-time').filter({ hasText: 'In controlling · needs-you for' }).waitFor({ timeout: 5000 });
  });

  it('a change made while the page is open reaches the timeline, and the screenshot is taken', async () => {
    expect((await w.api('campaign_action', { campaign_id: 'resnet-sweep', action: 'pause' })).ok).toBe(true);
    await page.locator('#history li[data-cause]').first().filter({ hasText: 'controlling → paused' }).waitFor({ timeout: 5000 });
    expect((await entries())[0]).toEqual(['operator', 'controlling → paused', '(pause)']);
    expect(await page.locator('#history-now').textContent()).toMatch(/^In paused · needs-you for \d+ s/);
    await page.locator('#history-title').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(REPO_ROOT, 'docs', 'page-history.png') });
  });
});
