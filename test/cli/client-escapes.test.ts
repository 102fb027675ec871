/**
 * The CLI client in front of a server that sends terminal control sequences (a wrong URL, a
 * proxy, a compromised host): nothing it prints, on stdout or stderr, in a table, an error
 * line, a followed stream or --json, carries a raw control character a terminal would act on.
 * Runs the built binary (dist/: `npm run build` first).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { canary } from '../fixtures/canary.js';
import { createScope } from '../fixtures/supervisor-harness.js';
import { runCli } from './cli-harness.js';

const scope = createScope();
afterEach(() => scope.dispose());

const ESC = '\u001b';
const CSI8 = '\u009b';
/** Every C0 control but newline and tab, DEL and every C1 control. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const hostile = (s: string) => `${ESC}]0;owned${'\u0007'}${s}${ESC}[2J${CSI8}31m`;

const campaign = {
  campaign_id: 'c-1',
  state: hostile('observing'),
  attention: 'idle',
  remote: { stage: hostile('stage') },
  lease: { mode: 'observer' },
};

async function hostileServer(): Promise<string> {
  const server = http.createServer((req, res) => {
    if (req.url?.endsWith('/events')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: hello\ndata: ${JSON.stringify({ revision: hostile('7') })}\n\n`);
      res.end(`event: campaign\ndata: ${JSON.stringify({ campaign, active: [hostile('campaign.active.x')] })}\n\n`);
      return;
    }
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url?.endsWith('/health')) return res.end(JSON.stringify({ ok: true, controller_id: hostile('ctl'), api_key_source: hostile('src'), last_tick: { at: hostile('now'), ticked: 1, errors: 0 }, campaigns: { total: 1 } }));
      if (req.url?.endsWith('/status')) return res.end(JSON.stringify({ ok: true, campaigns: [campaign], events: [] }));
      if (body.includes('"get"')) return res.end(JSON.stringify({ ok: false, error: { code: hostile('code'), message: hostile('message') } }));
      res.end(JSON.stringify({ ok: true, campaigns: [campaign] }));
    });
  });
  scope.defer(server, (s) => new Promise<void>((done) => s.close(() => done())));
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('CLI output in front of a hostile server', () => {
  it('no raw control character reaches the terminal', async () => {
    const env = { ARGUS_SUPERVISOR_URL: await hostileServer(), ARGUS_SUPERVISOR_API_KEY: canary('cli-escape-key') };
    const runs = {
      list: await runCli(['campaigns', 'list', '--wide'], env),
      listJson: await runCli(['campaigns', 'list', '--json'], env),
      get: await runCli(['campaigns', 'get', 'c-1'], env),
      status: await runCli(['status'], env),
      follow: await runCli(['events', '--follow'], env),
      followJson: await runCli(['events', '--follow', '--json'], env),
    };
    // Each run did print what the server sent (so the check below is about real output).
    expect(runs.list.stdout).toContain('observing');
    expect(JSON.parse(runs.listJson.stdout).campaigns[0].state).toBe(campaign.state);
    expect(runs.get.code).toBe(1);
    expect(runs.get.stderr).toContain('message');
    expect(runs.status.stdout).toContain('ctl');
    expect(runs.follow.stdout).toContain('following');
    expect(runs.follow.stdout).toContain('chart=');
    expect(runs.followJson.stdout).toContain('hello');
    for (const [name, r] of Object.entries(runs)) {
      expect(RAW_CONTROL.test(r.stdout), `${name} stdout: ${JSON.stringify(r.stdout)}`).toBe(false);
      expect(RAW_CONTROL.test(r.stderr), `${name} stderr: ${JSON.stringify(r.stderr)}`).toBe(false);
    }
  });
});
