/**
 * The laid-out chart as one self-contained SVG string: no script, no external reference, no
 * font download (a local monospace stack), only a `<style>` block. Every state node is a
 * `<g class="state …" data-state="<state node id>">` wrapping its box and label, nested as the
 * states are, so a page marks where a campaign is by setting `data-active="true"` on groups and
 * the style here does the rest. Output bytes depend only on the model (numbers are rounded).
 * @module
 */
import { FONT, lineHeight, nodeLines, PAD, textWidth } from './chart-arrows.js';
import type { ChartLayout, PlacedArrow } from './chart-layout.js';
import type { ChartModel, ChartNode } from './chart-model.js';

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Escapes text for XML content and attribute values alike. */
export function xml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!);
}

/** One decimal place, no `-0`: the same layout always prints the same bytes. */
const num = (v: number): string => {
  const r = Math.round(v * 10) / 10;
  return Object.is(r, -0) ? '0' : String(r);
};

const MARKER_ID = 'argus-chart-arrow';

// Every rule is scoped to `.argus-chart`: the page inlines the SVG, and its own `.state` or
// `.edge` must neither restyle the chart nor be restyled by it.
const STYLE = `
.argus-chart{font-family:${FONT.family};background:#fff}
.argus-chart .state>rect{fill:#fff;stroke:#4a5568;stroke-width:1.2}
.argus-chart .state.compound>rect{fill:#f5f7fb}
.argus-chart .state.parallel>rect{fill:#e9eef7;stroke-width:1.6}
.argus-chart .state.region>rect{fill:#fafbfd;stroke:#5a6b8c;stroke-dasharray:7 4}
.argus-chart .state.final>rect.final-inner{fill:none}
.argus-chart .state.history>rect{fill:#f3f0ff;stroke:#6b46c1}
.argus-chart .state-label{font-size:${FONT.stateSize}px;fill:#1a202c;font-weight:bold}
.argus-chart .state.atomic>.state-label,.argus-chart .state.final>.state-label,.argus-chart .state.history>.state-label{font-weight:normal}
.argus-chart .state-invoke{font-size:${FONT.stateSize}px;fill:#2b6cb0}
.argus-chart .state[data-active="true"]>rect{stroke:#c05621;stroke-width:2.6}
.argus-chart .state.atomic[data-active="true"]>rect,.argus-chart .state.final[data-active="true"]>rect.final-outer{fill:#feebc8}
.argus-chart .initial-marker{fill:#1a202c}
.argus-chart .initial-edge{fill:none;stroke:#1a202c;stroke-width:1.2;marker-end:url(#${MARKER_ID})}
.argus-chart .edge>path{fill:none;stroke:#718096;stroke-width:1.1;marker-end:url(#${MARKER_ID})}
.argus-chart .edge.internal>path{stroke-dasharray:3 3}
.argus-chart .edge.always>path{stroke:#6b46c1}
.argus-chart .edge-label{font-size:${FONT.labelSize}px;fill:#2d3748}
.argus-chart .edge-label-bg{fill:#fff;fill-opacity:0.88}
`.trim();

function children(model: ChartModel): Map<string | null, ChartNode[]> {
  const map = new Map<string | null, ChartNode[]>();
  for (const node of model.nodes) map.set(node.parent, [...(map.get(node.parent) ?? []), node]);
  return map;
}

function stateGroup(node: ChartNode, layout: ChartLayout, kids: Map<string | null, ChartNode[]>, indent: string): string {
  const box = layout.boxes.get(node.id);
  if (!box) throw new Error(`chart_layout_incomplete: no box for state ${node.id}`);
  const classes = ['state', node.type, ...(node.region ? ['region'] : [])].join(' ');
  const out: string[] = [];
  out.push(`${indent}<g class="${classes}" data-state="${xml(node.id)}">`);
  out.push(`${indent}  <title>${xml(node.description ? `${node.id}: ${node.description}` : node.id)}</title>`);
  const rx = node.type === 'history' ? box.height / 2 : 6;
  const rect = (cls: string, inset: number): string =>
    `${indent}  <rect${cls ? ` class="${cls}"` : ''} x="${num(box.x + inset)}" y="${num(box.y + inset)}" width="${num(box.width - 2 * inset)}" height="${num(box.height - 2 * inset)}" rx="${num(Math.max(rx - inset, 0))}"/>`;
  if (node.type === 'final') out.push(rect('final-outer', 0), rect('final-inner', 3));
  else out.push(rect('', 0));
  const step = lineHeight(FONT.stateSize);
  const hasKids = (kids.get(node.id) ?? []).length > 0;
  nodeLines(node).forEach((line, i) => {
    const x = box.x + PAD.x;
    // Atomic boxes centre their lines vertically; compound boxes keep them in the header.
    const top = hasKids ? box.y + PAD.y : box.y + (box.height - nodeLines(node).length * step) / 2;
    const y = top + step * i + FONT.stateSize * 0.95;
    out.push(`${indent}  <text class="${i === 0 ? 'state-label' : 'state-invoke'}" x="${num(x)}" y="${num(y)}">${xml(line)}</text>`);
  });
  for (const kid of kids.get(node.id) ?? []) out.push(stateGroup(kid, layout, kids, `${indent}  `));
  out.push(`${indent}</g>`);
  return out.join('\n');
}

const path = (points: readonly { x: number; y: number }[]): string =>
  points.map((p, i) => `${i === 0 ? 'M' : 'L'}${num(p.x)} ${num(p.y)}`).join(' ');

function edgeGroup(placed: PlacedArrow): string {
  const { arrow, points, label } = placed;
  const classes = ['edge', ...(arrow.internal ? ['internal'] : []), ...(arrow.always ? ['always'] : [])].join(' ');
  const out = [`  <g class="${classes}" data-edge="${arrow.id}" data-source="${xml(arrow.source)}" data-target="${xml(arrow.target)}">`];
  out.push(`    <path d="${path(points)}"/>`);
  if (label) {
    out.push(`    <rect class="edge-label-bg" x="${num(label.x)}" y="${num(label.y)}" width="${num(label.width)}" height="${num(label.height)}"/>`);
    const step = lineHeight(FONT.labelSize);
    const spans = arrow.lines.map((line, i) => {
      // Continuation lines are indented by position (leading spaces would collapse in SVG).
      const indent = line.first ? 0 : textWidth(2, FONT.labelSize);
      const y = label.y + 1 + step * i + FONT.labelSize * 0.95;
      return `<tspan x="${num(label.x + 2 + indent)}" y="${num(y)}">${xml(line.text.trimStart())}</tspan>`;
    });
    out.push(`    <text class="edge-label">${spans.join('')}</text>`);
  }
  out.push('  </g>');
  return out.join('\n');
}

function initialMarkers(layout: ChartLayout): string[] {
  const out: string[] = [];
  for (const [parent, route] of [...layout.initials].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const dot = layout.boxes.get(`init:${parent}`);
    if (!dot) continue;
    out.push(`  <g class="initial" data-initial-of="${xml(parent)}">`);
    out.push(`    <circle class="initial-marker" cx="${num(dot.x + dot.width / 2)}" cy="${num(dot.y + dot.height / 2)}" r="${num(dot.width / 2)}"/>`);
    out.push(`    <path class="initial-edge" d="${path(route)}"/>`);
    out.push('  </g>');
  }
  return out;
}

/** `digest`: of the model the drawing is of (`data-model`), so a stored copy can be checked against the code. */
export function renderSvg(model: ChartModel, layout: ChartLayout, digest: string): string {
  const kids = children(model);
  const root = kids.get(null)?.[0];
  if (!root) throw new Error('chart_model_invalid: the model has no root state');
  const margin = 8;
  const width = Math.ceil(layout.width + 2 * margin);
  const height = Math.ceil(layout.height + 2 * margin);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="argus-chart" viewBox="${-margin} ${-margin} ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="argus-chart-title" data-model="${xml(digest)}">`,
    `<title id="argus-chart-title">Statechart of the ${xml(model.machineId)} machine: ${model.nodes.length} states, ${model.edges.length} transitions</title>`,
    `<style>${STYLE}</style>`,
    `<defs><marker id="${MARKER_ID}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="#4a5568"/></marker></defs>`,
    `<rect x="${-margin}" y="${-margin}" width="${width}" height="${height}" fill="#fff"/>`,
    '<g class="states">',
    stateGroup(root, layout, kids, '  '),
    '</g>',
    '<g class="initials">',
    ...initialMarkers(layout),
    '</g>',
    '<g class="edges">',
    ...layout.arrows.map(edgeGroup),
    '</g>',
    '</svg>',
    '',
  ].join('\n');
}
