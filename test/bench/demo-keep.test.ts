/**
 * `demo --keep` as a person runs it (a real child of the built binary): the page's URL and the
 * key file's path printed once, the key itself never; the page and the API answer with that
 * key while it stays up; the campaign left for the person is controlling and its remote asks a
 * question on the demo's own heartbeat; the CLI client reads it with the printed settings; and
 * SIGINT ends it with exit 0 and its temp state removed.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordChildOutput } from '../fixtures/child-output.js';
import { CLI_ENTRY, REPO_ROOT, createScope } from '../fixtures/supervisor-harness.js';
import { runCli } from '../cli/cli-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());

async function waitFor<T>(what: string, probe: () => T | null | Promise<T | null>, ms = 60_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('demo --keep', () => {
  it('serves the page with the generated key, leaves a campaign that asks, and stops cleanly on SIGINT', async () => {
    const child = recordChildOutput(
      spawn(process.execPath, [CLI_ENTRY, 'demo', '--keep', '--port', '0'], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] }),
      'demo-keep',
    );
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    scope.defer(child, (c) => {
      if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      return exited;
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr!.on('data', (c: Buffer) => (err += c.toString('utf8')));

    await waitFor('the left-running block', () => (out.includes('  CLI:  ') ? true : null));
    const pageLines = out.split('\n').filter((l) => l.startsWith('Page: '));
    expect(pageLines).toHaveLength(1);
    const [, url, keyFile] = /^Page: (http:\/\/127\.0\.0\.1:\d+)\/ \(log in with the API key in (\S+): /.exec(pageLines[0]!)!;
    expect(statSync(keyFile!).mode & 0o777).toBe(0o600);
    const key = readFileSync(keyFile!, 'utf8').trim();
    expect(key.length).toBeGreaterThanOrEqual(32);
    const stateRoot = /ARGUS_SUPERVISOR_STATE_ROOT=(\S+) /.exec(out)![1]!;
    expect(path.join(stateRoot, 'local-api-key')).toBe(keyFile);

    // The page answers (its login form), the API wants the key and takes the generated one.
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/type="password"/);
    const api = (k: string | null) =>
      fetch(`${url}/api/plugins/argus_supervisor/campaigns`, { method: 'POST', headers: { 'content-type': 'application/json', ...(k ? { 'x-api-key': k } : {}) }, body: JSON.stringify({ action: 'get', campaign_id: 'demo-live' }) });
    expect((await api(null)).status).toBe(401);

    // The campaign left for the person: controlling, and on the demo's heartbeat its remote asks.
    const question = await waitFor('the remote question', async () => {
      const view = ((await (await api(key)).json()) as { campaign: { state: string; pending_question: { source: string } | null } }).campaign;
      expect(view.state).toBe('controlling');
      return view.pending_question;
    });
    expect(question.source).toBe('remote');

    // The CLI client with exactly the printed settings.
    const listed = await runCli(['campaigns', 'list', '--json'], { ARGUS_SUPERVISOR_URL: url!, ARGUS_SUPERVISOR_STATE_ROOT: stateRoot });
    expect(listed.code).toBe(0);
    const ids = (JSON.parse(listed.stdout) as { campaigns: { campaign_id: string; attention: string }[] }).campaigns.map((c) => [c.campaign_id, c.attention]);
    expect(ids).toContainEqual(['demo-live', 'needs-you']);

    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(out).toContain('SIGINT: stopping.');
    expect(existsSync(stateRoot)).toBe(false);
    // The key was never printed, by the demo or the client.
    for (const text of [out, err, listed.stdout, listed.stderr]) expect(text.includes(key)).toBe(false);
  }, 120_000);
});
