/// The inbox page (`GET /inbox`, and `GET /` for a browser): static markup only; every
/// view is filled by `/inbox/inbox.js` from the admin JSON API. The `data-testid`s are the
/// DOM contract of docs/inbox.md (the browser tests rely on them).
enum InboxHTML {
    static let text = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>PushDouble inbox</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/inbox/inbox.css">
<link rel="stylesheet" href="/inbox/timeline.css">
<script src="/inbox/timeline.js" defer></script>
<script src="/inbox/inbox.js" defer></script>
</head>
<body>
<a class="skip" href="#timeline">Skip to the timeline</a>
<header class="bar">
  <h1>PushDouble inbox</h1>
  <span id="connection-state" data-testid="connection-state" class="conn" role="status">reconnecting</span>
  <span id="counts" class="counts"></span>
  <nav class="actions" aria-label="Double">
    <a id="export-scenario" data-testid="export-scenario" class="button" href="/scenario/export" download="pushdouble-scenario.json">Export as scenario</a>
    <button id="reset" data-testid="reset" type="button" class="danger">Reset</button>
  </nav>
</header>
<div id="dropped-banner" data-testid="dropped-banner" class="banner" role="alert" hidden></div>
<div id="message" class="message" role="status" aria-live="polite"></div>
<main class="layout">
  <section id="devices-pane" class="pane" aria-labelledby="devices-heading">
    <h2 id="devices-heading">Devices</h2>
    <ul id="device-list" data-testid="device-list" class="device-list"></ul>
    <section id="device-inbox" data-testid="device-inbox" class="device-inbox" aria-labelledby="device-inbox-heading" hidden>
      <h3 id="device-inbox-heading"></h3>
      <dl id="device-facts" class="facts"></dl>
      <div class="state-control">
        <label for="device-state">State</label>
        <select id="device-state" data-testid="device-state"></select>
        <button id="device-state-apply" data-testid="device-state-apply" type="button">Apply</button>
      </div>
      <p id="device-state-note" class="note"></p>
      <ol id="device-notifications" class="notifications" aria-label="Notifications"></ol>
    </section>
  </section>
  <section id="timeline-pane" class="pane" aria-labelledby="timeline-heading">
    <h2 id="timeline-heading">Timeline</h2>
    <form id="filters" class="filters" role="search" aria-label="Filter the timeline">
      <label>Provider <select id="filter-provider" data-testid="filter-provider"><option value="">all</option></select></label>
      <label>Device <input id="filter-device" data-testid="filter-device" type="search" placeholder="id or token" autocomplete="off"></label>
      <label>Status <input id="filter-status" data-testid="filter-status" type="search" placeholder="410, 4xx, Unregistered" autocomplete="off"></label>
      <label>Search <input id="filter-search" data-testid="filter-search" type="search" placeholder="any text" autocomplete="off"></label>
    </form>
    <p id="timeline-summary" class="note" aria-live="polite"></p>
    <ol id="timeline" data-testid="timeline" class="timeline" aria-label="Exchanges, newest first"></ol>
  </section>
  <section id="faults-pane" class="pane" aria-labelledby="faults-heading">
    <h2 id="faults-heading">Fault rules</h2>
    <form id="fault-form" data-testid="fault-form" class="fault-form">
      <label for="fault-json">A rule as <code>POST /faults</code> takes it (or a list)</label>
      <textarea id="fault-json" data-testid="fault-json" rows="7" spellcheck="false"></textarea>
      <button id="fault-add" data-testid="fault-add" type="submit">Add rule</button>
    </form>
    <ul id="fault-list" data-testid="fault-list" class="fault-list"></ul>
  </section>
</main>
<aside id="exchange-detail" data-testid="exchange-detail" class="detail" role="dialog" aria-labelledby="detail-title" tabindex="-1" hidden>
  <header class="detail-head">
    <h2 id="detail-title">Exchange</h2>
    <button id="detail-close" type="button" aria-label="Close the detail (Escape)">Close</button>
  </header>
  <section><h3>Request</h3><pre id="detail-request" data-testid="detail-request"></pre></section>
  <section><h3>Authentication</h3><div id="detail-auth" data-testid="detail-auth"></div></section>
  <section><h3>Body</h3><pre id="detail-body" data-testid="detail-body"></pre></section>
  <section><h3>Response</h3><pre id="detail-response" data-testid="detail-response"></pre></section>
  <section><h3>Decided by</h3><p id="detail-decided" data-testid="detail-decided"></p></section>
  <section><h3>Timing and transport</h3><dl id="detail-timing" data-testid="detail-timing" class="facts"></dl></section>
  <section><h3>Attempts of this notification</h3><div id="retry-timeline" data-testid="retry-timeline"></div></section>
  <section><h3>As recorded</h3><pre id="detail-notification"></pre></section>
</aside>
</body>
</html>
"""#
}
