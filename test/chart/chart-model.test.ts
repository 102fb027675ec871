/**
 * The model reader on a small machine that has what the campaign chart may grow into: guard
 * compositions, an inline guard, a delayed transition, a history state, a targetless
 * transition, a final state, and names that need escaping. The SVG and Mermaid of it escape
 * every name.
 */
import { and, createMachine, fromPromise, not, or, setup, stateIn } from 'xstate';
import { describe, expect, it } from 'vitest';
import { chartMermaid, chartModel, renderChart } from '../../services/chart/index.js';
import { svgEdges, svgStates } from './svg-parse.js';

const machine = setup({
  guards: { ready: () => true, fresh: () => true, 'a<b': () => true },
  actors: { load: fromPromise(async () => 1) },
  delays: { soon: 10 },
}).createMachine({
  id: 'toy',
  initial: 'one',
  states: {
    one: {
      on: {
        GO: { guard: and(['ready', not('fresh'), or([stateIn('#toy.one'), 'a<b'])]), target: 'two' },
        POKE: { actions: () => undefined },
        'E&"<x>': { guard: ({ event }) => event.type.length > 0, target: 'done' },
      },
      after: { soon: 'two' },
    },
    two: {
      initial: 'loading',
      states: {
        loading: { invoke: { id: 'loader', src: 'load', onDone: { guard: 'ready', target: 'shown' }, onError: 'shown' } },
        shown: { always: [{ guard: 'fresh', target: '#toy.done' }, { target: 'remember' }] },
        remember: { type: 'history', history: 'deep' },
      },
    },
    done: { type: 'final' },
  },
});

describe('chartModel on any machine', () => {
  const model = chartModel(machine);
  const edge = (source: string, event: string | null) => model.edges.filter((e) => e.source === `toy.${source}` && e.event === event);

  it('names guard compositions by the names inside them, and inline guards as inline', () => {
    expect(edge('one', 'GO')[0]!.guard).toBe('and(ready, not(fresh), or(stateIn(#toy.one), a<b))');
    expect(edge('one', 'E&"<x>')[0]!.guard).toBe('inline');
  });

  it('keeps targetless, delayed, done/error and always transitions, with else for a fallback', () => {
    expect(edge('one', 'POKE')[0]).toMatchObject({ targets: [], internal: true, kind: 'event' });
    const after = model.edges.find((e) => e.kind === 'after')!;
    expect(after).toMatchObject({ source: 'toy.one', targets: ['toy.two'] });
    expect(after.event).toMatch(/^xstate\.after\.soon\./);
    expect(edge('two.loading', 'xstate.done.actor.loader')[0]).toMatchObject({ kind: 'done', guard: 'ready', targets: ['toy.two.shown'] });
    expect(edge('two.loading', 'xstate.error.actor.loader')[0]).toMatchObject({ kind: 'error', guard: null, fallback: false });
    expect(edge('two.shown', null).map((e) => [e.guard, e.fallback, e.targets[0]])).toEqual([
      ['fresh', false, 'toy.done'],
      [null, true, 'toy.two.remember'],
    ]);
  });

  it('describes nodes: types, initial, invokes, history kind', () => {
    const node = (id: string) => model.nodes.find((n) => n.id === id)!;
    expect(node('toy')).toMatchObject({ type: 'compound', initial: 'toy.one', parent: null });
    expect(node('toy.two.loading').invokes).toEqual([{ id: 'loader', src: 'load' }]);
    expect(node('toy.two.remember')).toMatchObject({ type: 'history', history: 'deep' });
    expect(node('toy.done').type).toBe('final');
  });

  it('escapes every name in the SVG and the Mermaid text', async () => {
    const { svg } = await renderChart(model);
    expect(svg).not.toContain('E&"<x>');
    expect(svg).not.toContain('a<b');
    expect(svg).toContain('E&amp;&quot;&lt;x&gt;');
    expect(svgEdges(svg).some((e) => e.lines.join(' ').includes('a<b'))).toBe(true);
    expect(svgStates(svg).map((s) => s.id).sort()).toEqual(model.nodes.map((n) => n.id).sort());
    // Outside tags, entities and the style block (whose `>` are CSS), no markup character is left.
    expect(svg.replace(/<style>[\s\S]*?<\/style>/, '').replace(/<[^>]*>/g, '').replace(/&(amp|lt|gt|quot|apos);/g, '')).not.toMatch(/[<>&]/);
    const mermaid = chartMermaid(model);
    expect(mermaid).not.toMatch(/E&"<x>|a<b/);
    expect(mermaid).toContain('toy_one --> toy_done');
  });

  it('a plain machine without setup reads the same way', () => {
    const plain = createMachine({ id: 'p', initial: 'a', states: { a: { on: { X: 'b' } }, b: {} } });
    expect(chartModel(plain).edges).toEqual([
      { id: 'p.a:X:0', source: 'p.a', targets: ['p.b'], event: 'X', guard: null, kind: 'event', internal: false, reenter: false, fallback: false },
    ]);
  });
});
