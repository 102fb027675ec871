/**
 * A small reader of the chart's own SVG for the tests: state groups by `data-state` (with the
 * text written directly in each box) and edge groups with their label text. It reads only the
 * shape chart-svg.ts writes; anything else fails the tests that use it.
 */

export interface SvgState {
  id: string;
  classes: string[];
  /** Text lines drawn in this state's own box (not its children's). */
  lines: string[];
}

export interface SvgEdge {
  id: string;
  source: string;
  target: string;
  classes: string[];
  /** The label's lines, continuation lines as drawn (unindented). */
  lines: string[];
}

const unescape = (text: string): string =>
  text.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[name]!);

export function svgStates(svg: string): SvgState[] {
  const states: SvgState[] = [];
  const opening = /<g class="([^"]*)" data-state="([^"]*)">/g;
  for (const match of svg.matchAll(opening)) {
    const start = match.index! + match[0].length;
    // The box's own lines come before its first child group (or its closing tag).
    const rest = svg.slice(start);
    const end = rest.search(/<g |<\/g>/);
    const own = rest.slice(0, end);
    const lines = [...own.matchAll(/<text class="state-(?:label|invoke)"[^>]*>([^<]*)<\/text>/g)].map((m) => unescape(m[1]!));
    states.push({ id: unescape(match[2]!), classes: match[1]!.split(' '), lines });
  }
  return states;
}

export function svgEdges(svg: string): SvgEdge[] {
  const edges: SvgEdge[] = [];
  const group = /<g class="([^"]*)" data-edge="([^"]*)" data-source="([^"]*)" data-target="([^"]*)">([\s\S]*?)<\/g>/g;
  for (const m of svg.matchAll(group)) {
    const lines = [...m[5]!.matchAll(/<tspan[^>]*>([^<]*)<\/tspan>/g)].map((t) => unescape(t[1]!));
    edges.push({ id: m[2]!, source: unescape(m[3]!), target: unescape(m[4]!), classes: m[1]!.split(' '), lines });
  }
  return edges;
}

/** Whitespace-free, so a wrapped label compares with the text it was wrapped from. */
export const squash = (text: string): string => text.replace(/\s+/g, '');
