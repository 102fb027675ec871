import { readFileSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { parseCampaignDocument } from './dist/persistence/campaign-document.js';
import { createSupervisor } from './dist/services/runtime/supervisor.js';
import { loadConfig } from './dist/services/runtime/config.js';
const N = Number(process.argv[2] ?? 3000);
const root = '/tmp/loadprof-root'; rmSync(root, { recursive: true, force: true }); mkdirSync(root + '/campaigns', { recursive: true });
const parsed = parseCampaignDocument(JSON.parse(readFileSync('test/persistence/fixtures/v1/observing-with-events.json', 'utf8')));
if (!parsed.ok) throw new Error(parsed.code);
const base = parsed.doc;
for (let i = 0; i < N; i++) {
  const id = 'c' + i; const d = structuredClone(base); d.campaignId = id;
  d.outbox.events = d.outbox.events.map((e) => ({ ...e, campaignId: id, id: `${id}:${e.seq}` }));
  d.machine.snapshot.context.campaignId = id;
  writeFileSync(`${root}/campaigns/${id}.json`, JSON.stringify(d));
}
console.log('doc bytes', JSON.stringify(base).length);
const sup = await createSupervisor({ config: loadConfig({ ARGUS_SUPERVISOR_STATE_ROOT: root }), remote: null });
const t = performance.now();
await sup.start({ heartbeat: false, initialSweep: false });
console.log('start', (performance.now() - t).toFixed(0), 'ms for', N, 'rss', (process.memoryUsage().rss / 1e6).toFixed(0));
await sup.stop();
