/**
 * The overview's layout: elkjs `layered`, like the full chart, with the two lanes stacked
 * (authority above attention, each left to right) and paused and closed beside them. Text is
 * larger than the full chart's (OVERVIEW_FONT) and the picture is laid out to fit a ~700 px
 * panel at its natural size, so every label is drawn at least 11 px tall on a 1366×768 screen.
 * @module
 */
import elkBundled from 'elkjs/lib/elk.bundled.js';
import type { ELK as ElkApi, ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk.bundled.js';
import type { Box } from './chart-layout.js';
import type { Overview, OverviewArrow } from './chart-overview.js';
import { arrowLabelLines, lh, OVERVIEW_FONT, width } from './overview-text.js';

const ElkConstructor = (elkBundled as unknown as { default: new () => ElkApi }).default;

export interface OverviewLayout {
  width: number;
  height: number;
  boxes: Map<string, Box>;
  arrows: { arrow: OverviewArrow; points: { x: number; y: number }[]; label: Box | null }[];
}

const ROOT_OPTIONS = {
  'elk.algorithm': 'layered',
  'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
  'elk.json.shapeCoords': 'ROOT',
  'elk.json.edgeCoords': 'ROOT',
  'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
  'elk.layered.spacing.nodeNodeBetweenLayers': '56',
  'elk.spacing.nodeNode': '28',
  'elk.spacing.edgeNode': '10',
  'elk.spacing.edgeEdge': '6',
  'elk.spacing.edgeLabel': '2',
  'elk.edgeLabels.placement': 'CENTER',
  'elk.layered.nodePlacement.strategy': 'NETWORK_SIMPLEX',
  'elk.randomSeed': '1',
};

const GAP = 14;

/**
 * Two elk graphs, stacked: the authority lane with paused and closed (the arrows between them
 * belong together), then the attention lane, which no arrow joins to the rest. Laid out as one
 * graph, ELK sets the lanes side by side, twice as wide as the panel.
 */
export async function layoutOverview(overview: Overview, directions: { authority: string; attention: string } = { authority: 'RIGHT', attention: 'RIGHT' }): Promise<OverviewLayout> {
  const stateNode = (s: Overview['states'][number]): ElkNode => ({
    id: s.id,
    width: Math.max(width(s.label.length, OVERVIEW_FONT.state), width(s.hint.length, OVERVIEW_FONT.hint)) + 20,
    height: lh(OVERVIEW_FONT.state) + lh(OVERVIEW_FONT.hint) + 12,
  });
  const laneNode = (lane: Overview['lanes'][number]): ElkNode => ({
    id: lane.id,
    children: overview.states.filter((s) => s.lane !== null && s.id.startsWith(`${lane.id}.`)).map(stateNode),
    layoutOptions: { 'elk.padding': `[top=${lh(OVERVIEW_FONT.lane) + 10},left=10,bottom=10,right=10]`, 'elk.nodeSize.constraints': 'MINIMUM_SIZE', 'elk.nodeSize.minimum': `(${width(lane.label.length, OVERVIEW_FONT.lane) + 20}, 40)` },
  });
  // Labels are not given to ELK: as label nodes they widen every layer (the picture doubled in
  // width). They are placed after, on a free stretch of their route (placeLabels).
  const edgeOf = (arrow: OverviewArrow): ElkExtendedEdge => {
    return {
      id: arrow.id,
      sources: [arrow.source],
      targets: [arrow.target],

    };
  };
  const parts: { nodes: ElkNode[]; direction: string; lane: string | null }[] = overview.lanes.map((lane, i) => ({
    nodes: [laneNode(lane), ...(i === 0 ? overview.states.filter((s) => s.lane === null).map(stateNode) : [])],
    direction: i === 0 ? directions.authority : directions.attention,
    lane: lane.id,
  }));
  const ids = (nodes: ElkNode[]): Set<string> => new Set(nodes.flatMap((n) => [n.id, ...(n.children ?? []).map((c) => c.id)]));
  const boxes = new Map<string, Box>();
  const arrows: OverviewLayout['arrows'] = [];
  const byId = new Map(overview.arrows.map((a) => [a.id, a]));
  let top = 0;
  let widest = 0;
  for (const part of parts) {
    const members = ids(part.nodes);
    const edges = overview.arrows.filter((a) => members.has(a.source) && members.has(a.target)).map(edgeOf);
    // The attention lane has three states and six arrows, all labelled: it needs wide gaps.
    if (part.lane === overview.lanes[1]?.id) Object.assign(part.nodes[0]!.layoutOptions!, { 'elk.layered.spacing.nodeNodeBetweenLayers': '190', 'elk.spacing.nodeNode': '40', 'elk.spacing.edgeEdge': '34', 'elk.spacing.edgeNode': '24' });
    const laid: ElkNode = await new ElkConstructor().layout({ id: `overview-${part.lane}`, layoutOptions: { ...ROOT_OPTIONS, 'elk.direction': part.direction }, children: part.nodes, edges });
    const shift = (p: { x?: number; y?: number }) => ({ x: p.x ?? 0, y: (p.y ?? 0) + top });
    const collect = (n: ElkNode): void => {
      for (const c of n.children ?? []) {
        boxes.set(c.id, { ...shift(c), width: c.width ?? 0, height: c.height ?? 0 });
        collect(c);
      }
    };
    collect(laid);
    for (const e of laid.edges ?? []) {
      const arrow = byId.get(e.id);
      if (!arrow) continue;
      const points = (e.sections ?? []).flatMap((s) => [s.startPoint, ...(s.bendPoints ?? []), s.endPoint]).map(shift);
      arrows.push({ arrow, points, label: null });
    }
    top += (laid.height ?? 0) + GAP;
    widest = Math.max(widest, laid.width ?? 0);
  }
  const drawn = new Set(arrows.map((a) => a.arrow.id));
  const missing = overview.arrows.filter((a) => !drawn.has(a.id));
  if (missing.length) throw new Error(`chart_layout_incomplete: overview arrows across parts: ${missing.map((a) => a.id).join(', ')}`);
  placeLabels(arrows, [...boxes.entries()].filter(([id]) => !overview.lanes.some((l) => l.id === id)).map(([, b]) => b));
  return { width: widest, height: top - GAP, boxes, arrows };
}

const area = (a: Box, b: Box) => Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x)) * Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y));

/** Each label at the middle of the first stretch of its route where it covers no state and no earlier label. */
function placeLabels(arrows: OverviewLayout['arrows'], states: Box[]): void {
  const placed: Box[] = [];
  for (const a of arrows) {
    const lines = arrowLabelLines(a.arrow);
    const size = { width: width(Math.max(...lines.map((l) => l.length)), OVERVIEW_FONT.arrow) + 6, height: lines.length * lh(OVERVIEW_FONT.arrow) + 2 };
    const candidates: Box[] = [];
    const segments = a.points.slice(1).map((p, i) => [a.points[i]!, p] as const).sort(([a1, b1], [a2, b2]) => Math.hypot(b2.x - a2.x, b2.y - a2.y) - Math.hypot(b1.x - a1.x, b1.y - a1.y));
    for (const [p, q] of segments) {
      for (const t of [0.5, 0.35, 0.65, 0.2, 0.8]) {
        const cx = p.x + (q.x - p.x) * t;
        const cy = p.y + (q.y - p.y) * t;
        // Beside a vertical stretch, on a horizontal one: the line stays visible.
        const vertical = Math.abs(q.x - p.x) < Math.abs(q.y - p.y);
        candidates.push(vertical ? { x: cx + 4, y: cy - size.height / 2, ...size } : { x: cx - size.width / 2, y: cy - size.height - 2, ...size });
        candidates.push(vertical ? { x: cx - size.width - 4, y: cy - size.height / 2, ...size } : { x: cx - size.width / 2, y: cy + 2, ...size });
      }
    }
    // Crowded: straddle the line, then anywhere along it (still over its own route).
    for (const [p, q] of segments) {
      for (const t of [0.5, 0.35, 0.65, 0.2, 0.8]) {
        const cx = p.x + (q.x - p.x) * t;
        const cy = p.y + (q.y - p.y) * t;
        candidates.push({ x: cx - size.width / 2, y: cy - size.height / 2, ...size });
      }
    }
    // No free place: the one that covers least of the states and the labels already placed.
    const cost = (c: Box) => [...states, ...placed].reduce((sum, b) => sum + area(c, b), 0);
    const free = candidates.find((c) => cost(c) === 0) ?? [...candidates].sort((x, y) => cost(x) - cost(y))[0] ?? null;
    if (free) placed.push(free);
    a.label = free;
  }
}
