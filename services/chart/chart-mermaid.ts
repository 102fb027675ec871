/**
 * The model as Mermaid `stateDiagram-v2` text, for reviews and docs where a text diff reads
 * better than a picture. Parallel regions are separated by `--`, as Mermaid spells concurrency.
 * Mermaid ids cannot hold dots or dashes, so each state gets a safe alias and its key as label.
 * Every transition of the model is one line here (no grouping: a text diff should show each).
 * @module
 */
import { transitionText } from './chart-arrows.js';
import type { ChartModel, ChartNode } from './chart-model.js';

/** A Mermaid-safe id for a state node id: `campaign.active.control-lost` → `campaign_active_control_lost`. */
export function mermaidId(stateId: string): string {
  return stateId.replace(/[^A-Za-z0-9_]/g, '_');
}

/** Mermaid reads `;`, `#`, `:` and braces in labels as syntax: write them as entity codes. */
function mermaidText(text: string): string {
  return text.replace(/[;#:{}<>"]/g, (c) => `#${c.charCodeAt(0)};`);
}

export function chartMermaid(model: ChartModel): string {
  const kids = new Map<string | null, ChartNode[]>();
  for (const node of model.nodes) kids.set(node.parent, [...(kids.get(node.parent) ?? []), node]);
  const lines: string[] = ['stateDiagram-v2', `  %% generated from the ${model.machineId} machine definition: ${model.nodes.length} states, ${model.edges.length} transitions`];

  const declare = (node: ChartNode, indent: string): void => {
    const id = mermaidId(node.id);
    const children = kids.get(node.id) ?? [];
    const label = node.type === 'history' ? `H ${node.key}` : node.key;
    lines.push(`${indent}state "${mermaidText(label)}" as ${id}`);
    for (const invoke of node.invokes) lines.push(`${indent}${id} : invoke ${mermaidText(invoke.src === invoke.id ? invoke.id : `${invoke.id} (${invoke.src})`)}`);
    if (children.length === 0) return;
    lines.push(`${indent}state ${id} {`);
    if (node.initial !== null) lines.push(`${indent}  [*] --> ${mermaidId(node.initial)}`);
    children.forEach((child, i) => {
      if (node.type === 'parallel' && i > 0) lines.push(`${indent}  --`);
      declare(child, `${indent}  `);
    });
    lines.push(`${indent}}`);
  };
  const root = kids.get(null)?.[0];
  if (!root) throw new Error('chart_model_invalid: the model has no root state');
  // The root is the diagram itself: its children are drawn at the top level.
  if (root.initial !== null) lines.push(`  [*] --> ${mermaidId(root.initial)}`);
  for (const child of kids.get(root.id) ?? []) declare(child, '  ');

  for (const edge of model.edges) {
    const source = mermaidId(edge.source);
    const label = mermaidText(transitionText(edge));
    // A targetless transition stays in its state: drawn as a loop, labelled (internal).
    for (const target of edge.internal ? [edge.source] : edge.targets) lines.push(`  ${source} --> ${mermaidId(target)} : ${label}`);
  }
  for (const node of model.nodes) if (node.type === 'final') lines.push(`  ${mermaidId(node.id)} --> [*]`);
  return `${lines.join('\n')}\n`;
}
