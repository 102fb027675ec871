/**
 * scripts/smoke against a real `serve` child (remote: the simulator on loopback) and against
 * hand-written servers that get one thing wrong each: every check is seen to pass and to fail,
 * and no line it prints ever carries the key.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { canary } from '../fixtures/canary.js';
import { recordChildOutput } from '../fixtures/child-output.js';
import { createScope, REPO_ROOT, spawnServe, tempStateRoot, type ServeChild } from '../fixtures/supervisor-harness.js';

const SMOKE = path.join(REPO_ROOT, 'scripts/smoke');
const KEY = canary('smoke-api-key');
const TOKEN = canary('smoke-remote-token');
const SHA = randomBytes(20).toString('hex');

interface SmokeRun {
  code: number | null;
  lines: string[];
  stderr: string;
}

/** Runs the script itself (its shebang, not `node scripts/smoke`), as an operator would. */
async function smoke(url: string | null, env: Record<string, string | undefined>, extraArgs: string[] = []): Promise<SmokeRun> {
  const childEnv: Record<string, string> = { PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}` };
  for (const [k, v] of Object.entries(env)) if (v !== undefined) childEnv[k] = v;
  const child = recordChildOutput(spawn(SMOKE, [...(url === null ? [] : ['--url', url]), ...extraArgs], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] }), 'smoke');
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  // The key is sent, never shown: not on stdout, not on stderr, whatever the server did.
  expect(out + err).not.toContain(KEY);
  return { code, lines: out.trim().split('\n').filter(Boolean), stderr: err };
}

const verdicts = (r: SmokeRun): string[] => r.lines.map((l) => l.split(':')[0] ?? '');
const ALL_PASS = ['pass health', 'pass wrong_key', 'pass right_key', 'pass no_secret', 'pass remote'];

describe('scripts/smoke against a real serve', () => {
  const scope = createScope();
  let sim: RunningSimulator;
  let serve: ServeChild;

  beforeAll(async () => {
    sim = await startSimulator({ token: TOKEN });
    scope.defer(sim, (s) => s.close());
    const stateRoot = await tempStateRoot(scope);
    serve = await spawnServe(
      scope,
      {
        ARGUS_SUPERVISOR_STATE_ROOT: stateRoot,
        ARGUS_SUPERVISOR_ENABLED: '1',
        OPENTRAINING_A2A_URL: sim.url,
        OPENTRAINING_A2A_TOKEN: TOKEN,
        ARGUS_SUPERVISOR_API_KEY: KEY,
        ARGUS_SUPERVISOR_SOURCE_SHA: SHA,
      },
      KEY,
    );
  });
  afterAll(() => scope.dispose());

  it('passes every check, one line each, and prints the capability probe result', async () => {
    const r = await smoke(serve.address, { EXPECTED_SHA: SHA, ARGUS_SUPERVISOR_API_KEY: KEY });
    expect({ code: r.code, verdicts: verdicts(r) }).toEqual({ code: 0, verdicts: ALL_PASS });
    expect(r.lines[0]).toBe(`pass health: sha ${SHA} (version 0.1.0)`);
    expect(r.lines[2]).toBe('pass right_key: 200 ok (api_key_source deployment_secret)');
    const remote = JSON.parse(r.lines[4]!.slice('pass remote: '.length)) as Record<string, unknown>;
    // What the supervisor discovered from the simulator's card, as /api/.../health reports it.
    const view = (await serve.api('health')).json.remote as Record<string, unknown>;
    expect(remote).toEqual({ ...view, reachable: true });
    expect(remote).toMatchObject({ protocol_version: expect.any(String), mutations_enabled: true });
  });

  it('fails on a SHA that is not the expected one', async () => {
    const other = randomBytes(20).toString('hex');
    const r = await smoke(serve.address, { EXPECTED_SHA: other, ARGUS_SUPERVISOR_API_KEY: KEY });
    expect(r.code).toBe(1);
    expect(r.lines[0]).toBe(`fail health: sha "${SHA}" is not EXPECTED_SHA ${other}`);
    expect(verdicts(r).slice(1)).toEqual(ALL_PASS.slice(1));
  });

  it('fails when its key is not the deployment key (and prints neither)', async () => {
    const r = await smoke(serve.address, { EXPECTED_SHA: SHA, ARGUS_SUPERVISOR_API_KEY: canary('smoke-other-key') });
    expect(r.code).toBe(1);
    expect(verdicts(r)).toEqual(['pass health', 'pass wrong_key', 'fail right_key']);
    expect(r.lines[2]).toBe('fail right_key: the key got 401 unauthorized, not 200 ok');
  });

  it('refuses bad usage with exit 2', async () => {
    const cases: [string | null, Record<string, string | undefined>, string[], RegExp][] = [
      [null, { EXPECTED_SHA: SHA, ARGUS_SUPERVISOR_API_KEY: KEY }, [], /--url is required/],
      [serve.address, { ARGUS_SUPERVISOR_API_KEY: KEY }, [], /EXPECTED_SHA is required/],
      [serve.address, { EXPECTED_SHA: SHA }, [], /ARGUS_SUPERVISOR_API_KEY is required/],
      [serve.address.replace('http://', `http://u:${KEY}@`), { EXPECTED_SHA: SHA, ARGUS_SUPERVISOR_API_KEY: KEY }, [], /must not carry a credential/],
      [serve.address, { EXPECTED_SHA: SHA, ARGUS_SUPERVISOR_API_KEY: KEY }, ['--timeout-ms', 'soon'], /--timeout-ms must be/],
    ];
    // A key pasted as an argument or an option value is refused without being echoed.
    cases.push([serve.address, { EXPECTED_SHA: SHA, ARGUS_SUPERVISOR_API_KEY: KEY }, [KEY], /unexpected argument/]);
    cases.push([serve.address, { EXPECTED_SHA: SHA, ARGUS_SUPERVISOR_API_KEY: KEY }, [`--key=${KEY}`], /unknown option/]);
    for (const [url, env, extra, message] of cases) {
      const r = await smoke(url, env, extra);
      expect({ code: r.code, lines: r.lines }).toEqual({ code: 2, lines: [] });
      expect(r.stderr).toMatch(message);
      expect(r.stderr.includes(KEY)).toBe(false);
    }
  });
});

/** What a hand-written server answers; each variant gets one thing wrong. */
interface FakeBehaviour {
  sha?: string;
  publicExtra?: Record<string, unknown>;
  acceptAnyKey?: boolean;
  health?: Record<string, unknown>;
}

const GOOD_REMOTE = { reachable: true, protocol_version: '1.0', capabilities: { streaming: true }, control_extension: null, mutations_enabled: true, unsupported: [] };
const goodHealth = () => ({ ok: true, configured: { remote: true, remote_token: true, api_key: true }, api_key_source: 'deployment_secret', remote: GOOD_REMOTE });

describe('scripts/smoke against servers that get one thing wrong', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (closers.length) await closers.pop()!();
  });

  async function fake(b: FakeBehaviour): Promise<string> {
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method === 'GET' && req.url === '/health') return send(200, { status: 'ok', version: '0.1.0', sha: b.sha ?? SHA, ...b.publicExtra });
      if (req.method === 'POST' && req.url === '/api/plugins/argus_supervisor/health') {
        if (!b.acceptAnyKey && req.headers['x-api-key'] !== KEY) return send(401, { ok: false, error: { code: 'unauthorized', message: 'no' } });
        return send(200, b.health ?? goodHealth());
      }
      send(404, { ok: false });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  const run = async (b: FakeBehaviour) => smoke(await fake(b), { EXPECTED_SHA: SHA, ARGUS_SUPERVISOR_API_KEY: KEY });

  it('passes a server that gets everything right (the baseline the variants break)', async () => {
    const r = await run({});
    expect({ code: r.code, verdicts: verdicts(r) }).toEqual({ code: 0, verdicts: ALL_PASS });
  });

  it.each<[string, FakeBehaviour, string, RegExp]>([
    ['leaks the key in its health', { health: { ...goodHealth(), debug: `started with ${KEY}` } }, 'fail no_secret', /contains the API key/],
    ['leaks the key JSON-escaped inside a nested field', { health: { ...goodHealth(), env: { note: [`"${KEY}"`] } } }, 'fail no_secret', /contains the API key/],
    ['names a credential with a value', { health: { ...goodHealth(), remote: { ...GOOD_REMOTE, bearer_token: canary('smoke-leaked-token') } } }, 'fail no_secret', /remote.bearer_token/],
    ['nests a value under a credential name', { health: { ...goodHealth(), api_key: { value: canary('smoke-nested') } } }, 'fail no_secret', /api_key.value/],
    ['accepts any key', { acceptAnyKey: true }, 'fail wrong_key', /a wrong key got 200, not 401/],
    ['has no remote section', { health: { ...goodHealth(), remote: undefined } }, 'fail remote', /no remote section/],
    ['cannot reach its configured remote', { health: { ...goodHealth(), remote: { ...GOOD_REMOTE, reachable: false } } }, 'fail remote', /"reachable":false/],
    ['says more than its identity on the public /health', { publicExtra: { controller_id: 'argus-openoperator' } }, 'fail health', /says more than status, version, sha: controller_id/],
    ['reports the key as its SHA', { sha: KEY }, 'fail health', /sha "\*{12}" is not EXPECTED_SHA/],
  ])('fails a server that %s', async (_label, behaviour, verdict, detail) => {
    const r = await run(behaviour);
    expect(r.code).toBe(1);
    const line = r.lines.find((l) => l.startsWith(`${verdict}:`));
    expect(line).toMatch(detail);
    expect(verdicts(r).filter((v) => v.startsWith('fail'))).toEqual([verdict]);
  });

  it('fails when nothing answers', async () => {
    const url = await fake({});
    await closers.pop()!();
    const r = await smoke(url, { EXPECTED_SHA: SHA, ARGUS_SUPERVISOR_API_KEY: KEY });
    expect(r.code).toBe(1);
    expect(r.lines).toEqual(['fail health: GET /health failed (ECONNREFUSED)', 'fail wrong_key: POST /api/plugins/argus_supervisor/health failed (ECONNREFUSED)', 'fail right_key: POST /api/plugins/argus_supervisor/health failed (ECONNREFUSED)']);
  });
});
