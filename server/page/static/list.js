// The campaign list: one table row per campaign, kept in a Map so a live update touches only
// the row that changed (and only its cells whose text changed). Search and the two filters
// hide rows instead of rebuilding them; a sort reorders the existing row nodes. The whole row
// selects (click); its first cell is a button for the keyboard: Tab reaches the list, Enter
// selects, the arrow keys (and Home/End) move between rows. Times read "2 m ago", with the date,
// time and zone in the cell's title.
import { absolute, ago, el, setText } from './dom.js';

const KNOWN_STATES = ['observing', 'claiming', 'controlling', 'control-lost', 'ambiguous-intent', 'paused', 'closed', 'corrupt'];
const KNOWN_ATTENTION = ['idle', 'binding', 'assessing', 'awaiting-review', 'needs-you'];
// Worst first (services/api/campaign-health.ts): the default sort. A word and an icon, never colour alone.
const HEALTHS = ['failed', 'critical', 'degraded', 'ok', 'done'];
const HEALTH_ICON = { failed: '✖', critical: '‼', degraded: '⚠', ok: '✓', done: '●' };
const healthRank = (c) => (HEALTHS.includes(c.health) ? HEALTHS.indexOf(c.health) : HEALTHS.indexOf('ok'));
const CELLS = ['state', 'attention', 'health', 'stage', 'change'];

const KEYS = {
  id: (c) => c.campaign_id,
  state: (c) => c.state ?? '',
  attention: (c) => c.attention ?? '',
  health: healthRank,
  stage: (c) => c.remote?.stage ?? c.remote?.state ?? '',
  change: (c) => c.remote?.observed_at ?? '',
};

export function createList({ tbody, thead, filter, attention, health, search, count, onSelect }) {
  const rows = new Map();
  let selected = null;
  let sort = { key: 'health', dir: 1 };

  const options = (select, values) => {
    const have = new Set([...select.options].map((o) => o.value));
    for (const v of values) if (!have.has(v)) select.append(el('option', { value: v, text: v }));
  };
  options(filter, KNOWN_STATES);
  options(attention, KNOWN_ATTENTION);
  options(health, HEALTHS);

  function cellsOf(c) {
    return {
      state: c.paused && c.state !== 'paused' ? `${c.state} (paused)` : c.state,
      attention: c.attention,
      health: c.health ? `${HEALTH_ICON[c.health] ?? '?'} ${c.health}` : '—',
      stage: c.remote?.stage ?? c.remote?.state ?? '—',
      change: ago(c.remote?.observed_at),
    };
  }

  function build(c) {
    const button = el('button', { type: 'button', class: 'row-select', 'data-campaign': c.campaign_id, text: c.campaign_id });
    const tr = el('tr', { 'data-campaign': c.campaign_id });
    const cells = {};
    tr.append(el('th', { scope: 'row' }, button));
    for (const name of CELLS) tr.append((cells[name] = el('td', { class: `cell-${name}` })));
    // The whole row selects: a click anywhere on it (the button's own click bubbles here too).
    tr.addEventListener('click', () => onSelect(c.campaign_id));
    return { tr, button, cells, summary: c };
  }

  function fill(row) {
    const values = cellsOf(row.summary);
    for (const name of CELLS) setText(row.cells[name], values[name]);
    row.cells.change.title = absolute(row.summary.remote?.observed_at);
    row.button.title = row.summary.objective ?? '';
    row.tr.dataset.state = row.summary.state;
    row.tr.dataset.attention = row.summary.attention;
    row.tr.dataset.health = row.summary.health ?? '';
    row.cells.health.title = healthTitle(row.summary);
    applyFilterTo(row);
  }

  function applyFilterTo(row) {
    const c = row.summary;
    const q = search.value.trim().toLowerCase();
    const hit = !q || c.campaign_id.toLowerCase().includes(q) || String(c.objective ?? '').toLowerCase().includes(q);
    row.tr.hidden = !hit || (filter.value !== '' && c.state !== filter.value) || (attention.value !== '' && c.attention !== attention.value) || (health.value !== '' && c.health !== health.value);
  }

  const filtered = () => filter.value !== '' || attention.value !== '' || health.value !== '' || search.value.trim() !== '';
  function updateCount() {
    let shown = 0;
    for (const row of rows.values()) if (!row.tr.hidden) shown++;
    setText(count, filtered() ? `(${shown} of ${rows.size})` : `(${rows.size})`);
  }

  const compare = (a, b) => {
    const x = KEYS[sort.key](a.summary);
    const y = KEYS[sort.key](b.summary);
    if (x !== y) return (x < y ? -1 : 1) * sort.dir;
    return a.summary.campaign_id < b.summary.campaign_id ? -1 : 1;
  };

  /** Sorted insertion: a new or changed campaign lands where a full sort would put it. */
  function place(row) {
    for (const other of tbody.children) {
      const o = rows.get(other.dataset.campaign);
      if (o && o !== row && compare(row, o) < 0) {
        if (other !== row.tr.nextSibling) tbody.insertBefore(row.tr, other);
        return;
      }
    }
    if (tbody.lastElementChild !== row.tr) tbody.append(row.tr);
  }

  function resort() {
    const fragment = document.createDocumentFragment();
    for (const row of [...rows.values()].sort(compare)) fragment.append(row.tr);
    tbody.append(fragment);
    for (const th of thead.querySelectorAll('th[data-sort]')) {
      if (th.dataset.sort === sort.key) th.setAttribute('aria-sort', sort.dir === 1 ? 'ascending' : 'descending');
      else th.removeAttribute('aria-sort');
    }
  }

  function upsert(summary) {
    options(filter, [summary.state]);
    options(attention, [summary.attention]);
    let row = rows.get(summary.campaign_id);
    const before = row ? KEYS[sort.key](row.summary) : null;
    if (!row) {
      row = build(summary);
      rows.set(summary.campaign_id, row);
    }
    row.summary = summary;
    fill(row);
    if (before === null || before !== KEYS[sort.key](summary)) place(row);
    updateCount();
  }

  function replaceAll(summaries) {
    rows.clear();
    for (const s of summaries) {
      options(filter, [s.state]);
      options(attention, [s.attention]);
      const row = build(s);
      rows.set(s.campaign_id, row);
      fill(row);
    }
    tbody.replaceChildren();
    resort();
    markSelected();
    updateCount();
  }

  function markSelected() {
    for (const row of rows.values()) {
      const on = row.summary.campaign_id === selected;
      row.tr.classList.toggle('selected', on);
      if (on) row.button.setAttribute('aria-current', 'true');
      else row.button.removeAttribute('aria-current');
    }
  }

  const refilter = () => {
    for (const row of rows.values()) applyFilterTo(row);
    updateCount();
  };
  filter.addEventListener('change', refilter);
  attention.addEventListener('change', refilter);
  health.addEventListener('change', refilter);
  search.addEventListener('input', refilter);

  thead.addEventListener('click', (event) => {
    const th = event.target.closest('th[data-sort]');
    if (!th) return;
    sort = { key: th.dataset.sort, dir: sort.key === th.dataset.sort ? -sort.dir : 1 };
    resort();
  });

  // Relative times age: refresh the one column every 30 s (text only changes when it must).
  setInterval(() => {
    for (const row of rows.values()) setText(row.cells.change, ago(row.summary.remote?.observed_at));
  }, 30_000);

  tbody.addEventListener('keydown', (event) => {
    if (!['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(event.key)) return;
    const visible = [...tbody.querySelectorAll('tr:not([hidden]) .row-select')];
    if (visible.length === 0) return;
    const at = visible.indexOf(document.activeElement);
    let next = at;
    if (event.key === 'ArrowDown') next = Math.min(visible.length - 1, at + 1);
    else if (event.key === 'ArrowUp') next = Math.max(0, at - 1);
    else if (event.key === 'Home') next = 0;
    else next = visible.length - 1;
    event.preventDefault();
    visible[next].focus();
  });

  return {
    upsert,
    replaceAll,
    get: (id) => rows.get(id)?.summary ?? null,
    select(id) {
      selected = id;
      markSelected();
    },
    setHolder() {},
  };
}

/** The health cell's hover: read failures and the last error's code (the detail has the rest). */
function healthTitle(c) {
  const failures = c.consecutive_read_failures ? `${c.consecutive_read_failures} read failures in a row` : '';
  const error = c.last_error ? `last error ${c.last_error.code}` : '';
  return [failures, error].filter(Boolean).join(' · ');
}
