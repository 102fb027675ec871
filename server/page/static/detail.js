// The selected campaign: its summary, the NEEDS_YOU card, the actions its actor allows now
// (only those in `allowed_actions`, with the lease epoch shown), the last Argus decision and
// Reviewer verdict, and the public event timeline (the five kinds only).
import { $, absolute, ago, el, leaseText, setText, when } from './dom.js';

const PUBLIC_KINDS = new Set(['NEEDS_YOU', 'ATTEMPT_COMPLETED', 'STAGE_TRANSITION', 'MISSION_COMPLETE', 'CRITICAL']);
const TIMELINE_LIMIT = 200;

/**
 * How each action is asked for. `epoch`: sent with the lease epoch; `confirm`: asks first;
 * `fields`: text the operator types. `answer` is the NEEDS_YOU card's own form.
 */
export const ACTIONS = {
  observe: { label: 'Observe now' },
  claim: { label: 'Claim control', confirm: 'Take the remote lease for this campaign? It then relays mutations for it.' },
  release: { label: 'Release control', epoch: true },
  submit: { label: 'Submit an attempt', epoch: true, fields: [{ name: 'text', label: 'What the attempt should do', max: 8000 }] },
  intervene: { label: 'Intervene', epoch: true, fields: [{ name: 'instruction', label: 'Instruction for the running task', max: 8000 }] },
  cancel: { label: 'Cancel the task', epoch: true, confirm: 'Cancel the remote task? It stops the running attempt.', fields: [{ name: 'reason', label: 'Reason', max: 2000 }] },
  pause: { label: 'Pause' },
  resume: { label: 'Resume' },
  resolve_intent: { label: 'Resolve the intent in doubt' },
  mission: { label: 'Bind the Argus mission' },
  close: { label: 'Close', confirm: 'Close this campaign? Closing is final.' },
};

export function renderSummary(c, holder) {
  setText($('detail-title'), `Campaign ${c.campaign_id}`);
  const remote = c.remote ?? {};
  const parts = [
    `State ${c.state}${c.paused ? ' (paused)' : ''}`,
    `attention ${c.attention}`,
    `remote task ${remote.task_id ?? '—'} ${remote.state ?? ''}${remote.stage ? ` / ${remote.stage}` : ''}`,
    `lease ${leaseText(c.lease, holder)}`,
    `attempts ${c.attempts_submitted ?? 0} of ${c.max_attempts ?? '?'}`,
  ];
  setText($('detail-summary'), `${c.objective ?? ''} — ${parts.join(' · ')}`);
  // The list's secondary columns, folded here: lease, intent in doubt, reads.
  const time = (iso) => el('time', { datetime: iso ?? '', title: absolute(iso), text: iso ? `${ago(iso)} (${when(iso)})` : '—' });
  const facts = [
    ['Lease', leaseText(c.lease, holder)],
    ['Intent in doubt', c.open_intent ? `${c.open_intent.action} (resolve it before anything else is sent)` : 'none'],
    ['Health', `${c.health ?? '—'} (${c.consecutive_read_failures ?? 0} read failures in a row)`],
    ['Last error', c.last_error ? `${c.last_error.code}: ${c.last_error.sentence}${c.last_error.at ? ` (${when(c.last_error.at)})` : ''}` : 'none'],
    ['Remote state', remote.state ?? '—'],
    ['Last read', time(remote.last_read_at)],
    ['Last change', time(remote.observed_at)],
  ];
  // The remote's own words: untrusted text, set as text (never markup) and marked as such.
  if (remote.status_message) facts.push(['Remote says (untrusted)', el('q', { class: 'remote-text', text: remote.status_message })]);
  $('detail-facts').replaceChildren(...facts.flatMap(([k, v]) => [el('dt', { text: k }), el('dd', {}, v)]));
}

export function renderNeedsYou(c) {
  const card = $('needs-you');
  const q = c.pending_question;
  card.hidden = !q;
  if (!q) return;
  setText($('question-source'), q.source === 'remote' ? 'the remote task (answered with a fenced mutation)' : 'Argus');
  setText($('question-text'), q.text);
  card.dataset.questionKey = q.key;
  card.dataset.source = q.source;
  const epoch = $('answer-epoch');
  if (q.source === 'remote') {
    setText(epoch, c.lease?.mode === 'controller' ? `Sent under lease epoch ${c.lease.epoch}.` : 'The remote’s question needs the lease: claim control first.');
  } else setText(epoch, 'Sent to Argus as the operator’s words (one turn).');
}

/** One button per allowed action; `run(action)` is called on click. */
export function renderActions(c, run) {
  const holder = $('actions');
  const allowed = (c.allowed_actions ?? []).filter((a) => a !== 'answer' && ACTIONS[a]);
  const lease = c.lease?.mode === 'controller' ? `Lease epoch ${c.lease.epoch}, expires ${when(c.lease.expires_at)}.` : 'No lease held (observer).';
  setText($('actions-epoch'), lease);
  const key = allowed.join(',');
  if (holder.dataset.actions === key && holder.dataset.campaign === c.campaign_id) return;
  holder.dataset.actions = key;
  holder.dataset.campaign = c.campaign_id;
  const buttons = allowed.map((action) => {
    const spec = ACTIONS[action];
    const label = spec.epoch && c.lease?.epoch != null ? `${spec.label} (epoch ${c.lease.epoch})` : spec.label;
    const button = el('button', { type: 'button', 'data-action': action, text: label });
    button.addEventListener('click', () => run(action));
    return button;
  });
  holder.replaceChildren(...buttons);
  if (buttons.length === 0) holder.append(el('p', { text: 'No action is possible in this state.' }));
}

export function renderDecision(c) {
  const d = c.decisions ?? {};
  const last = d.last;
  const rows = [
    ['Argus mission', d.mission ? `${d.mission.binding}${d.mission.project_id ? ` (${d.mission.project_id})` : ''}` : '—'],
    ['Being decided', d.in_flight ?? 'nothing'],
    ['Last decision', last ? `${last.outcome}${last.kind ? ` · ${last.kind}` : ''}${last.code ? ` · ${last.code}` : ''} at ${when(last.at)}` : 'none yet'],
    ['Reviewer verdict', d.reviewer_verdict ?? 'none'],
  ];
  if (last?.foreman_directive) rows.push(['Foreman directive', last.foreman_directive]);
  $('decision').replaceChildren(...rows.flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: v })]));
}

function eventItem(e) {
  return el(
    'li',
    { 'data-kind': e.kind, 'data-event': e.id },
    el('time', { datetime: e.at, text: when(e.at) }),
    ' ',
    el('span', { class: `kind kind-${e.kind}`, text: e.kind }),
    ' ',
    el('span', { class: 'event-summary', text: e.summary }),
  );
}

export function renderTimeline(events) {
  const items = events
    .filter((e) => PUBLIC_KINDS.has(e.kind))
    .slice(-TIMELINE_LIMIT)
    .reverse()
    .map(eventItem);
  const list = $('timeline');
  list.replaceChildren(...items);
  if (items.length === 0) list.append(el('li', { class: 'empty', text: 'No public event yet.' }));
}

/** A live event: newest first, duplicates (by id) ignored, the list kept bounded. */
export function prependEvent(e) {
  if (!PUBLIC_KINDS.has(e.kind)) return false;
  const list = $('timeline');
  if (list.querySelector(`[data-event="${CSS.escape(e.id)}"]`)) return false;
  list.querySelector('.empty')?.remove();
  list.prepend(eventItem(e));
  while (list.children.length > TIMELINE_LIMIT) list.lastElementChild.remove();
  return true;
}
