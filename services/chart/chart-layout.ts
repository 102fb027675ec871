/**
 * The server-side layout: elkjs `layered`, left to right, one graph with the whole hierarchy
 * (`INCLUDE_CHILDREN`) so arrows that cross state boundaries are routed with everything else,
 * and every coordinate absolute (`shapeCoords`/`edgeCoords` ROOT) so drawing needs no sums.
 * Model order is respected, so the same model gives the same picture (ELK's seed is fixed).
 * @module
 */
import elkBundled from 'elkjs/lib/elk.bundled.js';
import type { ELK as ElkApi, ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk.bundled.js';
import { chartArrows, FONT, lineHeight, nodeLines, PAD, textWidth, type Arrow } from './chart-arrows.js';
import type { ChartModel, ChartNode } from './chart-model.js';

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PlacedArrow {
  arrow: Arrow;
  /** The route, start to end (the arrowhead is drawn at the end). */
  points: { x: number; y: number }[];
  label: Box | null;
}

export interface ChartLayout {
  width: number;
  height: number;
  /** By state node id; plus `init:<parent id>` for each initial-state marker. */
  boxes: Map<string, Box>;
  /** Initial markers: parent id → the marker's route to the initial child. */
  initials: Map<string, { x: number; y: number }[]>;
  arrows: PlacedArrow[];
  /** Milliseconds spent in elk.layout (reported by the CLI and the docs). */
  layoutMs: number;
}

// The bundle is CommonJS whose types declare only a `default` export; at run time the module
// itself is the constructor (and also carries `default`).
const ElkConstructor = (elkBundled as unknown as { default: new () => ElkApi }).default;

const MARKER = 10;
/** `priority.direction` of the edges ELK should keep pointing left to right when it breaks cycles. */
const PRIORITY = { initial: 20, forward: 5 } as const;

const ROOT_OPTIONS: Record<string, string> = {
  'elk.algorithm': 'layered',
  'elk.direction': 'RIGHT',
  'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
  'elk.json.shapeCoords': 'ROOT',
  'elk.json.edgeCoords': 'ROOT',
  'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
  'elk.layered.spacing.nodeNodeBetweenLayers': '36',
  'elk.layered.spacing.edgeNodeBetweenLayers': '16',
  'elk.layered.spacing.edgeEdgeBetweenLayers': '8',
  'elk.spacing.nodeNode': '22',
  'elk.spacing.edgeNode': '14',
  'elk.spacing.edgeEdge': '8',
  'elk.spacing.edgeLabel': '3',
  'elk.edgeLabels.placement': 'CENTER',
  'elk.layered.edgeLabels.sideSelection': 'SMART_DOWN',
  'elk.layered.nodePlacement.strategy': 'NETWORK_SIMPLEX',
  'elk.randomSeed': '1',
};

/** The header (key + invokes) of a state: its size drives an atomic box and a compound's top padding. */
export function headerSize(node: ChartNode): { width: number; height: number } {
  const lines = nodeLines(node);
  const widest = Math.max(...lines.map((l) => l.length));
  return { width: textWidth(widest, FONT.stateSize) + 2 * PAD.x, height: lines.length * lineHeight(FONT.stateSize) + 2 * PAD.y };
}

function elkNode(node: ChartNode, children: Map<string, ChartNode[]>): ElkNode {
  const header = headerSize(node);
  const kids = children.get(node.id) ?? [];
  if (kids.length === 0) return { id: node.id, width: Math.max(header.width, 60), height: Math.max(header.height, 28) };
  const inner: ElkNode[] = [];
  // The initial marker is a real (tiny) node with a real edge, so ELK places it before its target.
  if (node.initial !== null) inner.push({ id: `init:${node.id}`, width: MARKER, height: MARKER });
  inner.push(...kids.map((k) => elkNode(k, children)));
  return {
    id: node.id,
    children: inner,
    layoutOptions: {
      'elk.padding': `[top=${header.height + 4},left=${PAD.compound},bottom=${PAD.compound},right=${PAD.compound}]`,
      'elk.nodeSize.constraints': 'MINIMUM_SIZE',
      'elk.nodeSize.minimum': `(${header.width + 2 * PAD.compound}, ${header.height + 20})`,
      // Regions of a parallel state are stacked, not chained: nothing orders them, and a
      // left-to-right row of three regions is twice as wide as a page.
      ...(node.type === 'parallel' ? { 'elk.direction': 'DOWN' } : {}),
    },
  };
}

function labelBox(arrow: Arrow): { width: number; height: number } {
  const widest = Math.max(...arrow.lines.map((l) => l.text.length));
  return { width: textWidth(widest, FONT.labelSize) + 4, height: arrow.lines.length * lineHeight(FONT.labelSize) + 2 };
}

export async function layoutChart(model: ChartModel): Promise<ChartLayout> {
  const children = new Map<string, ChartNode[]>();
  for (const node of model.nodes) if (node.parent !== null) children.set(node.parent, [...(children.get(node.parent) ?? []), node]);
  const root = model.nodes.find((n) => n.parent === null);
  if (!root) throw new Error('chart_model_invalid: the model has no root state');
  const arrows = chartArrows(model);
  // Which way an arrow points is ELK's choice when states form cycles (most do here). Reading
  // order is the machine's: initial marker first, then arrows to states declared later (the
  // happy path: observing → claiming → controlling, ready → verifying → journaling → relaying).
  const order = new Map(model.nodes.map((n, i) => [n.id, i]));
  const edges: ElkExtendedEdge[] = [];
  for (const node of model.nodes) {
    if (node.initial !== null) edges.push({ id: `init:${node.id}`, sources: [`init:${node.id}`], targets: [node.initial], layoutOptions: { 'elk.layered.priority.direction': String(PRIORITY.initial) } });
  }
  for (const arrow of arrows) {
    const forward = (order.get(arrow.target) ?? 0) > (order.get(arrow.source) ?? 0);
    edges.push({
      id: arrow.id,
      sources: [arrow.source],
      targets: [arrow.target],
      ...(forward ? { layoutOptions: { 'elk.layered.priority.direction': String(PRIORITY.forward) } } : {}),
      // ELK leaves a label with empty text unplaced (at its container's corner): give it the text.
      labels: [{ id: `${arrow.id}:label`, text: arrow.lines.map((l) => l.text).join('\n'), ...labelBox(arrow) }],
    });
  }
  const graph: ElkNode = { id: 'chart-root', layoutOptions: ROOT_OPTIONS, children: [elkNode(root, children)], edges };
  const started = performance.now();
  const laid = await new ElkConstructor().layout(graph);
  const layoutMs = performance.now() - started;

  const boxes = new Map<string, Box>();
  const collect = (n: ElkNode): void => {
    for (const c of n.children ?? []) {
      boxes.set(c.id, { x: c.x ?? 0, y: c.y ?? 0, width: c.width ?? 0, height: c.height ?? 0 });
      collect(c);
    }
  };
  collect(laid);
  const route = (e: ElkExtendedEdge): { x: number; y: number }[] =>
    (e.sections ?? []).flatMap((s) => [s.startPoint, ...(s.bendPoints ?? []), s.endPoint]);
  const byId = new Map(arrows.map((a) => [a.id, a]));
  const placed: PlacedArrow[] = [];
  const initials = new Map<string, { x: number; y: number }[]>();
  for (const e of laid.edges ?? []) {
    if (e.id.startsWith('init:')) {
      initials.set(e.id.slice('init:'.length), route(e));
      continue;
    }
    const arrow = byId.get(e.id);
    if (!arrow) continue;
    const l = e.labels?.[0];
    placed.push({ arrow, points: route(e), label: l ? { x: l.x ?? 0, y: l.y ?? 0, width: l.width ?? 0, height: l.height ?? 0 } : null });
  }
  return { width: laid.width ?? 0, height: laid.height ?? 0, boxes, initials, arrows: placed, layoutMs };
}
