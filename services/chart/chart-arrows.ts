/**
 * From the model's transitions to the arrows a person reads. The campaign chart has ~100
 * transitions, many of them candidates of one trigger between the same two states (an
 * actor's done/error outcomes, guarded alternatives): drawn one by one they bury the chart.
 * So every transition with the same source and the same targets becomes one arrow whose
 * label lists them, one `EVENT [guard]` per line, in the machine's own order. Nothing is
 * dropped: each line names one transition of the model (`lines[].edge`).
 *
 * Text is measured in a monospace font of fixed advance (0.602 em, DejaVu Sans Mono and its
 * kin) so the server-side layout matches what a browser draws.
 * @module
 */
import type { ChartEdge, ChartModel, ChartNode } from './chart-model.js';

export const FONT = {
  family: "'DejaVu Sans Mono', 'Menlo', 'Consolas', 'Liberation Mono', monospace",
  stateSize: 12,
  labelSize: 10,
  advance: 0.602,
  lineHeight: 1.3,
} as const;

/** Space inside a state's box around its text: the layout reserves it and the drawing uses it. */
export const PAD = { x: 10, y: 6, compound: 12 } as const;
export const textWidth = (chars: number, size: number): number => Math.ceil(chars * size * FONT.advance);
export const lineHeight = (size: number): number => Math.ceil(size * FONT.lineHeight);

/** A label line wraps at this many characters, only between guard names (never inside one). */
const WRAP = 42;

export interface ArrowLine {
  text: string;
  /** The model edge this line names (continuation lines of a wrapped label repeat it). */
  edge: string;
  /** The first line of that transition (continuations are indented). */
  first: boolean;
}

export interface Arrow {
  id: string;
  source: string;
  /** The drawn target: the source itself for targetless transitions (a loop). */
  target: string;
  /** Targetless transitions: the state is not exited (drawn dashed). */
  internal: boolean;
  /** Every line is an `always` transition. */
  always: boolean;
  lines: ArrowLine[];
}

/**
 * `EVENT [guard]` for one transition; a guardless candidate after guarded ones reads `[else]`.
 * `short` (the drawn label) drops the `xstate.` prefix of XState's own events
 * (`done.actor.claimLease`): on every third arrow it is only noise.
 */
export function transitionText(edge: ChartEdge, short = false): string {
  const event = edge.event === null ? 'always' : short ? edge.event.replace(/^xstate\./, '') : edge.event;
  const guard = edge.guard ?? (edge.fallback ? 'else' : null);
  const loop = edge.internal ? ' (internal)' : '';
  return guard === null ? `${event}${loop}` : `${event} [${guard}]${loop}`;
}

/** The drawn label of one transition. */
export const arrowText = (edge: ChartEdge): string => transitionText(edge, true);

/** Splits one transition's text into lines of at most WRAP characters, at `, ` boundaries. */
export function wrapText(text: string, width = WRAP): string[] {
  const pieces = text.split(/(?<=, )|(?= \[)/);
  const lines: string[] = [];
  let current = '';
  for (const piece of pieces) {
    if (current.length > 0 && current.length + piece.length > width) {
      lines.push(current.trimEnd());
      current = `  ${piece.trimStart()}`;
    } else current += piece;
  }
  if (current.length > 0) lines.push(current.trimEnd());
  return lines;
}

function arrowLines(edges: readonly ChartEdge[]): ArrowLine[] {
  return edges.flatMap((edge) => wrapText(arrowText(edge)).map((text, i) => ({ text, edge: edge.id, first: i === 0 })));
}

/**
 * Groups the model's transitions into arrows, in the model's order. A transition with several
 * targets (entering two regions at once) gives one arrow per target, each with the full label.
 */
export function chartArrows(model: ChartModel): Arrow[] {
  const groups = new Map<string, { source: string; targets: string[]; edges: ChartEdge[] }>();
  for (const edge of model.edges) {
    const targets = edge.internal ? [] : edge.targets;
    // `always` arrows stay apart from event arrows: eventless is worth seeing at a glance.
    const key = `${edge.source}->${targets.join('+')}${edge.kind === 'always' ? ':always' : ''}`;
    const group = groups.get(key) ?? { source: edge.source, targets, edges: [] };
    group.edges.push(edge);
    groups.set(key, group);
  }
  const arrows: Arrow[] = [];
  let n = 0;
  for (const group of groups.values()) {
    const lines = arrowLines(group.edges);
    const always = group.edges.every((e) => e.kind === 'always');
    const drawn = group.targets.length === 0 ? [group.source] : group.targets;
    for (const target of drawn) {
      arrows.push({ id: `a${n++}`, source: group.source, target, internal: group.targets.length === 0, always, lines });
    }
  }
  return arrows;
}

/** The lines written inside a state's box: its key, then one line per invoked service. */
export function nodeLines(node: ChartNode): string[] {
  const title = node.type === 'history' ? `H${node.history === 'deep' ? '*' : ''} ${node.key}` : node.key;
  const tag = node.type === 'parallel' ? ' (parallel)' : node.type === 'final' ? ' (final)' : '';
  return [`${title}${tag}`, ...node.invokes.map((i) => (i.src === i.id ? `invoke ${i.id}` : `invoke ${i.id}: ${i.src}`))];
}
