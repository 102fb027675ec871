/// <reference lib="dom" />
/**
 * Issue 19, defect 2, in Debian's Chromium: DNS rebinding. Chromium resolves `evil.test` to
 * 127.0.0.1 (`--host-resolver-rules`), as a rebinding attacker's name would after its TTL. A
 * page at `http://evil.test:PORT/` is same-origin with the supervisor's port, so the browser
 * lets its script read any answer from there; the supervisor must answer such a page `421` with
 * the code alone, the page itself included. (The page is the supervisor's own answer to that
 * name: a document fulfilled by the test would not come from a loopback address, and Chromium's
 * private-network rules would then block the fetch on their own, hiding what the server does.)
 * The same fetch from the supervisor's own origin reads `/health`, so the check is seen to pass
 * and to refuse.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canary } from '../fixtures/canary.js';
import { recordFile } from '../fixtures/scratch.js';
import { createScope, envFor, startServe, tempStateRoot, type ServeChild } from '../fixtures/supervisor-harness.js';
import { CHROMIUM } from './e2e-fixture.js';

const scope = createScope();
let serve: ServeChild;
let browser: Browser;
let port: number;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)`);
  const key = canary('e2e-rebinding-api-key');
  serve = await startServe(scope, envFor({ stateRoot: await tempStateRoot(scope), apiKey: key }), key).ready;
  port = Number(new URL(serve.address).port);
  const browserLog = recordFile('children', 'e2e-rebinding-chromium');
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--host-resolver-rules=MAP evil.test 127.0.0.1'],
    logger: { isEnabled: (name) => name === 'browser', log: (name, severity, message) => browserLog(`${name} ${severity} ${String(message)}\n`) },
  });
  scope.defer(browser, (b) => b.close());
}, 60_000);
afterAll(() => scope.dispose());

const readHealth = () =>
  fetch('/health').then(async (r) => ({ status: r.status, text: await r.text() }));

describe('a page served on another name (DNS rebinding)', () => {
  it('cannot read /health: the supervisor answers 421 with the code alone; its own origin still reads it', async () => {
    const context = await browser.newContext();
    scope.defer(context, (c) => c.close());
    const page = await context.newPage();
    const landing = await page.goto(`http://evil.test:${port}/`);
    expect(await page.evaluate(() => location.origin)).toBe(`http://evil.test:${port}`);
    const stolen = await page.evaluate(readHealth);
    // Before the fix: the login page (200), and /health read with its version and commit.
    expect({ landing: landing?.status(), stolen }).toEqual({ landing: 421, stolen: { status: 421, text: '{"ok":false,"error":{"code":"host_not_allowed"}}' } });

    // The supervisor's own origin reads /health as before.
    await page.goto(`${serve.address}/`);
    const own = await page.evaluate(readHealth);
    expect(own.status).toBe(200);
    expect(JSON.parse(own.text).status).toBe('ok');
  });
});
