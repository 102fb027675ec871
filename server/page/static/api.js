// Calls to the supervisor's API from the page. The session cookie rides along by itself
// (HttpOnly: this script never sees it); every POST carries the CSRF token from the page's
// meta tag. The API key is never known to the page.

const API = '/api/plugins/argus_supervisor';
const meta = document.querySelector('meta[name="csrf-token"]');
const csrfToken = meta ? meta.getAttribute('content') || '' : '';

const listeners = new Set();
/** Called when an answer says the session is gone (401): the page offers to log in again. */
export function onSessionEnded(fn) {
  listeners.add(fn);
}

/** One request: its JSON answer, or a network or unreadable-body failure as an answer too. */
async function call(url, init) {
  let res;
  try {
    res = await fetch(url, { credentials: 'same-origin', ...init });
  } catch {
    return { ok: false, error: { code: 'network_error', message: 'The supervisor could not be reached.' } };
  }
  if (res.status === 401) for (const fn of listeners) fn();
  try {
    return await res.json();
  } catch {
    return { ok: false, error: { code: 'invalid_response', message: `The supervisor answered ${res.status} without a readable body.` } };
  }
}

const post = (url, body) =>
  call(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken }, body: JSON.stringify(body) });

/** A read by GET: the session cookie is enough (no CSRF token for a GET). */
const get = (url) => call(url, {});

export const api = {
  history: (id) => get(`${API}/history?campaign_id=${encodeURIComponent(id)}`),
  campaigns: (body) => post(`${API}/campaigns`, body),
  action: (body) => post(`${API}/campaign_action`, body),
  health: () => post(`${API}/health`, {}),
  logout: () => post('/ui/logout', {}),
  eventsUrl: `${API}/events`,
};

/** A rendered chart (`/ui/chart.svg` or `/ui/overview.svg`): our own server's SVG text (chart.js parses it). */
export async function fetchSvg(url) {
  const res = await fetch(url, { credentials: 'same-origin' });
  if (res.status === 401) for (const fn of listeners) fn();
  if (!res.ok) throw new Error(`the statechart could not be loaded (${res.status})`);
  return res.text();
}
