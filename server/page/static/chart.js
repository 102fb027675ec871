// The selected campaign's statechart: the server's SVG (rendered from the machine definition),
// parsed as SVG and inlined once, then only attributes change: `data-active="true"` on every
// `[data-state=<id>]` whose id the API names as active, removed from the rest.
import { fetchChart } from './api.js';
import { setText } from './dom.js';

let loaded = null;

/** Parses and inlines the chart (once); anything scriptable is dropped, though our SVG has none. */
export function loadChart(container) {
  if (!loaded) {
    loaded = fetchChart().then((text) => {
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      const svg = doc.documentElement;
      if (!svg || svg.nodeName.toLowerCase() !== 'svg') throw new Error('the statechart is not an SVG document');
      // Its <style> is served as /ui/chart.css (the page's CSP allows no inline style).
      for (const bad of svg.querySelectorAll('script, foreignObject, style')) bad.remove();
      if (!document.querySelector('link[href="/ui/chart.css"]')) document.head.append(Object.assign(document.createElement('link'), { rel: 'stylesheet', href: '/ui/chart.css' }));
      const node = document.importNode(svg, true);
      node.setAttribute('role', 'img');
      node.setAttribute('aria-label', 'Statechart of the campaign machine; the active states are highlighted');
      container.replaceChildren(node);
      return node;
    });
    loaded.catch(() => {
      loaded = null;
    });
  }
  return loaded;
}

/** Marks the active state nodes; returns how many of the ids were found in the chart. */
export function highlight(container, ids, caption) {
  for (const node of container.querySelectorAll('[data-active]')) node.removeAttribute('data-active');
  let found = 0;
  for (const id of ids) {
    const nodes = container.querySelectorAll(`[data-state="${CSS.escape(id)}"]`);
    for (const node of nodes) node.setAttribute('data-active', 'true');
    if (nodes.length) found++;
  }
  // The deepest ids say the most; the full list is in the chart itself.
  const leaves = ids.filter((id) => !ids.some((other) => other !== id && other.startsWith(`${id}.`)));
  if (caption) setText(caption, leaves.length ? `Active: ${leaves.join(', ')}` : 'No active state reported.');
  return found;
}

/** Scrolls the chart panel (only it, never the page) so the deepest active authority state is centred. */
export function revealActive(container) {
  const nodes = [...container.querySelectorAll('[data-active="true"]')].filter((n) => !n.querySelector('[data-active="true"]'));
  const target = nodes.find((n) => (n.getAttribute('data-state') || '').includes('.authority.')) ?? nodes[0];
  const box = target?.querySelector('rect');
  if (!box) return;
  const c = container.getBoundingClientRect();
  const r = box.getBoundingClientRect();
  container.scrollLeft += r.left - c.left - (c.width - r.width) / 2;
  container.scrollTop += r.top - c.top - (c.height - r.height) / 2;
}

/** The "fit" switch: the whole chart scaled into the panel, or its real size (scrolled to what is active). */
export function bindFit(container, checkbox) {
  checkbox.addEventListener('change', () => {
    container.classList.toggle('fit', checkbox.checked);
    if (!checkbox.checked) revealActive(container);
  });
}
