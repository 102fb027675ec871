/// <reference lib="dom" />
/**
 * The operator page in a real browser (Debian's Chromium via playwright-core) against a real
 * `serve` and the simulator, both child processes on 127.0.0.1: log in, attach a campaign,
 * claim it through the page's confirmation dialog and watch the statechart's highlighted state
 * follow live (server-sent events, no reload); a NEEDS_YOU appears and is answered through the
 * card's form; a POST without the CSRF token is refused; the key is nowhere in the page, its
 * source, its cookies or its storage; the list and the actions are reachable by keyboard with
 * a visible focus. Screenshots are kept under test-results/e2e/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScope } from '../fixtures/supervisor-harness.js';
import { activeIds, attachThroughPage, logIn, startWorld, type E2EWorld } from './e2e-fixture.js';

const scope = createScope();
let w: E2EWorld;
beforeAll(async () => {
  w = await startWorld(scope);
  await logIn(w);
}, 60_000);
afterAll(() => scope.dispose());

const CONTROLLING = 'campaign.active.authority.controlling';
const OBSERVING = 'campaign.active.authority.observing';
const summaryOf = async (id: string) => (await w.api('campaigns', { action: 'get', campaign_id: id })).campaign as Record<string, any>;

describe('the operator page', () => {
  it('logs in with the key in a password field and shows the campaign list', async () => {
    expect(await w.page.locator('#campaign-table').isVisible()).toBe(true);
    expect(w.page.url()).toBe(`${w.serve.address}/`);
    await w.shot('list-after-login');
  });

  it('attaches a campaign, claims it through the confirmation dialog, and the highlighted state follows live', async () => {
    const { page } = w;
    const [taskId] = await w.sim.tasks(1, 'steady');
    await attachThroughPage(w, 'live-1', taskId!);
    await page.waitForFunction((id) => document.querySelectorAll(`#chart [data-state="${id}"][data-active="true"]`).length === 1, OBSERVING);
    // A marker that a reload would lose.
    await page.evaluate(() => ((window as unknown as { noReload: number }).noReload = 42));

    await page.locator('#actions [data-action="claim"]').click();
    const dialog = page.locator('#action-dialog');
    expect(await dialog.isVisible()).toBe(true);
    expect(await dialog.textContent()).toContain('Take the remote lease');
    await page.locator('#dialog-cancel').click();
    expect(await dialog.isVisible()).toBe(false);
    expect((await summaryOf('live-1')).state).toBe('observing'); // cancel sent nothing

    await page.locator('#actions [data-action="claim"]').click();
    const clicked = Date.now();
    await page.locator('#dialog-confirm').click();
    await page.waitForFunction((id) => document.querySelector(`#chart [data-state="${id}"]`)?.getAttribute('data-active') === 'true', CONTROLLING, { timeout: 5000 });
    const claimedIn = Date.now() - clicked;
    const ids = await activeIds(page);
    expect(ids).toContain(CONTROLLING);
    expect(ids).not.toContain(OBSERVING);
    const lease = (await summaryOf('live-1')).lease;
    expect(lease.mode).toBe('controller');
    await page.locator('#actions-epoch').filter({ hasText: `Lease epoch ${lease.epoch}` }).waitFor();
    await page.locator('#actions [data-action="release"]').filter({ hasText: `epoch ${lease.epoch}` }).waitFor();
    await w.shot('statechart-controlling', page.locator('.chart-card'));
    await w.shot('page-controlling');
    // The whole full chart fitted into the panel, the controlling state still marked.
    await page.locator('#show-full').click();
    await page.locator('#chart-fit').click();
    await w.shot('statechart-controlling-whole', page.locator('.chart-card'));
    await page.locator('#show-overview').click();

    // A change made elsewhere (the test's own API client) reaches the page by the event stream alone.
    const released = await w.api('campaign_action', { campaign_id: 'live-1', action: 'release', epoch: lease.epoch });
    expect(released.ok).toBe(true);
    const t0 = Date.now();
    await page.waitForFunction((id) => document.querySelector(`#chart [data-state="${id}"]`)?.getAttribute('data-active') === 'true', OBSERVING, { timeout: 3000 });
    const liveMs = Date.now() - t0;
    expect(liveMs).toBeLessThan(1000);
    expect(await activeIds(page)).not.toContain(CONTROLLING);
    expect(await page.locator('tr[data-campaign="live-1"] .cell-state').textContent()).toBe('observing');
    expect(await page.evaluate(() => (window as unknown as { noReload?: number }).noReload)).toBe(42);
    console.log(`e2e: claim shown in ${claimedIn} ms, external release shown in ${liveMs} ms`);
  });

  it('shows a NEEDS_YOU from the remote and answers it through the card', async () => {
    const { page } = w;
    const [taskId] = await w.sim.tasks(1, 'blocker');
    await attachThroughPage(w, 'blocked-1', taskId!);
    // The simulator asks at its third read (one poll per stage): observe through the API until it does.
    for (let i = 0; i < 6 && (await summaryOf('blocked-1')).attention !== 'needs-you'; i++) {
      await w.api('campaign_action', { campaign_id: 'blocked-1', action: 'observe' });
    }
    const card = page.locator('#needs-you');
    await card.waitFor({ state: 'visible', timeout: 3000 });
    const question = (await summaryOf('blocked-1')).pending_question;
    expect(question.source).toBe('remote');
    expect(await page.locator('#question-text').textContent()).toBe(question.text);
    expect(await page.locator('#question-source').textContent()).toContain('remote');
    await w.shot('needs-you-card', card);
    await w.shot('page-needs-you');
    // The injected text in the question stays text: no element was made from it.
    expect(await page.locator('#question-text').evaluate((n) => n.children.length)).toBe(0);

    // The remote's question is answered by a fenced mutation: claim first, then answer.
    await page.locator('#actions [data-action="claim"]').click();
    await page.locator('#dialog-confirm').click();
    const epoch = await page.locator('#answer-epoch').filter({ hasText: 'Sent under lease epoch' }).textContent({ timeout: 5000 });
    expect(epoch).toContain(`epoch ${(await summaryOf('blocked-1')).lease.epoch}`);
    await page.getByLabel('Your answer').fill('Use the smaller batch size and go on.');
    await page.getByRole('button', { name: 'Send the answer' }).click();
    await card.waitFor({ state: 'hidden', timeout: 5000 });
    expect((await summaryOf('blocked-1')).attention).not.toBe('needs-you');
    const answers = (await w.sim.ledger()).filter((e) => e.action === 'answer');
    expect(answers.map((e) => e.disposition)).toEqual(['applied']);
    await page.locator('#timeline [data-kind="NEEDS_YOU"]').first().waitFor();
  });

  it('refuses a POST from the page without the CSRF token', async () => {
    const refused = await w.page.evaluate(async () => {
      const res = await fetch('/api/plugins/argus_supervisor/campaign_action', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ campaign_id: 'live-1', action: 'claim' }),
      });
      return { status: res.status, body: (await res.json()) as { error?: { code: string } } };
    });
    expect([refused.status, refused.body.error?.code]).toEqual([403, 'csrf_required']);
    expect((await summaryOf('live-1')).state).toBe('observing');
  });

  it('never puts the key in the page, its source, the URL, the cookies or the storage', async () => {
    const { page, key } = w;
    const sources = await page.evaluate(async () => {
      const names = ['/', '/ui/static/app.js', '/ui/static/api.js', '/ui/static/dom.js', '/ui/static/list.js', '/ui/static/detail.js', '/ui/static/chart.js', '/ui/static/dialog.js', '/ui/static/app.css'];
      return Promise.all(names.map(async (n) => (await fetch(n)).text()));
    });
    const storage = await page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie }));
    const cookies = await w.context.cookies();
    const haystacks = [await page.content(), page.url(), storage, ...sources, JSON.stringify(cookies)];
    expect(haystacks.filter((h) => h.includes(key)).length).toBe(0);
    expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite])).toEqual([['argus_session', true, 'Strict']]);
    expect(JSON.parse(storage)).toEqual({ local: {}, session: {}, cookie: '' });
    expect(await page.locator('input[type="password"]').count()).toBe(0);
  });

  it('is operable by keyboard: Tab reaches the list and the actions, with a visible focus', async () => {
    const { page } = w;
    await page.goto(w.serve.address);
    await page.locator('tr[data-campaign="live-1"]').waitFor();
    const focused = () =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        const style = el ? getComputedStyle(el) : null;
        return { cls: el?.className ?? '', campaign: el?.getAttribute('data-campaign') ?? null, action: el?.getAttribute('data-action') ?? null, outline: style?.outlineStyle ?? 'none', width: style?.outlineWidth ?? '0px' };
      });
    let now = await focused();
    for (let i = 0; i < 30 && now.cls !== 'row-select'; i++) {
      await page.keyboard.press('Tab');
      now = await focused();
    }
    expect(now.cls).toBe('row-select');
    expect(now.outline).not.toBe('none');
    expect(now.width).not.toBe('0px');
    const first = now.campaign;
    await page.keyboard.press('ArrowDown');
    now = await focused();
    expect(now.cls).toBe('row-select');
    expect(now.campaign).not.toBe(first);
    await page.keyboard.press('Home');
    expect((await focused()).campaign).toBe(first);
    // Select live-1 with the keyboard, then Tab on to its actions.
    for (let i = 0; i < 5 && (await focused()).campaign !== 'live-1'; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.locator('#detail-title').filter({ hasText: 'live-1' }).waitFor();
    await page.locator('#actions [data-action]').first().waitFor();
    now = await focused();
    for (let i = 0; i < 60 && now.action === null; i++) {
      await page.keyboard.press('Tab');
      now = await focused();
    }
    expect(now.action).not.toBeNull();
    expect(now.outline).not.toBe('none');
    await w.shot('keyboard-focus-on-action');
  });

  it('logs out: the session ends and the page is the login form again', async () => {
    const { page } = w;
    await Promise.all([page.waitForURL(`${w.serve.address}/`), page.locator('#logout').click()]);
    await page.getByLabel('API key').waitFor();
    const status = await page.evaluate(async () => (await fetch('/api/plugins/argus_supervisor/status', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status);
    expect(status).toBe(401);
    await w.shot('login');
  });
});
