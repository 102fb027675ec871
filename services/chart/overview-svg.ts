/**
 * The overview as one self-contained SVG (no script, no external reference, a local font stack,
 * one `<style>` the page serves as /ui/overview.css). State groups carry `data-state` (the model
 * state id) and `data-covers` (the folded transient states), so the page lights the box of the
 * state a campaign is in; each arrow's `<title>` lists the model transitions it stands for with
 * their guards (shown on hover), so the drawing names no guard on the arrow itself.
 * @module
 */
import { transitionText } from './chart-arrows.js';
import type { ChartModel } from './chart-model.js';
import type { Cause, Overview } from './chart-overview.js';
import type { OverviewLayout } from './overview-layout.js';
import { arrowLabelLines, OVERVIEW_FONT } from './overview-text.js';
import { xml } from './chart-svg.js';

const num = (v: number): string => {
  const r = Math.round(v * 10) / 10;
  return Object.is(r, -0) ? '0' : String(r);
};
const lh = (size: number) => Math.ceil(size * OVERVIEW_FONT.lineHeight);

const MARKERS: Record<Cause, string> = { operator: '#1a5fb4', remote: '#c64600', lease: '#a51d2d', argus: '#613583', supervisor: '#5e5c64' };
export const CAUSE_WORDS: Record<Cause, string> = { operator: 'your action', remote: 'the remote', lease: 'the lease', argus: 'Argus', supervisor: 'the supervisor' };

const STYLE = `
.argus-overview{font-family:${OVERVIEW_FONT.family};background:#fff}
.argus-overview .ov-lane>rect{fill:#f6f7f9;stroke:#9a9996;stroke-dasharray:6 4}
.argus-overview .ov-lane>text{font-size:${OVERVIEW_FONT.lane}px;fill:#3d3846;font-weight:600}
.argus-overview .ov-state>rect{fill:#fff;stroke:#5e5c64;stroke-width:1.4}
.argus-overview .ov-state .ov-label{font-size:${OVERVIEW_FONT.state}px;font-weight:700;fill:#1d2430}
.argus-overview .ov-state .ov-hint{font-size:${OVERVIEW_FONT.hint}px;fill:#5a6473}
.argus-overview .ov-state[data-active="true"]>rect{fill:#fff1e3;stroke:#e66100;stroke-width:3.5}
.argus-overview .ov-state[data-active="true"] .ov-hint{fill:#1d2430}
.argus-overview .ov-arrow>path{fill:none;stroke-width:1.6}
.argus-overview .ov-arrow .ov-words{font-size:${OVERVIEW_FONT.arrow}px}
.argus-overview .ov-arrow .ov-words-bg{fill:#fff;fill-opacity:0.9}
.argus-overview .ov-legend{font-size:${OVERVIEW_FONT.arrow}px;fill:#3d3846}
${(Object.keys(MARKERS) as Cause[]).map((c) => `.argus-overview .cause-${c}>path{stroke:${MARKERS[c]};marker-end:url(#ov-head-${c})}\n.argus-overview .cause-${c} .ov-words{fill:${MARKERS[c]}}`).join('\n')}
.argus-overview .cause-lease>path{stroke-dasharray:6 3}
.argus-overview .ov-legend-row path{fill:none;stroke-width:1.6}
`.trim();

const LEGEND_HEIGHT = 22;

/** The drawing; `digest` names the model and overview it is of (`data-model`). */
export function renderOverviewSvg(model: ChartModel, overview: Overview, layout: OverviewLayout, digest: string): string {
  const edges = new Map(model.edges.map((e) => [e.id, e]));
  const all = [...layout.boxes.values(), ...layout.arrows.flatMap((a) => (a.label ? [a.label] : [])), ...layout.arrows.flatMap((a) => a.points.map((p) => ({ x: p.x, y: p.y, width: 0, height: 0 })))];
  const minX = Math.min(...all.map((b) => b.x)) - 6;
  const minY = Math.min(...all.map((b) => b.y)) - 6;
  const maxX = Math.max(...all.map((b) => b.x + b.width)) + 6;
  const maxY = Math.max(...all.map((b) => b.y + b.height)) + 6 + LEGEND_HEIGHT;
  const width = Math.ceil(maxX - minX);
  const height = Math.ceil(maxY - minY);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="argus-overview" viewBox="${num(minX)} ${num(minY)} ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="argus-overview-title" data-model="${xml(digest)}">`,
    `<title id="argus-overview-title">Overview of the ${xml(model.machineId)} machine: ${overview.states.length} states an operator acts on, ${overview.arrows.length} arrows in words</title>`,
    `<style>${STYLE}</style>`,
    `<defs>${(Object.keys(MARKERS) as Cause[]).map((c) => `<marker id="ov-head-${c}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="${MARKERS[c]}"/></marker>`).join('')}</defs>`,
    `<rect x="${num(minX)}" y="${num(minY)}" width="${width}" height="${height}" fill="#fff"/>`,
  ];
  for (const lane of overview.lanes) {
    const b = layout.boxes.get(lane.id)!;
    out.push(`<g class="ov-lane" data-lane="${xml(lane.id)}"><rect x="${num(b.x)}" y="${num(b.y)}" width="${num(b.width)}" height="${num(b.height)}" rx="8"/><text x="${num(b.x + 10)}" y="${num(b.y + OVERVIEW_FONT.lane + 4)}">${xml(lane.label)}</text></g>`);
  }
  for (const s of overview.states) {
    const b = layout.boxes.get(s.id)!;
    const first = b.y + 6 + OVERVIEW_FONT.state * 0.95;
    out.push(
      `<g class="ov-state" data-state="${xml(s.id)}" data-covers="${xml(s.covers.join(' '))}"><title>${xml(`${s.label}: ${s.hint}${s.covers.length ? ` (also while ${s.covers.map((c) => c.split('.').pop()).join(', ')})` : ''}`)}</title>` +
        `<rect x="${num(b.x)}" y="${num(b.y)}" width="${num(b.width)}" height="${num(b.height)}" rx="${s.id === 'campaign.closed' ? 3 : 10}"/>` +
        `<text class="ov-label" x="${num(b.x + b.width / 2)}" y="${num(first)}" text-anchor="middle">${xml(s.label)}</text>` +
        `<text class="ov-hint" x="${num(b.x + b.width / 2)}" y="${num(first + lh(OVERVIEW_FONT.hint) + 2)}" text-anchor="middle">${xml(s.hint)}</text></g>`,
    );
  }
  for (const a of layout.arrows) {
    const cause = a.arrow.causes[0] ?? 'supervisor';
    const title = a.arrow.edges.map((id) => { const e = edges.get(id); return e ? `${e.source.replace(/^campaign\./, '')}: ${transitionText(e)}` : id; }).join('\n');
    const d = a.points.map((p, i) => `${i === 0 ? 'M' : 'L'}${num(p.x)} ${num(p.y)}`).join(' ');
    const parts = [`<g class="ov-arrow cause-${cause}" data-arrow="${a.arrow.id}" data-source="${xml(a.arrow.source)}" data-target="${xml(a.arrow.target)}" data-causes="${a.arrow.causes.join(' ')}"><title>${xml(`${a.arrow.words.join(', ')} (caused by ${a.arrow.causes.map((c) => CAUSE_WORDS[c]).join(', ')})\n${title}`)}</title><path d="${d}"/>`];
    if (a.label) {
      const l = a.label;
      const spans = arrowLabelLines(a.arrow).map((line, i) => `<tspan x="${num(l.x + l.width / 2)}" y="${num(l.y + 1 + lh(OVERVIEW_FONT.arrow) * i + OVERVIEW_FONT.arrow * 0.95)}">${xml(line)}</tspan>`);
      parts.push(`<rect class="ov-words-bg" x="${num(l.x)}" y="${num(l.y)}" width="${num(l.width)}" height="${num(l.height)}" rx="3"/><text class="ov-words" text-anchor="middle">${spans.join('')}</text>`);
    }
    parts.push('</g>');
    out.push(parts.join(''));
  }
  // The legend: what each colour of arrow means (the words on the arrows say it too).
  let x = minX + 6;
  const y = maxY - 8;
  const legend = [`<g class="ov-legend-row"><text class="ov-legend" x="${num(x)}" y="${num(y)}">Arrows:</text>`];
  x += 56;
  for (const c of Object.keys(MARKERS) as Cause[]) {
    legend.push(`<g class="cause-${c}"><path d="M${num(x)} ${num(y - 4)} L${num(x + 22)} ${num(y - 4)}"/><text class="ov-legend" x="${num(x + 27)}" y="${num(y)}">${xml(CAUSE_WORDS[c])}</text></g>`);
    x += 34 + CAUSE_WORDS[c].length * OVERVIEW_FONT.arrow * 0.55;
  }
  legend.push('</g>');
  out.push(...legend, '</svg>', '');
  return out.join('\n');
}
