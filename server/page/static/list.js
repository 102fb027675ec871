// The campaign list: one table row per campaign, kept in a Map so a live update touches only
// the row that changed (and only its cells whose text changed). Filtering hides rows instead
// of rebuilding them, so hundreds of campaigns stay cheap. Each row's first cell is a button:
// Tab reaches the list, Enter selects, the arrow keys (and Home/End) move between rows.
import { el, leaseText, setText, when } from './dom.js';

const KNOWN_STATES = ['observing', 'controlling', 'control-lost', 'ambiguous-intent', 'paused', 'closed', 'corrupt'];
const CELLS = ['state', 'attention', 'stage', 'lease', 'intent', 'read', 'change'];

export function createList({ tbody, filter, count, onSelect }) {
  const rows = new Map();
  let selected = null;
  let holder = null;

  const states = new Set(KNOWN_STATES);
  for (const state of KNOWN_STATES) filter.append(el('option', { value: state, text: state }));

  function addStateOption(state) {
    if (states.has(state)) return;
    states.add(state);
    filter.append(el('option', { value: state, text: state }));
  }

  function cellsOf(c) {
    return {
      state: c.paused && c.state !== 'paused' ? `${c.state} (paused)` : c.state,
      attention: c.attention,
      stage: c.remote?.stage ?? c.remote?.state ?? '—',
      lease: leaseText(c.lease, holder),
      intent: c.open_intent ? `${c.open_intent.action} (in doubt)` : '—',
      read: when(c.remote?.last_read_at),
      change: when(c.remote?.observed_at),
    };
  }

  function build(c) {
    const button = el('button', { type: 'button', class: 'row-select', 'data-campaign': c.campaign_id, text: c.campaign_id });
    button.addEventListener('click', () => onSelect(c.campaign_id));
    const tr = el('tr', { 'data-campaign': c.campaign_id });
    const cells = {};
    tr.append(el('th', { scope: 'row' }, button));
    for (const name of CELLS) tr.append((cells[name] = el('td', { class: `cell-${name}` })));
    return { tr, button, cells, summary: c };
  }

  function fill(row) {
    const values = cellsOf(row.summary);
    for (const name of CELLS) setText(row.cells[name], values[name]);
    row.cells.read.title = row.summary.remote?.last_read_at ?? '';
    row.cells.change.title = row.summary.remote?.observed_at ?? '';
    row.button.title = row.summary.objective ?? '';
    row.tr.dataset.state = row.summary.state;
    row.tr.dataset.attention = row.summary.attention;
    applyFilterTo(row);
  }

  function applyFilterTo(row) {
    row.tr.hidden = filter.value !== '' && row.summary.state !== filter.value;
  }

  function updateCount() {
    let shown = 0;
    for (const row of rows.values()) if (!row.tr.hidden) shown++;
    setText(count, filter.value ? `(${shown} of ${rows.size})` : `(${rows.size})`);
  }

  /** Sorted insertion by id: a new campaign lands where a full render would put it. */
  function insert(row) {
    const id = row.summary.campaign_id;
    for (const other of tbody.children) {
      if (other.dataset.campaign > id) {
        tbody.insertBefore(row.tr, other);
        return;
      }
    }
    tbody.append(row.tr);
  }

  function upsert(summary) {
    addStateOption(summary.state);
    let row = rows.get(summary.campaign_id);
    if (!row) {
      row = build(summary);
      rows.set(summary.campaign_id, row);
      insert(row);
    }
    row.summary = summary;
    fill(row);
    updateCount();
  }

  function replaceAll(summaries) {
    rows.clear();
    const sorted = [...summaries].sort((a, b) => (a.campaign_id < b.campaign_id ? -1 : 1));
    const fragment = document.createDocumentFragment();
    for (const s of sorted) {
      addStateOption(s.state);
      const row = build(s);
      rows.set(s.campaign_id, row);
      fill(row);
      fragment.append(row.tr);
    }
    tbody.replaceChildren(fragment);
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

  filter.addEventListener('change', () => {
    for (const row of rows.values()) applyFilterTo(row);
    updateCount();
  });

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
    setHolder(id) {
      holder = id;
      for (const row of rows.values()) fill(row);
    },
  };
}
