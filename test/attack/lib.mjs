// Helpers for the attack scripts: real child processes of dist/, 127.0.0.1 only, bounded waits.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(ROOT, 'dist/bin/argus-supervisor.js');
export const canary = (label) => `ARGUSCANARY-${label}-${randomBytes(8).toString('hex')}`;
export const tmpRoot = () => mkdtempSync(path.join(tmpdir(), 'argus-attack-'));
const children = new Set();
process.on('exit', () => { for (const c of children) try { c.kill('SIGKILL'); } catch {} });

export function child(args, env, { readyKey = 'ready' } = {}) {
  const c = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(c);
  const out = [], err = [];
  c.stdout.on('data', (d) => out.push(d.toString()));
  c.stderr.on('data', (d) => err.push(d.toString()));
  const exited = new Promise((r) => c.once('close', (code, signal) => { children.delete(c); r({ code, signal }); }));
  const ready = new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('not ready: ' + err.join('').slice(0, 2000))), 20000);
    c.stdout.on('data', () => {
      const line = out.join('').split('\n').find((l) => l.includes(`"${readyKey}"`) || l.includes('"url"'));
      if (line) { clearTimeout(t); resolve(JSON.parse(line)); }
    });
    exited.then((e) => { clearTimeout(t); reject(new Error(`exited ${JSON.stringify(e)}: ${err.join('').slice(0, 2000)}`)); });
  });
  ready.catch(() => {});
  return { c, out, err, exited, ready, kill: (s = 'SIGKILL') => { try { c.kill(s); } catch {} return exited; } };
}

export async function startSim(token, extra = []) {
  const s = child(['simulate', '--port', '0', ...extra], { OPENTRAINING_A2A_TOKEN: token });
  const r = await s.ready;
  return { ...s, url: r.url, origin: new URL(r.url).origin };
}

export async function startServe(env) {
  const s = child(['serve'], { LOG_LEVEL: 'trace', ...env });
  const r = await s.ready;
  const base = r.address.replace('[::1]', '127.0.0.1');
  return { ...s, base, api: (route, body, headers = {}) => call(`${base}/api/plugins/argus_supervisor/${route}`, body, { 'x-api-key': env.ARGUS_SUPERVISOR_API_KEY, ...headers }) };
}

export const answers = [];
export async function call(url, body, headers = {}, rawBody) {
  const res = await fetch(url, { method: body === undefined && rawBody === undefined ? 'GET' : 'POST', headers: { 'content-type': 'application/json', ...headers }, body: rawBody ?? (body === undefined ? undefined : JSON.stringify(body)) });
  const text = await res.text();
  let json = {};
  try { json = JSON.parse(text); } catch {}
  const a = { status: res.status, text, json };
  answers.push(a);
  return a;
}
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
