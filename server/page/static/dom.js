// Small DOM helpers. Every string that came from the API is set with textContent or as an
// attribute value, never parsed as HTML.

export const $ = (id) => document.getElementById(id);

/** An element with attributes and children (strings become text nodes). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === 'text') node.textContent = String(value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  return node;
}

/** Sets textContent only when it changed (a row update then costs nothing for unchanged cells). */
export function setText(node, text) {
  const value = text === null || text === undefined ? '' : String(text);
  if (node.textContent !== value) node.textContent = value;
}

/** "14:03:12" for today, else the date too; the full ISO value goes in the title. */
export function when(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  const today = new Date().toDateString() === d.toDateString();
  return today ? d.toLocaleTimeString() : d.toLocaleString();
}

const announcer = () => $('announcer');
/** One sentence for screen readers (the announcer region is aria-live). */
export function announce(text) {
  const node = announcer();
  if (node) node.textContent = text;
}

export function leaseText(lease, holder) {
  if (!lease || lease.mode !== 'controller') return 'observer';
  return `${holder || 'this supervisor'} · epoch ${lease.epoch ?? '?'} · until ${when(lease.expires_at)}`;
}

/** "2 m ago", "3 h ago", "yesterday"-scale text for a time; '—' when there is none. */
export function ago(iso, now = Date.now()) {
  if (!iso) return '—';
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return '—';
  const s = Math.round((now - t) / 1000);
  if (s < 0) return 'in the future';
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} m ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

/** The absolute time with its date and zone, for a title: "2 Dec 2026, 01:02:03 UTC". */
export function absolute(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return d.toLocaleString(undefined, { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZoneName: 'short' });
}
