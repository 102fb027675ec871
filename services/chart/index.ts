/**
 * The campaign statechart, rendered from the machine definition: the model (`chartModel`), its
 * JSON and Mermaid texts, and the laid-out SVG the page and `argus-supervisor chart` serve.
 * The SVG is laid out once per process (`chartSvg` is memoized): the chart only changes with
 * the code, and a layout costs a few hundred milliseconds of CPU.
 * @module
 */
import type { AnyStateMachine } from 'xstate';
import { chartArrows } from './chart-arrows.js';
import { layoutChart } from './chart-layout.js';
import { chartModel, type ChartModel } from './chart-model.js';
import { renderSvg } from './chart-svg.js';

export { activeStateIds } from './active-states.js';
export { chartMermaid } from './chart-mermaid.js';
export { chartJson, chartModel, guardName } from './chart-model.js';
export type { ChartEdge, ChartEdgeKind, ChartInvoke, ChartModel, ChartNode, ChartNodeType } from './chart-model.js';
export { chartArrows, type Arrow, type ArrowLine } from './chart-arrows.js';
export { xml } from './chart-svg.js';

export interface RenderedChart {
  svg: string;
  /** Time spent in the elkjs layout. */
  layoutMs: number;
  states: number;
  transitions: number;
  /** Drawn arrows after grouping (initial markers not counted). */
  arrows: number;
}

/** Lays out and draws one model (not memoized: tests and the CLI use it with any machine). */
export async function renderChart(model: ChartModel = chartModel()): Promise<RenderedChart> {
  const layout = await layoutChart(model);
  return { svg: renderSvg(model, layout), layoutMs: layout.layoutMs, states: model.nodes.length, transitions: model.edges.length, arrows: chartArrows(model).length };
}

const memo = new WeakMap<AnyStateMachine, Promise<string>>();
let campaign: Promise<string> | undefined;

/** The campaign chart's SVG (or another machine's), laid out once and then served from memory. */
export function chartSvg(machine?: AnyStateMachine): Promise<string> {
  if (machine === undefined) {
    campaign ??= forget(renderChart(chartModel()).then((r) => r.svg), () => (campaign = undefined));
    return campaign;
  }
  let promise = memo.get(machine);
  if (!promise) {
    promise = forget(renderChart(chartModel(machine)).then((r) => r.svg), () => memo.delete(machine));
    memo.set(machine, promise);
  }
  return promise;
}

/** A failed layout is not remembered: the next call tries again. */
function forget<T>(promise: Promise<T>, drop: () => void): Promise<T> {
  promise.catch(drop);
  return promise;
}
