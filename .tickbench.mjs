import { createActor, fromPromise } from 'xstate';
import { campaignMachine } from './dist/machines/campaign.machine.js';
const N = 10000;
const view = { taskId: 't', contextId: 'c', state: 'working', stage: null, revision: 1, attempt: 1, attemptId: null, artifactIds: [], lease: null, missionComplete: false, latestAgentMessageDigest: null, fingerprint: 'fp', observedAt: 'x' };
let first = true;
const m = campaignMachine.provide({ actors: { readStatus: fromPromise(async ({ input }) => ({ ok: true, requestedAt: input.now, fingerprint: 'fp', readback: null, observation: input.previous ? null : { view, events: [], wakes: [], drafts: [], remoteBlocked: false } })) } });
const actors = [];
for (let i = 0; i < N; i++) { const a = createActor(m, { input: { campaignId: 'c' + i } }); a.start(); actors.push(a); }
const waiters = new Map();
for (const a of actors) a.subscribe((s) => { if (s.children.readStatus === undefined) { const w = waiters.get(a); if (w) { waiters.delete(a); w(); } } });
const tick = { type: 'TICK', now: new Date().toISOString(), cadenceMs: 120000, binding: { taskId: 't', contextId: 'c' } };
for (let r = 0; r < 5; r++) {
  const c0 = process.cpuUsage(); const t = performance.now();
  for (let i = 0; i < N; i += 64) await Promise.all(actors.slice(i, i + 64).map((a) => new Promise((res) => { waiters.set(a, res); a.send(tick); })));
  const c = process.cpuUsage(c0);
  console.log('round', r, (performance.now() - t).toFixed(0), 'ms cpu', ((c.user + c.system) / 1000).toFixed(0), 'µs/tick', ((c.user + c.system) / N).toFixed(1));
}
console.log('rss', (process.memoryUsage().rss / 1e6).toFixed(0));
global.gc?.(); global.gc?.();
console.log('after gc rss', (process.memoryUsage().rss / 1e6).toFixed(0), 'heapUsed', (process.memoryUsage().heapUsed / 1e6).toFixed(0));
