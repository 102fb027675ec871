/// <reference lib="dom" />
/**
 * The operator's face at 1366×768 in Debian's Chromium (issue 20): the overview chart fits its
 * panel with every label drawn at 11 px or more (the computed font size times the SVG's scale
 * on screen: what a person sees), its active state is lit; the full chart's viewBox moves with
 * zoom, pan and focus; the list sorts, searches and filters; nothing shows in the detail pane
 * before a selection; no CSP violation and no 404 (favicon); a restart of serve returns the
 * page to the login form with a sentence. Screenshots of both charts go to docs/.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { REPO_ROOT, createScope } from '../fixtures/supervisor-harness.js';
import { logIn, startWorld, type E2EWorld } from './e2e-fixture.js';

const scope = createScope();
let w: E2EWorld;
let page: Page;
const problems: string[] = [];
beforeAll(async () => {
  w = await startWorld(scope);
  const context = await w.browser.newContext({ viewport: { width: 1366, height: 768 } });
  page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('response', (r) => {
    if (r.status() === 404) problems.push(`404 ${r.url()}`);
  });
  w.page = page;
  for (const [id, objective] of [['zeta-3', 'Reach 76% top-1'], ['alpha-1', 'Tune the learning rate'], ['mid-2', 'Find the best batch size']]) {
    expect((await w.api('campaigns', { action: 'create', campaign_id: id, objective })).ok).toBe(true);
  }
  expect((await w.api('campaign_action', { campaign_id: 'mid-2', action: 'pause' })).ok).toBe(true);
  await logIn(w);
  await page.addInitScript(() => document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.sourceFile}:${e.lineNumber}`)));
  await page.reload();
  await page.locator('#live-status').filter({ hasText: 'Live' }).waitFor({ timeout: 10_000 });
}, 90_000);
afterAll(() => scope.dispose());

const rowIds = () => page.$$eval('#campaign-rows tr:not([hidden])', (rows) => rows.map((r) => r.getAttribute('data-campaign')));

describe('the list at 1366×768', () => {
  it('shows no detail before a selection, fits without a horizontal scroll, and the whole row selects', async () => {
    expect(await page.locator('#detail').isVisible()).toBe(false);
    const wrap = await page.locator('.table-wrap').evaluate((n) => ({ scroll: n.scrollWidth, client: n.clientWidth }));
    expect(wrap.scroll).toBeLessThanOrEqual(wrap.client);
    const time = page.locator('tr[data-campaign="alpha-1"] .cell-change');
    expect(await time.textContent()).toBe('—');
    // A click on the state cell, not on the id button.
    await page.locator('tr[data-campaign="alpha-1"] .cell-state').click();
    await page.locator('#detail-title').filter({ hasText: 'alpha-1' }).waitFor();
    expect(await page.locator('#detail').isVisible()).toBe(true);
  });

  it('sorts by any column, searches id and objective, filters by state and attention', async () => {
    // Worst health first by default; all three are ok, so by id.
    expect(await page.locator('th[data-sort="health"]').getAttribute('aria-sort')).toBe('ascending');
    expect(await rowIds()).toEqual(['alpha-1', 'mid-2', 'zeta-3']);
    await page.locator('th[data-sort="id"] .sort').click();
    expect(await rowIds()).toEqual(['alpha-1', 'mid-2', 'zeta-3']);
    await page.locator('th[data-sort="id"] .sort').click();
    expect(await rowIds()).toEqual(['zeta-3', 'mid-2', 'alpha-1']);
    expect(await page.locator('th[data-sort="id"]').getAttribute('aria-sort')).toBe('descending');
    await page.locator('th[data-sort="state"] .sort').click();
    expect(await rowIds()).toEqual(['alpha-1', 'zeta-3', 'mid-2']); // observing, observing, paused
    await page.getByLabel('Search').fill('batch');
    expect(await rowIds()).toEqual(['mid-2']);
    expect(await page.locator('#campaign-count').textContent()).toBe('(1 of 3)');
    await page.getByLabel('Search').fill('');
    await page.getByLabel('Filter by state').selectOption('observing');
    expect(await rowIds()).toEqual(['alpha-1', 'zeta-3']);
    await page.getByLabel('Filter by attention').selectOption('needs-you');
    expect(await rowIds()).toEqual([]);
    await page.getByLabel('Filter by attention').selectOption('idle');
    await page.getByLabel('Filter by state').selectOption('');
    expect(await rowIds()).toHaveLength(3);
    await page.locator('th[data-sort="id"] .sort').click();
  });
});

describe('the charts', () => {
  it('the overview fits its panel, every label at 11 px or more, the active state lit', async () => {
    await page.locator('#overview [data-state="campaign.active.authority.observing"][data-active="true"]').waitFor({ timeout: 10_000 });
    const m = await page.evaluate(() => {
      const panel = document.querySelector('#overview')!.getBoundingClientRect();
      const svg = document.querySelector('#overview svg') as SVGSVGElement;
      const box = svg.getBoundingClientRect();
      const scale = svg.getScreenCTM()!.a;
      const sizes = Array.from(svg.querySelectorAll('text')).map((t) => ({ text: t.textContent, css: parseFloat(getComputedStyle(t).fontSize), shown: parseFloat(getComputedStyle(t).fontSize) * scale }));
      const lit = Array.from(svg.querySelectorAll('[data-active="true"]')).map((n) => n.getAttribute('data-state'));
      return { panel: { left: panel.left, right: panel.right, top: panel.top, bottom: panel.bottom }, box: { left: box.left, right: box.right, top: box.top, bottom: box.bottom, width: box.width, height: box.height }, scale, sizes, lit, viewport: window.innerWidth };
    });
    expect(m.viewport).toBe(1366);
    expect(m.box.left).toBeGreaterThanOrEqual(m.panel.left - 0.5);
    expect(m.box.right).toBeLessThanOrEqual(m.panel.right + 0.5);
    expect(m.box.bottom).toBeLessThanOrEqual(m.panel.bottom + 0.5);
    const smallest = Math.min(...m.sizes.map((s) => s.shown));
    const stateLabels = m.sizes.filter((s) => s.css >= 15).map((s) => s.shown);
    for (const s of m.sizes) expect(s.shown, `${s.text}: ${s.shown} px`).toBeGreaterThanOrEqual(11);
    expect(m.lit).toEqual(['campaign.active.authority.observing', 'campaign.active.attention.idle']);
    console.log(`e2e: overview ${Math.round(m.box.width)}×${Math.round(m.box.height)} px in a panel ${Math.round(m.panel.right - m.panel.left)} px wide (scale ${m.scale.toFixed(3)}); ${m.sizes.length} labels, smallest drawn ${smallest.toFixed(2)} px, state labels ${Math.min(...stateLabels).toFixed(2)} px`);
    await w.shot('overview');
    await page.locator('.chart-card').screenshot({ path: path.join(REPO_ROOT, 'docs', 'page-overview.png') });
  });

  it('zoom, pan and focus move the full chart\'s viewBox; a compound state folds', async () => {
    await page.locator('#show-full').click();
    const chart = page.locator('#chart');
    const vb = () => page.$eval('#chart svg', (s) => s.getAttribute('viewBox')!.split(' ').map(Number));
    const home = await vb();
    await page.locator('#chart-zoom-in').click();
    const zoomed = await vb();
    expect(zoomed[2]).toBeLessThan(home[2]!);
    const box = (await chart.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, -300);
    const wheeled = await vb();
    expect(wheeled[2]).toBeLessThan(zoomed[2]!);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 - 120, box.y + box.height / 2 - 60, { steps: 4 });
    await page.mouse.up();
    const dragged = await vb();
    expect(dragged[0]).toBeGreaterThan(wheeled[0]!);
    expect(dragged[2]).toBe(wheeled[2]);
    await chart.focus();
    await page.keyboard.press('ArrowLeft');
    expect((await vb())[0]).toBeLessThan(dragged[0]!);
    await page.locator('#chart-fit').click();
    expect(await vb()).toEqual(home);
    await page.locator('#chart-focus').click();
    const focused = await vb();
    expect(focused[2]).toBeLessThan(home[2]!);
    const target = await page.$eval('#chart [data-state="campaign.active.authority.observing"] > rect', (r) => {
      const b = (r as SVGGraphicsElement).getBBox();
      return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
    });
    expect(target.x).toBeGreaterThan(focused[0]!);
    expect(target.x).toBeLessThan(focused[0]! + focused[2]!);
    // Guards live in each arrow's title, not on it.
    const labels = await page.$$eval('#chart .edge-label', (n) => n.map((t) => t.textContent ?? ''));
    expect(labels.some((l) => l.includes('['))).toBe(false);
    expect(await page.$$eval('#chart g.edge > title', (n) => n.some((t) => (t.textContent ?? '').includes('[')))).toBe(true);
    await page.locator('.chart-card').screenshot({ path: path.join(REPO_ROOT, 'docs', 'page-full-chart-focused.png') });
    // Fold the controlling compound: its inner states hide.
    // (Dispatched: the focused view may not show that label.)
    const fold = page.locator('#chart [data-state="campaign.active.authority.controlling"] > .state-label');
    await fold.dispatchEvent('click');
    expect(await page.locator('#chart [data-state="campaign.active.authority.controlling.ready"]').isVisible()).toBe(false);
    expect(await page.locator('#chart [data-state="campaign.active.authority.controlling"]').getAttribute('data-folded')).toBe('true');
    await fold.dispatchEvent('click');
    expect(await page.locator('#chart [data-state="campaign.active.authority.controlling.ready"]').isVisible()).toBe(true);
    await page.locator('#show-overview').click();
  });

  it('logged no CSP violation, no console error and no 404', async () => {
    expect(problems).toEqual([]);
  });
});

describe('a restart of serve', () => {
  it('returns the page to the login form with a sentence', async () => {
    await w.restartServe();
    await page.waitForURL(/\/\?session=ended$/, { timeout: 15_000 });
    await page.locator('#login-error').filter({ hasText: 'Your session has ended' }).waitFor();
    expect(await page.locator('#api_key').isVisible()).toBe(true);
    expect(await page.locator('#campaign-table').count()).toBe(0);
  });
});
