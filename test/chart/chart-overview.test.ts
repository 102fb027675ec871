/**
 * The operator overview (services/chart/chart-overview.ts) is a projection of the campaign
 * model: its nine states, every crossing transition named in words (a new event without words
 * fails here), the arrows an operator needs to read ("claim", "lease lost", "answer"), PAUSE
 * drawn once from the authority lane, no guard name on an arrow (guards are in the tooltips),
 * and docs/statechart-overview.svg current with its digest.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { chartModel, chartOverview, overviewDigest, projectEdges, renderOverview } from '../../services/chart/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const A = 'campaign.active.authority';
const T = 'campaign.active.attention';

describe('the overview projection', () => {
  const model = chartModel();
  const overview = chartOverview(model);
  const arrow = (source: string, target: string) => overview.arrows.find((a) => a.source === source && a.target === target);

  it('has the spec\'s states, plus idle, paused and closed', () => {
    expect(overview.states.map((s) => s.label)).toEqual(['observing', 'controlling', 'control-lost', 'ambiguous-intent', 'idle', 'awaiting-review', 'needs-you', 'paused', 'closed']);
  });

  it('names every transition that crosses between two overview states', () => {
    const crossing = projectEdges(model);
    expect(crossing.length).toBeGreaterThan(40);
    const unnamed = crossing.filter((p) => p.words === null).map((p) => `${p.edge.id} -> ${p.target.label}`);
    expect(unnamed).toEqual([]);
    // Every one of them is on an arrow.
    const drawn = new Set(overview.arrows.flatMap((a) => a.edges));
    for (const p of crossing) expect(drawn.has(p.edge.id), p.edge.id).toBe(true);
  });

  it('draws the operator\'s arrows in words, by cause', () => {
    expect(arrow(`${A}.observing`, `${A}.controlling`)).toMatchObject({ words: ['claim'], causes: ['operator'] });
    expect(arrow(`${A}.controlling`, `${A}.control-lost`)).toMatchObject({ words: ['lease lost'], causes: ['lease'] });
    expect(arrow(`${A}.controlling`, `${A}.ambiguous-intent`)?.words).toEqual(['send in doubt']);
    expect(arrow(`${T}.needs-you`, `${T}.awaiting-review`)?.words).toContain('answer');
    expect(arrow(`${T}.idle`, `${T}.needs-you`)?.words).toContain('remote asks');
    // PAUSE leaves every authority state: one arrow from the lane.
    expect(arrow(A, 'campaign.paused')).toMatchObject({ words: ['pause'] });
    expect(overview.arrows.filter((a) => a.target === 'campaign.paused')).toHaveLength(1);
    for (const a of overview.arrows) for (const w of a.words) expect(w).not.toMatch(/[[\]()]|^[A-Z_]+$|xstate/);
  });
});

describe('docs/statechart-overview.svg', () => {
  it('is the current overview, with the digest serve checks', async () => {
    const stored = await readFile(path.join(ROOT, 'docs', 'statechart-overview.svg'), 'utf8');
    const fresh = await renderOverview();
    expect(stored === fresh.svg, 'stale: npm run build && node dist/bin/argus-supervisor.js chart --format overview --out docs/statechart-overview.svg').toBe(true);
    expect(stored).toContain(` data-model="${overviewDigest(chartModel())}"`);
    // Drawn for the page's panel (~750 px at 1366×768): 12 px text stays at 11 px or more.
    expect(fresh.width).toBeLessThanOrEqual(800);
    expect(fresh.height).toBeLessThanOrEqual(460);
    // No guard on the drawing's arrows: they are in the <title> only.
    const labels = [...stored.matchAll(/<text class="ov-words"[^>]*>([\s\S]*?)<\/text>/g)].map((m) => m[1]);
    expect(labels.length).toBe(chartOverview(chartModel()).arrows.length);
    for (const l of labels) expect(l).not.toMatch(/\[|and\(/);
  });
});
