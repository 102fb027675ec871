/**
 * The services/ layering rule (issue 18 item 10) can fail: a planted tree with one upward import
 * per kind (a middle layer reaching above itself, a leaf reaching any other folder) is refused
 * by the project's own dependency-cruiser rules, under the rule names CI prints, while the
 * downward imports beside them pass. `npm run lint:deps` applies the same rules to the real tree.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cruise } from 'dependency-cruiser';
import { removeScratch, scratchDir } from '../fixtures/scratch.js';

const require = createRequire(import.meta.url);
const config = require('../../.dependency-cruiser.cjs') as { forbidden: unknown[] };
let root = '';
beforeAll(async () => {
  root = await scratchDir('service-layers-');
});
afterAll(() => removeScratch(root));

/** Writes `services/<from>.ts` importing `services/<to>.ts`. */
function plant(from: string, to: string): void {
  for (const file of [from, to]) mkdirSync(path.join(root, 'services', path.dirname(file)), { recursive: true });
  const rel = path.relative(path.dirname(from), to).replace(/\.ts$/, '.js');
  writeFileSync(path.join(root, 'services', from), `import { x } from '${rel.startsWith('.') ? rel : `./${rel}`}';\nexport const y = x;\n`);
  writeFileSync(path.join(root, 'services', to), 'export const x = 1;\n', { flag: 'a' });
}

describe('services/ layers', () => {
  it('refuse an upward import and a leaf reaching another folder, and let downward imports through', async () => {
    plant('campaign/host.ts', 'api/views.ts'); // up: campaign is below api
    plant('authority/effect.ts', 'campaign/save.ts'); // up: authority is below campaign
    plant('contract/errors.ts', 'metrics/m.ts'); // a leaf reaching another leaf
    plant('runtime/supervisor.ts', 'api/routes.ts'); // down: fine
    plant('api/routes.ts', 'contract/codes.ts'); // down: fine
    const result = await cruise(['services'], { baseDir: root, ruleSet: { forbidden: config.forbidden } as never, tsPreCompilationDeps: true, validate: true }, { extensions: ['.ts', '.js'] });
    const output = result.output as { summary: { violations: { rule: { name: string }; from: string; to: string }[] } };
    const found = output.summary.violations.map((v) => `${v.from} -> ${v.to}: ${v.rule.name}`).sort();
    expect(found).toEqual([
      'services/authority/effect.ts -> services/campaign/save.ts: services-authority-imports-no-layer-above',
      'services/campaign/host.ts -> services/api/views.ts: services-campaign-imports-no-layer-above',
      'services/contract/errors.ts -> services/metrics/m.ts: services-contract-is-a-leaf',
    ]);
  });
});
