/**
 * The browser tests' world: the simulator (`argus-supervisor simulate`) and `serve` as real
 * child processes on 127.0.0.1, and Debian's Chromium driven by playwright-core (never a
 * downloaded browser). Every child's output is recorded for the end-of-run canary scan (the
 * browser's through playwright's logger, its console through the page's console events).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { canary } from '../fixtures/canary.js';
import { recordChildOutput } from '../fixtures/child-output.js';
import { recordFile } from '../fixtures/scratch.js';
import { CLI_ENTRY, REPO_ROOT, envFor, startServe, tempStateRoot, type Scope, type ServeChild } from '../fixtures/supervisor-harness.js';

export const CHROMIUM = '/usr/bin/chromium';
export const ARTIFACTS = path.join(REPO_ROOT, 'test-results', 'e2e');

export interface Simulator {
  url: string;
  origin: string;
  /** Creates tasks through the simulator's admin API; returns their ids. */
  tasks(count: number, scenario: string): Promise<string[]>;
  ledger(): Promise<{ action: string; disposition: string }[]>;
}

export async function startSimulatorChild(scope: Scope, token: string): Promise<Simulator> {
  const child = recordChildOutput(
    spawn(process.execPath, [CLI_ENTRY, 'simulate', '--port', '0', '--polls-per-stage', '1'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', OPENTRAINING_A2A_TOKEN: token },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
    'e2e-simulate',
  );
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  scope.defer(child, (c) => {
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
    return closed;
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  for (let i = 0; i < 1000 && !stdout.includes('\n'); i++) await new Promise((r) => setTimeout(r, 10));
  const { url } = JSON.parse(stdout.split('\n')[0]!) as { url: string };
  const origin = new URL(url).origin;
  const admin = async (route: string, body?: unknown) => {
    const res = await fetch(`${origin}/_sim/${route}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`simulator admin ${route}: ${res.status}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
  return {
    url,
    origin,
    tasks: async (count, scenario) => (await admin('tasks', { count, scenario })).ids as string[],
    ledger: async () => (await admin('ledger')).entries as { action: string; disposition: string }[],
  };
}

export interface E2EWorld {
  key: string;
  sim: Simulator;
  serve: ServeChild;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** POST to the API with the key (the test's own client, not the page). */
  api(route: string, body: unknown): Promise<Record<string, unknown> & { ok: boolean }>;
  shot(name: string, target?: { screenshot(o: { path: string }): Promise<unknown> }): Promise<string>;
  /** Stops serve and starts it again on the same port and state root (its sessions are gone). */
  restartServe(): Promise<void>;
}

export async function startWorld(scope: Scope): Promise<E2EWorld> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)`);
  mkdirSync(ARTIFACTS, { recursive: true });
  const key = canary('e2e-api-key');
  const token = canary('e2e-remote-token');
  const sim = await startSimulatorChild(scope, token);
  const stateRoot = await tempStateRoot(scope);
  const serveEnv = envFor({ stateRoot, url: sim.url, token, apiKey: key });
  let serve = await startServe(scope, serveEnv, key).ready;
  const browserLog = recordFile('children', 'e2e-chromium');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    logger: { isEnabled: (name) => name === 'browser', log: (name, severity, message) => browserLog(`${name} ${severity} ${String(message)}\n`) },
  });
  scope.defer(browser, (b) => b.close());
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const world = {} as E2EWorld;
  const page = await context.newPage();
  const consoleLog = recordFile('children', 'e2e-page-console');
  page.on('console', (m) => consoleLog(`${m.type()} ${m.text()}\n`));
  page.on('pageerror', (e) => consoleLog(`pageerror ${e.message}\n`));
  const parts: E2EWorld = {
    key,
    sim,
    serve,
    browser,
    context,
    page,
    api: async (route, body) => (await world.serve.api(route, body)).json as Record<string, unknown> & { ok: boolean },
    shot: async (name, target = page) => {
      const file = path.join(ARTIFACTS, `${name}.png`);
      await target.screenshot({ path: file });
      return file;
    },
    restartServe: async () => {
      const port = new URL(serve.address).port;
      serve.child.kill('SIGTERM');
      await serve.exited;
      serve = await startServe(scope, { ...serveEnv, PORT: port }, key).ready;
      world.serve = serve;
    },
  };
  return Object.assign(world, parts);
}

/** A fresh page at the laptop size the operator tests use (1366×768), made the world's page. */
export async function openLaptopPage(w: E2EWorld): Promise<Page> {
  const context = await w.browser.newContext({ viewport: { width: 1366, height: 768 } });
  w.page = await context.newPage();
  return w.page;
}

/** Logs in through the page's form (the key typed into the password field). */
export async function logIn(w: E2EWorld): Promise<void> {
  await w.page.goto(w.serve.address);
  await w.page.getByLabel('API key').fill(w.key);
  await Promise.all([w.page.waitForURL(`${w.serve.address}/`), w.page.getByRole('button', { name: 'Log in' }).click()]);
  await w.page.locator('#live-status').filter({ hasText: 'Live' }).waitFor({ timeout: 5000 });
}

/** Attaches a campaign to a simulator task through the page's form; waits for its row. */
export async function attachThroughPage(w: E2EWorld, campaignId: string, taskId: string): Promise<void> {
  const { page } = w;
  // The <details> stays open after an attach; a second click would close it.
  if (!(await page.locator('details.attach').evaluate((d) => (d as unknown as { open: boolean }).open))) await page.getByText('Attach a campaign to a remote task').click();
  await page.getByLabel('Campaign id').fill(campaignId);
  await page.getByLabel('Remote task id').fill(taskId);
  await page.getByLabel('Objective').fill(`watch ${taskId}`);
  await page.getByRole('button', { name: 'Attach' }).click();
  await page.locator(`tr[data-campaign="${campaignId}"]`).waitFor();
  await page.locator('#detail-title').filter({ hasText: campaignId }).waitFor();
}

/** Ids of the chart nodes the page marks active. */
export const activeIds = (page: Page) =>
  page.$$eval('#chart [data-active="true"]', (nodes) => nodes.map((n) => n.getAttribute('data-state') ?? ''));
