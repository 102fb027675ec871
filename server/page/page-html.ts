/**
 * The page's two HTML documents: the login form, and the application shell the page script
 * fills. No inline script and no inline style (the CSP forbids both); the CSRF token reaches
 * the script in a meta tag. Nothing from a request is echoed except our own fixed sentences.
 * @module
 */

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const head = (title: string, extra = '') => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="/ui/static/app.css">
<link rel="icon" href="/ui/static/favicon.svg" type="image/svg+xml">
${extra}</head>`;

/** The login form; `error` is one of our own sentences, shown once. */
export function loginPage(error: string | null): string {
  return `${head('Log in · Argus supervisor')}
<body class="login">
<main id="main">
<h1>Argus supervisor</h1>
<form method="post" action="/ui/login" class="login-form">
<p>Log in with the supervisor's API key. It opens a session in this browser; the key itself is not kept.</p>
${error ? `<p class="error" role="alert" id="login-error">${escapeHtml(error)}</p>` : ''}
<label for="api_key">API key</label>
<input id="api_key" name="api_key" type="password" autocomplete="current-password" required autofocus${error ? ' aria-describedby="login-error"' : ''}>
<button type="submit">Log in</button>
</form>
</main>
</body>
</html>
`;
}

/** The application shell; the script (static/app.js) renders everything from the API. */
export function appPage(csrfToken: string): string {
  const meta = `<meta name="csrf-token" content="${escapeHtml(csrfToken)}">
<script type="module" src="/ui/static/app.js"></script>
`;
  return `${head('Argus supervisor', meta)}
<body>
<a class="skip" href="#campaigns">Skip to the campaigns</a>
<header class="top">
<h1>Argus supervisor</h1>
<p id="live-status" class="live-status" role="status" aria-live="polite">Connecting…</p>
<button type="button" id="logout">Log out</button>
</header>
<main id="main" class="layout">
<section id="campaigns" class="campaigns" aria-labelledby="campaigns-title">
<h2 id="campaigns-title">Campaigns <span id="campaign-count" class="count"></span></h2>
<div class="toolbar" role="search">
<label for="campaign-search">Search</label>
<input id="campaign-search" type="search" placeholder="id or objective" maxlength="200" autocomplete="off">
<label for="state-filter">Filter by state</label>
<select id="state-filter"><option value="">all states</option></select>
<label for="attention-filter">Filter by attention</label>
<select id="attention-filter"><option value="">all</option></select>
<label for="health-filter">Filter by health</label>
<select id="health-filter"><option value="">all</option></select>
</div>
<details class="attach">
<summary>Attach a campaign to a remote task</summary>
<form id="attach-form">
<label for="attach-id">Campaign id</label><input id="attach-id" name="campaign_id" required maxlength="128" pattern="[A-Za-z0-9_][A-Za-z0-9._\\-]{0,127}">
<label for="attach-task">Remote task id</label><input id="attach-task" name="remote_task_id" required maxlength="256">
<label for="attach-objective">Objective</label><input id="attach-objective" name="objective" required maxlength="4000">
<button type="submit">Attach</button>
</form>
</details>
<div class="table-wrap">
<table id="campaign-table" aria-describedby="list-help">
<caption id="list-help">Click a row (or press Enter on its id) to see the campaign; arrow keys move between rows; a column heading sorts (worst health first by default). The lease, the intent in doubt and the last read are in the detail.</caption>
<thead><tr><th scope="col" data-sort="id"><button type="button" class="sort">Campaign</button></th><th scope="col" data-sort="state"><button type="button" class="sort">State</button></th><th scope="col" data-sort="attention"><button type="button" class="sort">Attention</button></th><th scope="col" data-sort="health" aria-sort="ascending"><button type="button" class="sort">Health</button></th><th scope="col" data-sort="stage"><button type="button" class="sort">Stage</button></th><th scope="col" data-sort="change"><button type="button" class="sort">Last change</button></th></tr></thead>
<tbody id="campaign-rows"></tbody>
</table>
</div>
</section>
<section id="detail" class="detail" aria-labelledby="detail-title" hidden>
<h2 id="detail-title">Campaign</h2>
<p id="detail-summary" class="summary"></p>
<dl id="detail-facts" class="facts"></dl>
<section id="needs-you" class="card needs-you" aria-labelledby="needs-you-title" hidden>
<h3 id="needs-you-title">NEEDS YOU</h3>
<p class="source">Asked by <span id="question-source"></span></p>
<blockquote id="question-text" class="question"></blockquote>
<form id="answer-form">
<label for="answer-text">Your answer</label>
<textarea id="answer-text" name="text" required maxlength="4000" rows="3"></textarea>
<p id="answer-epoch" class="epoch"></p>
<button type="submit">Send the answer</button>
</form>
</section>
<section class="card" aria-labelledby="actions-title">
<h3 id="actions-title">Actions</h3>
<p id="actions-epoch" class="epoch"></p>
<div id="actions" class="actions"></div>
</section>
<section class="card chart-card" aria-labelledby="chart-title">
<h3 id="chart-title">Statechart</h3>
<p id="chart-active" class="chart-active"></p>
<p id="chart-time" class="chart-active"></p>
<div class="chart-switch" role="group" aria-label="Which chart">
<button type="button" id="show-overview" aria-pressed="true">Overview</button>
<button type="button" id="show-full" aria-pressed="false">Full chart</button>
</div>
<div id="overview" class="overview"></div>
<div id="full-chart" hidden>
<p class="chart-tools">
<button type="button" id="chart-zoom-in" aria-label="Zoom in">+</button>
<button type="button" id="chart-zoom-out" aria-label="Zoom out">−</button>
<button type="button" id="chart-fit">Fit</button>
<button type="button" id="chart-focus">Focus the active state</button>
<span class="hint">Drag to pan, wheel or +/− to zoom, arrow keys to pan, F to focus; click a compound state’s name to fold it; hover an arrow for its guards.</span>
</p>
<div id="chart" class="chart" tabindex="0" aria-label="The full statechart: drag to pan, wheel to zoom"></div>
</div>
</section>
<section class="card" aria-labelledby="decision-title">
<h3 id="decision-title">Last decision</h3>
<dl id="decision" class="facts"></dl>
</section>
<div class="timelines">
<section class="card" aria-labelledby="history-title">
<h3 id="history-title">State history</h3>
<p id="history-now" class="epoch"></p>
<ol id="history" class="timeline history"></ol>
</section>
<section class="card" aria-labelledby="timeline-title">
<h3 id="timeline-title">Public events</h3>
<ol id="timeline" class="timeline" aria-live="polite"></ol>
</section>
</div>
</section>
</main>
<p id="announcer" class="visually-hidden" aria-live="polite"></p>
<dialog id="action-dialog" aria-labelledby="dialog-title">
<form id="dialog-form" method="dialog">
<h3 id="dialog-title"></h3>
<p id="dialog-text"></p>
<div id="dialog-fields"></div>
<div class="dialog-buttons">
<button type="submit" value="cancel" id="dialog-cancel">Cancel</button>
<button type="submit" value="confirm" id="dialog-confirm">Confirm</button>
</div>
</form>
</dialog>
</body>
</html>
`;
}
