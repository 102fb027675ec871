// The operator page: loads the campaign list, shows the selected campaign (statechart, NEEDS_YOU,
// actions, decisions, timeline), and stays live over server-sent events. Plain browser
// JavaScript with no dependency; the API key never reaches this script (the session cookie is
// HttpOnly), and every string from the API is shown with textContent.
import { api, onSessionEnded } from './api.js';
import { hideGuards, highlight, loadChart, loadOverview } from './chart.js';
import { createNavigator } from './chart-nav.js';
import { ACTIONS, prependEvent, renderActions, renderDecision, renderNeedsYou, renderSummary, renderTimeline } from './detail.js';
import { ask } from './dialog.js';
import { clearHistory, renderHistory, timeInState } from './history.js';
import { $, announce, setText } from './dom.js';
import { createList } from './list.js';

const state = { selected: null, active: new Map(), holder: null, busy: false };
const status = (text) => setText($('live-status'), text);

const list = createList({
  tbody: $('campaign-rows'),
  thead: document.querySelector('#campaign-table thead'),
  filter: $('state-filter'),
  attention: $('attention-filter'),
  health: $('health-filter'),
  search: $('campaign-search'),
  count: $('campaign-count'),
  onSelect: select,
});
let navigator = null;

function showError(answer, what) {
  const e = answer?.error ?? { code: 'unknown', message: 'Something went wrong.' };
  announce(`${what} refused: ${e.code}. ${e.message}`);
  status(`${what} refused: ${e.code} — ${e.message}`);
}

/** Renders the selected campaign from its latest view (and active state ids, when known). */
function renderSelected() {
  const c = state.selected && list.get(state.selected);
  if (!c) return;
  $('detail').hidden = false;
  renderSummary(c, state.holder);
  renderNeedsYou(c);
  renderActions(c, runAction);
  renderDecision(c);
  const ids = state.active.get(c.campaign_id);
  if (ids) void drawCharts().then(() => paint(ids), chartFailed);
}

/** Both charts, loaded once; the full one gets its navigator and guard-on-hover labels. */
async function drawCharts() {
  const [, svg] = await Promise.all([loadOverview($('overview')), loadChart($('chart'))]);
  if (!navigator) {
    hideGuards(svg);
    navigator = createNavigator($('chart'), svg);
  }
}

function paint(ids) {
  highlight($('overview'), ids, null);
  highlight($('chart'), ids, $('chart-active'));
  // The time in state comes from the campaign's history (history.js keeps it current).
  setText($('chart-time'), timeInState());
}

/** The selected campaign's history: fetched on selection and whenever its state or attention moves. */
async function loadHistory(id) {
  const answer = await api.history(id);
  if (state.selected !== id) return;
  if (!answer.ok) return setText($('history-now'), `The history could not be loaded: ${answer.error?.code ?? 'unknown'}.`);
  renderHistory(answer);
}

const chartFailed = (error) => setText($('chart-active'), String(error.message || error));

function showChart(which) {
  const full = which === 'full';
  $('overview').hidden = full;
  $('full-chart').hidden = !full;
  $('show-overview').setAttribute('aria-pressed', String(!full));
  $('show-full').setAttribute('aria-pressed', String(full));
}
$('show-overview').addEventListener('click', () => showChart('overview'));
$('show-full').addEventListener('click', () => showChart('full'));
$('chart-zoom-in').addEventListener('click', () => navigator?.zoom(1.25));
$('chart-zoom-out').addEventListener('click', () => navigator?.zoom(0.8));
$('chart-fit').addEventListener('click', () => navigator?.fit());
$('chart-focus').addEventListener('click', () => navigator?.focusActive());

async function select(id) {
  if (state.selected !== id) clearHistory();
  state.selected = id;
  list.select(id);
  void loadHistory(id);
  const answer = await api.campaigns({ action: 'get', campaign_id: id });
  if (state.selected !== id) return;
  if (!answer.ok) return showError(answer, 'Loading the campaign');
  list.upsert(answer.campaign);
  if (Array.isArray(answer.chart?.active)) state.active.set(id, answer.chart.active);
  renderTimeline(answer.events ?? []);
  renderSelected();
}

/** Applies a fresh view from an action's answer, and reloads the events and active states. */
async function refresh(id) {
  if (state.selected === id) await select(id);
}

async function runAction(action) {
  const c = list.get(state.selected);
  const spec = ACTIONS[action];
  if (!c || !spec || state.busy) return;
  let fields = {};
  if (spec.confirm || spec.fields) {
    const epochNote = spec.epoch && c.lease?.epoch != null ? ` It is sent under lease epoch ${c.lease.epoch}.` : '';
    const answer = await ask({ title: `${spec.label}: ${c.campaign_id}`, text: `${spec.confirm ?? spec.label + '.'}${epochNote}`, confirmLabel: spec.label, fields: spec.fields ?? [] });
    if (answer === null) return announce(`${spec.label} not sent.`);
    fields = answer;
  }
  const body = { campaign_id: c.campaign_id, action, ...fields };
  if (spec.epoch) body.epoch = c.lease?.epoch ?? -1;
  state.busy = true;
  status(`${spec.label}…`);
  const result = await api.action(body).finally(() => (state.busy = false));
  if (!result.ok) return showError(result, spec.label);
  status(`${spec.label}: done.`);
  announce(`${spec.label} done for ${c.campaign_id}.`);
  if (result.campaign) list.upsert(result.campaign);
  await refresh(c.campaign_id);
}

$('answer-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const c = list.get(state.selected);
  const card = $('needs-you');
  const text = $('answer-text').value.trim();
  if (!c || !text) return;
  const result = await api.action({ campaign_id: c.campaign_id, action: 'answer', text, question_key: card.dataset.questionKey });
  if (!result.ok) return showError(result, 'The answer');
  $('answer-text').value = '';
  status('Answer sent.');
  announce(`Answer sent for ${c.campaign_id}.`);
  if (result.campaign) list.upsert(result.campaign);
  await refresh(c.campaign_id);
});

$('attach-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  const data = new FormData(form);
  const body = { action: 'create', campaign_id: String(data.get('campaign_id')).trim(), objective: String(data.get('objective')).trim(), remote_task_id: String(data.get('remote_task_id')).trim() };
  const result = await api.campaigns(body);
  if (!result.ok) return showError(result, 'Attaching');
  form.reset();
  list.upsert(result.campaign);
  status(`Attached ${result.campaign.campaign_id}.`);
  await select(result.campaign.campaign_id);
});

$('logout').addEventListener('click', async () => {
  await api.logout();
  window.location.assign('/');
});

// A 401 anywhere (a restart of serve, an expiry, a logout elsewhere): back to the login form,
// which says why. Stale data and buttons never stay on screen.
let leaving = false;
onSessionEnded(() => {
  if (leaving) return;
  leaving = true;
  status('Your session has ended: going back to the login form…');
  window.location.assign('/?session=ended');
});

function connect() {
  const source = new EventSource(api.eventsUrl);
  source.addEventListener('hello', () => status('Live: updates appear as they happen.'));
  source.addEventListener('campaign', (event) => {
    const { campaign, active } = JSON.parse(event.data);
    const before = list.get(campaign.campaign_id);
    list.upsert(campaign);
    if (Array.isArray(active)) state.active.set(campaign.campaign_id, active);
    if (campaign.campaign_id === state.selected) {
      renderSelected();
      if (before && (before.state !== campaign.state || before.attention !== campaign.attention)) void loadHistory(campaign.campaign_id);
      if (before && before.state !== campaign.state) announce(`${campaign.campaign_id} is now ${campaign.state}.`);
    }
  });
  source.addEventListener('public', (event) => {
    const e = JSON.parse(event.data);
    if (e.campaign_id === state.selected && prependEvent(e) && e.kind === 'NEEDS_YOU') announce(`${e.campaign_id} needs you.`);
  });
  source.addEventListener('error', async () => {
    if (source.readyState !== EventSource.CLOSED) return status('Reconnecting…');
    // A refused stream is often an ended session: ask once; a 401 says so (onSessionEnded).
    const probe = await api.health();
    if (probe.error?.code === 'unauthorized') return;
    status('Live updates stopped; retrying in 5 s.');
    setTimeout(connect, 5000);
  });
}

async function start() {
  const [campaigns, health] = await Promise.all([api.campaigns({ action: 'list' }), api.health()]);
  if (health.ok) {
    state.holder = health.controller_id;
    list.setHolder(state.holder);
  }
  if (!campaigns.ok) return showError(campaigns, 'Loading the campaigns');
  list.replaceAll(campaigns.campaigns);
  connect();
}

void start();
