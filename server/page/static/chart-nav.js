// Navigating the full chart: its viewBox is the camera. Wheel zooms around the pointer, a drag
// pans, the keyboard (+ − arrows 0 F) and the buttons do the same, "focus" frames the deepest
// active authority state at a readable scale. A compound state's name folds it: its inner
// states and the arrows inside hide, so the box reads as one state (the layout is not redone).

const MIN_WIDTH = 240;

export function createNavigator(container, svg) {
  const full = svg.viewBox.baseVal;
  const home = { x: full.x, y: full.y, width: full.width, height: full.height };
  let view = { ...home };
  // The SVG fills the panel; the viewBox decides what part of the chart it shows.
  svg.setAttribute('width', '100%');
  svg.setAttribute('height', '100%');
  svg.setAttribute('preserveAspectRatio', 'xMidYMid meet');

  const apply = () => svg.setAttribute('viewBox', `${view.x} ${view.y} ${view.width} ${view.height}`);
  const scale = () => view.width / Math.max(1, container.clientWidth);

  function zoom(factor, cx = view.x + view.width / 2, cy = view.y + view.height / 2) {
    const width = Math.min(home.width * 1.5, Math.max(MIN_WIDTH, view.width / factor));
    const k = width / view.width;
    view = { x: cx - (cx - view.x) * k, y: cy - (cy - view.y) * k, width, height: view.height * k };
    apply();
  }
  function pan(dx, dy) {
    view = { ...view, x: view.x + dx, y: view.y + dy };
    apply();
  }
  function fit() {
    view = { ...home };
    apply();
  }
  function focusActive() {
    const leaves = [...svg.querySelectorAll('[data-active="true"]')].filter((n) => !n.querySelector('[data-active="true"]'));
    const target = leaves.find((n) => (n.getAttribute('data-state') || '').includes('.authority.')) ?? leaves[0];
    const rect = target?.querySelector('rect');
    if (!rect) return false;
    const b = rect.getBBox();
    // About 700 chart units across: the 12 px labels stay near their natural size in the panel.
    const aspect = container.clientHeight / Math.max(1, container.clientWidth) || 0.6;
    const width = Math.max(b.width + 80, Math.min(700, home.width));
    view = { x: b.x + b.width / 2 - width / 2, y: b.y + b.height / 2 - (width * aspect) / 2, width, height: width * aspect };
    apply();
    return true;
  }

  container.addEventListener('wheel', (event) => {
    event.preventDefault();
    const p = toChart(event);
    zoom(Math.pow(1.2, -event.deltaY / 100), p.x, p.y);
  }, { passive: false });

  let drag = null;
  container.addEventListener('pointerdown', (event) => {
    if (event.button !== 0 || event.target.closest('.state-label')) return;
    drag = { x: event.clientX, y: event.clientY };
    container.setPointerCapture(event.pointerId);
    container.classList.add('dragging');
  });
  container.addEventListener('pointermove', (event) => {
    if (!drag) return;
    const k = scale();
    pan(-(event.clientX - drag.x) * k, -(event.clientY - drag.y) * k);
    drag = { x: event.clientX, y: event.clientY };
  });
  const stop = () => {
    drag = null;
    container.classList.remove('dragging');
  };
  container.addEventListener('pointerup', stop);
  container.addEventListener('pointercancel', stop);

  container.addEventListener('keydown', (event) => {
    const step = view.width / 8;
    const keys = { '+': () => zoom(1.25), '=': () => zoom(1.25), '-': () => zoom(0.8), '0': fit, f: focusActive, F: focusActive, ArrowLeft: () => pan(-step, 0), ArrowRight: () => pan(step, 0), ArrowUp: () => pan(0, -step), ArrowDown: () => pan(0, step) };
    const act = keys[event.key];
    if (!act) return;
    event.preventDefault();
    act();
  });

  // Folding: a click on a compound state's name.
  svg.addEventListener('click', (event) => {
    const label = event.target.closest('.state-label');
    const group = label?.parentElement;
    if (!group || !(group.classList.contains('compound') || group.classList.contains('parallel'))) return;
    const folded = group.getAttribute('data-folded') !== 'true';
    group.setAttribute('data-folded', String(folded));
    refold();
  });
  function refold() {
    const folded = [...svg.querySelectorAll('[data-folded="true"]')].map((g) => g.getAttribute('data-state'));
    const inside = (id) => folded.some((f) => id.startsWith(`${f}.`));
    for (const g of svg.querySelectorAll('g.state')) g.classList.toggle('folded-away', inside(g.getAttribute('data-state') || ''));
    for (const e of svg.querySelectorAll('g.edge, g.initial')) {
      const source = e.getAttribute('data-source') || e.getAttribute('data-initial-of') || '';
      const target = e.getAttribute('data-target') || '';
      e.classList.toggle('folded-away', inside(source) || inside(target) || folded.includes(e.getAttribute('data-initial-of') || ''));
    }
  }

  function toChart(event) {
    const r = container.getBoundingClientRect();
    const k = scale();
    // preserveAspectRatio meet: the view is centred when the panel's aspect differs.
    const shownH = view.height / k;
    return { x: view.x + (event.clientX - r.left) * k, y: view.y + (event.clientY - r.top - (r.height - shownH) / 2) * k };
  }

  apply();
  return { zoom, pan, fit, focusActive, view: () => ({ ...view }) };
}
