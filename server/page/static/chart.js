// The two statecharts of the selected campaign, both our server's SVG (rendered from the machine
// definition), parsed and inlined once, then only attributes change: `data-active="true"` on
// every `[data-state=<id>]` the API names active (and, in the overview, on a state whose
// `data-covers` names one). The <style> block is cut from the text BEFORE parsing: a parsed
// document inherits the page's CSP, and an inline style in it is a violation even if removed
// later. The same CSS is served as /ui/chart.css and /ui/overview.css.
import { fetchSvg } from './api.js';
import { setText } from './dom.js';

const cache = new Map();

function load(container, url, css, label) {
  if (!cache.has(url)) {
    const loading = fetchSvg(url).then((text) => {
      const doc = new DOMParser().parseFromString(text.replace(/<style[^>]*>[\s\S]*?<\/style>/g, ''), 'image/svg+xml');
      const svg = doc.documentElement;
      if (!svg || svg.nodeName.toLowerCase() !== 'svg') throw new Error('the statechart is not an SVG document');
      for (const bad of svg.querySelectorAll('script, foreignObject, style')) bad.remove();
      if (!document.querySelector(`link[href="${css}"]`)) document.head.append(Object.assign(document.createElement('link'), { rel: 'stylesheet', href: css }));
      const node = document.importNode(svg, true);
      node.setAttribute('role', 'img');
      node.setAttribute('aria-label', label);
      container.replaceChildren(node);
      return node;
    });
    loading.catch(() => cache.delete(url));
    cache.set(url, loading);
  }
  return cache.get(url);
}

export const loadChart = (container) => load(container, '/ui/chart.svg', '/ui/chart.css', 'The full statechart of the campaign machine; the active states are highlighted');
export const loadOverview = (container) => load(container, '/ui/overview.svg', '/ui/overview.css', 'Overview: the states an operator acts on and what moves a campaign between them; the current ones are highlighted');

/** Marks the active state nodes; returns how many of the ids were found in the chart. */
export function highlight(container, ids, caption) {
  for (const node of container.querySelectorAll('[data-active]')) node.removeAttribute('data-active');
  let found = 0;
  const active = new Set(ids);
  for (const node of container.querySelectorAll('[data-state]')) {
    const covers = (node.getAttribute('data-covers') || '').split(' ').filter(Boolean);
    if (active.has(node.getAttribute('data-state')) || covers.some((c) => active.has(c))) {
      node.setAttribute('data-active', 'true');
      found++;
    }
  }
  // The deepest ids say the most; the full list is in the chart itself.
  const leaves = ids.filter((id) => !ids.some((other) => other !== id && other.startsWith(`${id}.`)));
  if (caption) setText(caption, leaves.length ? `Active: ${leaves.map((id) => id.replace(/^campaign\.(active\.)?/, '')).join(', ')}` : 'No active state reported.');
  return found;
}

/**
 * Arrow labels of the full chart say only their events; each arrow's guards move to its
 * <title> (shown on hover), so the chart is not buried under guard lists.
 */
export function hideGuards(svg) {
  for (const edge of svg.querySelectorAll('g.edge')) {
    const text = edge.querySelector('text.edge-label');
    const bg = edge.querySelector('rect.edge-label-bg');
    if (!text || !bg) continue;
    const spans = [...text.querySelectorAll('tspan')];
    const full = spans.map((s) => s.textContent).join('\n');
    const title = document.createElementNS('http://www.w3.org/2000/svg', 'title');
    title.textContent = full;
    edge.prepend(title);
    const events = [];
    const firstX = spans[0]?.getAttribute('x');
    for (const span of spans) {
      // A continuation line (indented) holds only guard names.
      if (span.getAttribute('x') !== firstX) {
        span.remove();
        continue;
      }
      const event = span.textContent.replace(/ \[.*$/, '');
      if (events.includes(event)) span.remove();
      else {
        events.push(event);
        span.textContent = event;
      }
    }
    const kept = [...text.querySelectorAll('tspan')];
    const y0 = Number(bg.getAttribute('y'));
    kept.forEach((span, i) => span.setAttribute('y', String(y0 + 1 + 13 * i + 9.5)));
    bg.setAttribute('width', String(Math.ceil(Math.max(...events.map((e) => e.length)) * 6.02) + 4));
    bg.setAttribute('height', String(kept.length * 13 + 2));
    edge.classList.add('guards-on-hover');
  }
}
