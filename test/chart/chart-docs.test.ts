/**
 * `docs/statechart.svg` and `docs/statechart.mmd` are what `argus-supervisor chart` writes
 * today: regenerated here (in process) and compared byte for byte, so a change to the machine
 * that is not re-rendered fails with the command that refreshes them. The built CLI runs as a
 * child too: stdout, `--out`, and a refused format (one `code: sentence` line, exit 2).
 */
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runChart } from '../../bin/commands/chart.js';
import { writeFile } from 'node:fs/promises';
import { chartMermaid, chartModel, chartSvg, modelDigest, renderChart, SHIPPED_CHART, storedChart } from '../../services/chart/index.js';
import { recordSyncOutput } from '../fixtures/child-output.js';
import { removeScratch, scratchDir } from '../fixtures/scratch.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = path.join(ROOT, 'dist/bin/argus-supervisor.js');
const REFRESH = 'npm run build && node dist/bin/argus-supervisor.js chart --format svg --out docs/statechart.svg && node dist/bin/argus-supervisor.js chart --format mermaid --out docs/statechart.mmd';
const docs = (name: string) => readFile(path.join(ROOT, 'docs', name), 'utf8');

const scratch: string[] = [];
afterAll(async () => {
  for (const dir of scratch) await removeScratch(dir);
});

function cli(name: string, args: string[]) {
  return recordSyncOutput(name, spawnSync(process.execPath, [CLI, 'chart', ...args], { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' }, timeout: 60_000 }));
}

describe('the generated chart in docs/', () => {
  it('docs/statechart.svg is the current chart', async () => {
    // A fresh layout, never the stored file chartSvg() may serve.
    const fresh = (await renderChart()).svg;
    const stored = await docs('statechart.svg');
    expect(stored === fresh, `docs/statechart.svg is stale: refresh it with\n  ${REFRESH}`).toBe(true);
  });

  it('the served chart is the shipped file only while it carries the running model\'s digest', async () => {
    const model = chartModel();
    const shipped = await docs('statechart.svg');
    expect(SHIPPED_CHART()).toBe(path.join(ROOT, 'docs', 'statechart.svg'));
    expect(shipped).toContain(` data-model="${modelDigest(model)}"`);
    expect(await storedChart(SHIPPED_CHART(), model)).toBe(shipped);
    expect(await chartSvg()).toBe(shipped);
    // A copy drawn of another model (its digest differs), or no file at all, is not served.
    const dir = await scratchDir('argus-chart-stale-');
    scratch.push(dir);
    const stale = path.join(dir, 'statechart.svg');
    await writeFile(stale, shipped.replace(/data-model="[0-9a-f]{16}"/, 'data-model="0000000000000000"'));
    expect(await storedChart(stale, model)).toBeNull();
    expect(await storedChart(path.join(dir, 'missing.svg'), model)).toBeNull();
    // …and the digest follows the model: one more guard name is another drawing.
    const other = { ...model, edges: model.edges.map((e, i) => (i === 0 ? { ...e, guard: `${e.guard ?? ''}X` } : e)) };
    expect(modelDigest(other)).not.toBe(modelDigest(model));
  });

  it('docs/statechart.mmd is the current chart', async () => {
    const stored = await docs('statechart.mmd');
    expect(stored === chartMermaid(chartModel()), `docs/statechart.mmd is stale: refresh it with\n  ${REFRESH}`).toBe(true);
  });
});

describe('serving the shipped chart', () => {
  // A child process, so the module graph is its own: a resolve hook reports every elkjs module loaded.
  async function loads(script: string): Promise<{ status: number | null; stdout: string; elk: boolean }> {
    const dir = await scratchDir('argus-chart-hooks-');
    scratch.push(dir);
    const hooks = path.join(dir, 'hooks.mjs');
    await writeFile(
      hooks,
      "export async function resolve(s, c, next) { const r = await next(s, c); if (r.url.includes('/elkjs/')) process.stderr.write('ELK ' + r.url + '\\n'); return r; }\n",
    );
    const register = `data:text/javascript,import { register } from "node:module"; register(${JSON.stringify(pathToFileURL(hooks).href)});`;
    const chart = pathToFileURL(path.join(ROOT, 'dist/services/chart/index.js')).href;
    const run = recordSyncOutput(
      'chart-elk-load',
      spawnSync(process.execPath, ['--import', register, '--input-type=module', '-e', `const m = await import(${JSON.stringify(chart)}); ${script}`], { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' }, timeout: 60_000 }),
    );
    return { status: run.status, stdout: run.stdout, elk: run.stderr.includes('ELK ') };
  }

  it('chartSvg() never loads elkjs while the shipped file is current; a layout does', async () => {
    const served = await loads("const s = await m.chartSvg(); console.log(s.length);");
    expect(served.status).toBe(0);
    expect(Number(served.stdout.trim())).toBe((await docs('statechart.svg')).length);
    expect(served.elk).toBe(false);
    const laidOut = await loads("await m.renderChart(); console.log('ok');");
    expect(laidOut.status).toBe(0);
    expect(laidOut.elk).toBe(true);
  });

  it('overviewSvg() serves the shipped overview without loading elkjs; renderOverview() lays it out', async () => {
    const served = await loads("const s = await m.overviewSvg(); console.log(s.length);");
    expect(served.status).toBe(0);
    expect(Number(served.stdout.trim())).toBe((await docs('statechart-overview.svg')).length);
    expect(served.elk).toBe(false);
    const laidOut = await loads("await m.renderOverview(); console.log('ok');");
    expect(laidOut.status).toBe(0);
    expect(laidOut.elk).toBe(true);
  });
});

describe('argus-supervisor chart', () => {
  it('prints mermaid and json on stdout, and writes svg to --out', async () => {
    const mermaid = cli('chart-mermaid', ['--format', 'mermaid']);
    expect(mermaid.status).toBe(0);
    expect(mermaid.stderr).toBe('');
    expect(mermaid.stdout).toBe(await docs('statechart.mmd'));

    const json = cli('chart-json', ['--format', 'json']);
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(JSON.stringify(chartModel())));

    const dir = await scratchDir('argus-chart-');
    scratch.push(dir);
    const out = path.join(dir, 'chart.svg');
    const svg = cli('chart-svg', ['--format', 'svg', '--out', out]);
    expect(svg.status).toBe(0);
    expect(svg.stdout).toBe('');
    expect(await readFile(out, 'utf8')).toBe(await docs('statechart.svg'));
  });

  it('refuses an unknown format and an unwritable --out with one line and exit 2', async () => {
    const bad = cli('chart-bad-format', ['--format', 'png']);
    expect(bad.status).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/^chart_format_invalid: --format must be one of svg, overview, mermaid, json \(got "png"\)\n$/);

    const dir = await scratchDir('argus-chart-');
    scratch.push(dir);
    const unwritable = cli('chart-bad-out', ['--format', 'json', '--out', path.join(dir, 'missing', 'chart.json')]);
    expect(unwritable.status).toBe(2);
    expect(unwritable.stdout).toBe('');
    expect(unwritable.stderr).toMatch(/^chart_write_failed: .*chart\.json could not be written \(ENOENT\)\n$/);
  });

  it('runChart answers the same in process', async () => {
    expect(await runChart({ format: 'mermaid' })).toEqual({ exitCode: 0, stdout: chartMermaid(chartModel()), stderr: '' });
    expect((await runChart({ format: '' })).exitCode).toBe(2);
  });
});
