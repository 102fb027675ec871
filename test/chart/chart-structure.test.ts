/**
 * The rendered chart is the machine, all of it: every state node once (by id), every region
 * dashed, every invoke named in its state, every transition of the machine in the model (counted
 * here by walking the machine, not through the model) and drawn on an arrow between the right
 * states, every named guard on an edge label, the `always` arrows too. The same model gives the
 * same bytes, and the states a campaign is in are all tagged in the picture.
 */
import { createActor, type AnyStateMachine, type AnyStateNode } from 'xstate';
import { beforeAll, describe, expect, it } from 'vitest';
import { campaignMachine } from '../../machines/campaign.machine.js';
import { arrowText } from '../../services/chart/chart-arrows.js';
import { activeStateIds, chartModel, chartSvg, renderChart, type ChartModel } from '../../services/chart/index.js';
import { squash, svgEdges, svgStates } from './svg-parse.js';

/** Every state node of the machine, walked here (not by the code under test). */
function allNodes(machine: AnyStateMachine): AnyStateNode[] {
  const out: AnyStateNode[] = [];
  const visit = (n: AnyStateNode): void => {
    out.push(n);
    Object.values(n.states).forEach(visit);
  };
  visit(machine.root);
  return out;
}

/** Each transition of the machine as `source|event|targets`, `always` ones with event `always`. */
function machineTransitions(machine: AnyStateMachine): string[] {
  return allNodes(machine).flatMap((n) => [
    ...[...n.transitions.entries()].flatMap(([event, ts]) => ts.map((t) => `${n.id}|${event}|${(t.target ?? []).map((x) => x.id).join(',')}`)),
    ...(n.always ?? []).map((t) => `${n.id}|always|${(t.target ?? []).map((x) => x.id).join(',')}`),
  ]);
}

/** The names of the guards the machine uses, inside and(...)/or(...)/not(...) too. */
function namedGuards(machine: AnyStateMachine): Set<string> {
  const names = new Set<string>();
  const visit = (g: unknown): void => {
    if (typeof g === 'string') names.add(g);
    else if (typeof g === 'function') ((g as { guards?: unknown[] }).guards ?? []).forEach(visit);
    else if (g && typeof (g as { type?: unknown }).type === 'string') names.add((g as { type: string }).type);
  };
  for (const n of allNodes(machine)) {
    for (const ts of n.transitions.values()) ts.forEach((t) => visit(t.guard));
    (n.always ?? []).forEach((t) => visit(t.guard));
  }
  return names;
}

let model: ChartModel;
let svg: string;
beforeAll(async () => {
  model = chartModel();
  svg = await chartSvg();
});

describe('the chart model', () => {
  it('has every state node of the machine, with its type, parent and invokes', () => {
    const nodes = allNodes(campaignMachine);
    expect(model.nodes.map((n) => n.id)).toEqual(nodes.map((n) => n.id));
    for (const n of nodes) {
      const m = model.nodes.find((x) => x.id === n.id)!;
      expect(m).toMatchObject({ key: n.key, type: n.type, parent: n.parent?.id ?? null });
      expect(m.invokes).toEqual(n.invoke.map((i) => ({ id: i.id, src: i.src })));
    }
    // The campaign chart as it stands: guards against a walk that silently stops early.
    expect(model.nodes.length).toBeGreaterThanOrEqual(35);
    expect(model.nodes.filter((n) => n.region).map((n) => n.key)).toEqual(['authority', 'attention', 'heartbeat']);
  });

  it('covers every transition of the machine, always and internal events included', () => {
    const expected = machineTransitions(campaignMachine).sort();
    const got = model.edges.map((e) => `${e.source}|${e.event ?? 'always'}|${e.targets.join(',')}`).sort();
    expect(got).toEqual(expected);
    expect(expected.length).toBeGreaterThanOrEqual(100);
    const kinds = new Set(model.edges.map((e) => e.kind));
    for (const kind of ['event', 'done', 'error', 'always'] as const) expect(kinds).toContain(kind);
    expect(model.edges.filter((e) => e.internal).length).toBeGreaterThan(0);
    expect(new Set(model.edges.map((e) => e.id)).size).toBe(model.edges.length);
  });
});

describe('the SVG', () => {
  it('tags every state node exactly once, and nothing as active', () => {
    const ids = svgStates(svg).map((s) => s.id);
    expect(ids.sort()).toEqual(allNodes(campaignMachine).map((n) => n.id).sort());
    expect(svg).not.toMatch(/\sdata-active=/);
    expect(svg).toContain('[data-active="true"]');
  });

  it('draws parallel regions dashed, and names every invoke inside its state', () => {
    const states = svgStates(svg);
    const regions = allNodes(campaignMachine).filter((n) => n.parent?.type === 'parallel');
    expect(regions.length).toBeGreaterThanOrEqual(3);
    for (const r of regions) expect(states.find((s) => s.id === r.id)!.classes).toContain('region');
    expect(svg).toMatch(/\.state\.region>rect\{[^}]*stroke-dasharray/);
    for (const n of allNodes(campaignMachine)) {
      const drawn = states.find((s) => s.id === n.id)!;
      expect(drawn.lines[0]).toContain(n.key);
      for (const i of n.invoke) expect(drawn.lines.some((l) => l.startsWith(`invoke ${i.id}`))).toBe(true);
    }
  });

  it('draws every transition on an arrow from its source to its target, with its EVENT [guard] label', () => {
    const edges = svgEdges(svg);
    for (const e of model.edges) {
      const to = e.internal ? [e.source] : e.targets;
      for (const target of to) {
        const arrow = edges.filter((a) => a.source === e.source && a.target === target && squash(a.lines.join('')).includes(squash(arrowText(e))));
        expect(arrow.length, `${e.id} → ${target}`).toBeGreaterThan(0);
      }
    }
  });

  it('shows every named guard and the always arrows', () => {
    const labels = svgEdges(svg).flatMap((e) => e.lines).join('\n');
    const guards = namedGuards(campaignMachine);
    expect(guards.size).toBeGreaterThan(40);
    for (const g of guards) expect(labels, g).toContain(g);
    const always = svgEdges(svg).filter((e) => e.classes.includes('always'));
    const alwaysSources = new Set(allNodes(campaignMachine).filter((n) => (n.always ?? []).length > 0).map((n) => n.id));
    expect(new Set(always.map((e) => e.source))).toEqual(alwaysSources);
    for (const e of always) expect(e.lines[0]).toMatch(/^always/);
  });

  it('is self-contained: no script, no external reference, no font download', () => {
    expect(svg).not.toMatch(/<script|<foreignObject|@import|@font-face|xlink:href|\shref=/i);
    expect(svg.match(/https?:\/\/[^"\s]*/g)).toEqual(['http://www.w3.org/2000/svg']);
    for (const url of svg.match(/url\([^)]*\)/g) ?? []) expect(url).toMatch(/^url\(#[\w-]+\)$/);
  });

  it('stays small enough to serve inline: grouped arrows, rounded numbers', () => {
    // ~50 KB today for 35 states and 107 transitions; one arrow per transition would be far more.
    expect(svg.length).toBeLessThan(120_000);
    expect(svgEdges(svg).length).toBeLessThan(model.edges.length);
    // Coordinates carry one decimal at most (attribute values, path data).
    expect(svg.match(/="[^"]*\d\.\d{2,}[^"]*"/g)).toBeNull();
  });

  it('is the same bytes on every render, and chartSvg() lays out once', async () => {
    const again = await renderChart(chartModel());
    expect(again.svg).toBe(svg);
    expect(chartSvg()).toBe(chartSvg());
  });
});

describe('active states', () => {
  it('are all state groups of the SVG, for an initial campaign and for other configurations', () => {
    const tagged = new Set(svgStates(svg).map((s) => s.id));
    const initial = createActor(campaignMachine, { input: { campaignId: 'c-chart' } }).getSnapshot();
    const ids = activeStateIds(initial.value);
    expect(ids).toContain('campaign.active.authority.observing');
    for (const id of ids) expect(tagged.has(id), id).toBe(true);
    const context = initial.context;
    for (const value of [
      'paused',
      { active: { authority: { controlling: 'relaying' }, attention: { 'awaiting-review': 'checking' }, heartbeat: 'reading' } },
      { active: { authority: { 'ambiguous-intent': 'resolving' }, attention: 'needs-you', heartbeat: 'idle' } },
    ]) {
      const resolved = campaignMachine.resolveState({ value, context });
      const active = activeStateIds(resolved.value);
      expect(active.length).toBeGreaterThan(1);
      for (const id of active) expect(tagged.has(id), id).toBe(true);
    }
  });
});
