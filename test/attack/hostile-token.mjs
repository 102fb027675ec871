// Run: npm run build && node test/attack/hostile-token.mjs  (prints SURVIVING DISGUISES: the token forms found in answers, campaigns/*.json, events/*.jsonl and serve stderr)
// A hand-written hostile A2A remote that echoes its own token in many disguises and places,
// observed by a real `serve` child; then every API answer, every file under the state root and
// every line serve printed is scanned for the token.
import http from 'node:http';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { startServe, canary, tmpRoot, answers, call } from './lib.mjs';
const URI = 'urn:opentraining:a2a:control:v1';
const T = canary('remote-token');
const K = canary('api-key');
const mid = Math.floor(T.length / 2);
const split = (c) => T.slice(0, mid) + c + T.slice(mid);
// Disguises: case, and every invisible a terminal does not render.
const disguises = {
  lower: T.toLowerCase(), upper: T.toUpperCase(), zwsp: split('\u200b'), softHyphen: split('\u00ad'),
  cgj: split('\u034f'), vs16: split('\ufe0f'), tag: split('\u{E0041}'), hangulFiller: split('\u3164'),
  mongolian: split('\u180e'), wordJoiner: split('\u2060'), manyZw: [...T].join('\u200b'),
  ansiSplit: T.slice(0, mid) + '\u001b[0m' + T.slice(mid), nulSplit: T.slice(0, mid) + '\u0000' + T.slice(mid),
  percent: encodeURIComponent(T).replace(/A/g, '%41'), base64: Buffer.from(T).toString('base64'), apiKey: K,
};
const names = Object.keys(disguises);
let reads = 0, calls = [], seen = { otherOriginAuth: 0 };
// A second origin: does the supervisor follow a card that points its RPC elsewhere (with the token)?
const other = http.createServer((req, res) => { if (req.headers.authorization || req.headers['x-api-key']) seen.otherOriginAuth++; res.writeHead(404); res.end(); });
await new Promise((r) => other.listen(0, '127.0.0.1', r));
let origin = '';
let cardMode = 'poison';
const send = (res, status, body) => { const t = JSON.stringify(body); res.writeHead(status, { 'content-type': 'application/json' }); res.end(t); };
const card = () => ({
  name: `Agent ${Object.values(disguises).join(' ')}`, description: `desc ${T}`, version: `1.0.0-${T}`,
  defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [{ id: T, name: T, description: T, tags: [T] }],
  supportedInterfaces: [{ url: cardMode === 'redirect' ? `http://127.0.0.1:${other.address().port}/a2a/rpc` : `${origin}/a2a/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: { streaming: false, extensions: [{ uri: URI, description: T, required: false, params: { methods: ['lease.get', 'lease.claim', 'lease.renew', 'lease.release', 'intervene', 'request.get'], mutations: ['SendMessage', 'CancelTask', 'intervene'], epochEnforcement: true, requestReadback: true, leaseScope: 'context' } }] },
});
const task = () => {
  const n = ++reads; const d = disguises[names[n % names.length]];
  return {
    id: 'task-A', contextId: 'ctx-A',
    status: { state: n % 2 ? 'TASK_STATE_INPUT_REQUIRED' : 'TASK_STATE_WORKING', timestamp: new Date().toISOString(), message: { messageId: `m${n}`, role: 'ROLE_AGENT', parts: [{ text: `question ${n}: ${Object.values(disguises).join(' | ')}` }], metadata: { t: T } } },
    artifacts: names.map((k, i) => ({ artifactId: `a-${n}-${i}`, name: `${k} ${disguises[k]}`, description: T, parts: [{ text: T }] })),
    metadata: { [URI]: { revision: n, stage: `s${n} ${d}`, attempt: 1, attemptId: `att-${n}`, lease: null, missionComplete: false, note: T } },
  };
};
let rpcMode = 'task';
const server = http.createServer((req, res) => {
  const chunks = []; req.on('data', (c) => chunks.push(c)); req.on('end', () => {
    if (req.headers.authorization !== `Bearer ${T}`) return send(res, 401, { error: 'unauthorized' });
    if (req.method === 'GET' && req.url === '/a2a/.well-known/agent-card.json') return send(res, 200, card());
    const c = JSON.parse(Buffer.concat(chunks).toString() || '{}'); calls.push(c.method);
    if (rpcMode === 'error') return send(res, 200, { jsonrpc: '2.0', id: c.id, error: { code: -32603, message: `boom ${Object.values(disguises).join(' ')}`, data: { token: T } } });
    if (rpcMode === 'http500') { res.writeHead(500, { 'content-type': 'text/plain', 'x-token': T }); return res.end(`internal ${T}`); }
    if (c.method === 'GetTask') return send(res, 200, { jsonrpc: '2.0', id: c.id, result: task() });
    if (c.method?.startsWith('opentraining.control/lease.')) {
      const holder = rpcMode === 'holder' ? disguises.lower : String(c.params?.controllerId);
      return send(res, 200, { jsonrpc: '2.0', id: c.id, result: { lease: { contextId: 'ctx-A', holder, epoch: 7, expiresAt: new Date(Date.now() + 6e5).toISOString(), ttlSeconds: 600 }, serverTime: new Date().toISOString() } });
    }
    return send(res, 200, { jsonrpc: '2.0', id: c.id, error: { code: -32601, message: `no ${T}` } });
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
origin = `http://127.0.0.1:${server.address().port}`;
const root = tmpRoot();
const env = { ARGUS_SUPERVISOR_STATE_ROOT: root, ARGUS_SUPERVISOR_ENABLED: '1', OPENTRAINING_A2A_URL: `${origin}/a2a`, OPENTRAINING_A2A_TOKEN: T, ARGUS_SUPERVISOR_API_KEY: K };
const serve = await startServe(env);
const api = serve.api;
const act = (action, f = {}) => api('campaign_action', { campaign_id: 'c1', action, ...f });
await api('campaigns', { action: 'create', campaign_id: 'c1', objective: 'o', remote_task_id: 'task-A' });
for (let i = 0; i < 40; i++) await act('observe');
await act('claim');
rpcMode = 'holder'; await act('claim'); await act('observe');
rpcMode = 'error'; for (let i = 0; i < 4; i++) await act('observe');
await act('claim');
rpcMode = 'http500'; for (let i = 0; i < 4; i++) await act('observe');
rpcMode = 'task';
await act('observe'); await act('answer', { text: 'ok' });
await api('campaigns', { action: 'list' }); await api('campaigns', { action: 'get', campaign_id: 'c1' });
await api('status'); await api('health');
await call(`${serve.base}/metrics`, undefined, { 'x-api-key': K });
await call(`${serve.base}/health`);
await serve.kill('SIGTERM');
// restart with a card that points RPC at another origin
cardMode = 'redirect';
const serve2 = await startServe(env);
await serve2.api('campaign_action', { campaign_id: 'c1', action: 'observe' });
await serve2.api('health');
await serve2.kill('SIGTERM');

// ---- scan ----
const files = []; const walk = (d) => { for (const f of readdirSync(d)) { const p = path.join(d, f); statSync(p).isDirectory() ? walk(p) : files.push(p); } }; walk(root);
const hay = [
  ...answers.map((a, i) => [`answer#${i}`, a.text]),
  ...files.map((f) => [path.relative(root, f), readFileSync(f, 'utf8')]),
  ['serve.stderr', serve.err.join('') + serve2.err.join('')], ['serve.stdout', serve.out.join('') + serve2.out.join('')],
];
// Decode JSON \u escapes, drop everything but token characters, compare case-insensitively.
const squash = (s) => s.replace(/\\u([0-9a-fA-F]{4})/g, (_m, h) => String.fromCharCode(parseInt(h, 16))).replace(/%41/g, 'A').replace(/%2D/gi, '-').replace(/[^A-Za-z0-9-]/gu, '').toLowerCase();
const secrets = { token: T, apiKey: K, hexTail: T.slice(-16) };
const findings = [];
for (const [where, text] of hay) {
  for (const [label, s] of Object.entries(secrets)) {
    if (text.includes(s)) findings.push({ where, label, form: 'exact' });
    else if (text.toLowerCase().includes(s.toLowerCase())) findings.push({ where, label, form: 'case-folded' });
    else if (squash(text).includes(s.toLowerCase())) {
      const i = squash(text).indexOf(s.toLowerCase());
      findings.push({ where, label, form: 'split-by-invisible/escape' });
    }
  }
  if (text.includes(disguises.base64)) findings.push({ where, label: 'token', form: 'base64' });
}
// control / format characters in API answers (parsed strings), using Unicode categories
const bad = /[\p{Cc}\p{Cf}\u2028\u2029\u034f\ufe00-\ufe0f\u3164\u115f\u1160\uffa0]/u;
const ctl = [];
const strings = (v, o = []) => { if (typeof v === 'string') o.push(v); else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) { o.push(k); strings(x, o); } return o; };
answers.forEach((a, i) => { for (const s of strings(a.json)) { const m = s.match(bad); if (m) ctl.push({ answer: i, char: 'U+' + m[0].codePointAt(0).toString(16), sample: JSON.stringify(s.slice(Math.max(0, m.index - 20), m.index + 20)) }); } });
const modes = files.map((f) => [path.relative(root, f), (statSync(f).mode & 0o777).toString(8)]);
const dirs = []; const walkd = (d) => { dirs.push([path.relative(root, d) || '.', (statSync(d).mode & 0o777).toString(8)]); for (const f of readdirSync(d)) { const p = path.join(d, f); if (statSync(p).isDirectory()) walkd(p); } }; walkd(root);
const uniq = (xs) => [...new Map(xs.map((x) => [JSON.stringify(x), x])).values()];
console.log(JSON.stringify({ reads, otherOriginAuth: seen.otherOriginAuth, findings: Object.entries(findings.reduce((m, f) => { const k = `${f.where.replace(/#\d+$/, '')} ${f.label} ${f.form}`; m[k] = (m[k] ?? 0) + 1; return m; }, {})), controlChars: uniq(ctl.map(({ char, sample }) => ({ char, sample }))).slice(0, 20), fileModes: modes, dirModes: dirs, maxDoc: Math.max(...files.filter((f) => f.endsWith('.json')).map((f) => statSync(f).size)) }, null, 1));
const survivors = {};
for (const [where, text] of hay) { const dec = text.replace(/\\u([0-9a-fA-F]{4})/g, (_m, h) => String.fromCharCode(parseInt(h, 16))).replace(/\\ud[89ab][0-9a-f]{2}\\ud[c-f][0-9a-f]{2}/gi, (m) => JSON.parse(`"${m}"`)); for (const [k, v] of Object.entries(disguises)) if (dec.includes(v) || text.includes(v)) (survivors[k] ??= new Set()).add(where.replace(/#\d+$/, '')); }
for (const l of (serve.err.join('') + serve2.err.join('')).split('\n')) if (l.includes(disguises.cgj) || JSON.stringify(l).includes('u034f') || l.includes('\\u034f')) console.log('STDERR LINE', l.slice(0, 300));
console.log('SURVIVING DISGUISES', JSON.stringify(Object.fromEntries(Object.entries(survivors).map(([k, v]) => [k, [...v]]))));
server.close(); other.close(); process.exit(0);
