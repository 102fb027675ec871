// The selected campaign's state history (GET …/history): each change of its state or attention,
// newest first, with its time, cause and detail, beside the public events; and how long it has
// been in its current state, kept current while the page is open.
import { $, absolute, ago, el, setText, when } from './dom.js';

let current = null;

/** "4 m", "2 h 5 m", "3 d 4 h": how long, without "ago". */
export function duration(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${m % 60} m`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

/** What moved: the state, the attention, or both. */
export function changeText(e) {
  if (!e.from) return `created: ${e.to.state} · ${e.to.attention}`;
  const parts = [];
  if (e.from.state !== e.to.state) parts.push(`${e.from.state} → ${e.to.state}`);
  if (e.from.attention !== e.to.attention) parts.push(`attention ${e.from.attention} → ${e.to.attention}`);
  return parts.join('; ');
}

function item(e, index, entries) {
  // How long the campaign stayed in the state this entry entered: until the next entry (or now).
  const next = entries[index + 1];
  const stayed = next ? duration(Date.parse(next.at) - Date.parse(e.at)) : null;
  return el(
    'li',
    { 'data-cause': e.cause },
    el('time', { datetime: e.at, title: absolute(e.at), text: when(e.at) }),
    ' ',
    el('span', { class: `cause cause-${e.cause}`, text: e.cause }),
    ' ',
    el('span', { class: 'change', text: changeText(e) }),
    ' ',
    el('span', { class: 'history-detail', text: `(${e.detail}${stayed ? `; stayed ${stayed}` : ''})` }),
  );
}

/** The time in the current state, as a sentence (also the statechart card's line). */
export function timeInState(now = Date.now()) {
  if (!current) return '';
  const c = current.current;
  if (!c.since) return `In ${c.state} · ${c.attention}; since when is not recorded (the history began after this state was entered).`;
  return `In ${c.state} · ${c.attention} for ${duration(now - Date.parse(c.since))} (since ${when(c.since)}, ${ago(c.since, now)}).`;
}

function tick() {
  const text = timeInState();
  setText($('history-now'), text);
  setText($('chart-time'), text);
}

export function renderHistory(answer) {
  current = answer;
  const entries = answer.history ?? [];
  const items = entries.map(item).reverse();
  const list = $('history');
  list.replaceChildren(...items);
  if (items.length === 0) list.append(el('li', { class: 'empty', text: 'No state change recorded yet.' }));
  tick();
}

/** Nothing selected (or another campaign selected): no stale history is shown meanwhile. */
export function clearHistory() {
  current = null;
  $('history').replaceChildren();
  setText($('history-now'), 'Loading…');
}

// A bounded cost: one text update a quarter-minute, only while a history is shown.
setInterval(() => current && tick(), 15_000);
