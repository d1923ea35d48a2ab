/// The styles and the script of the HTML report (``HTMLReporter``), inlined in the page next to
/// the inbox's timeline (``InboxAsset/timelineScript``, ``InboxAsset/timelineStyle``).
enum HTMLReportAssets {
    /// The page's CSS (layout, badges, narrow widths).
    static let style = #"""
/* pushdouble conform --html */
:root { --ok: #2e7d32; --bad: #c62828; --warn: #ef6c00; --info: #1565c0; --na: #757575; --err: #6a1b9a; --line: #ddd; --muted: #666; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1b1b; background: #fafafa; }
code, pre { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12.5px; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 4px 0; }
.top { padding: 12px 16px; background: #fff; border-bottom: 1px solid var(--line); }
h1 { font-size: 20px; margin: 0 0 8px; }
h3 { font-size: 14px; margin: 14px 0 6px; }
.summary .result { font-weight: 600; margin: 0 0 6px; }
.summary .result.ok { color: var(--ok); } .summary .result.bad { color: var(--bad); }
.counts { list-style: none; display: flex; flex-wrap: wrap; gap: 6px 16px; padding: 0; margin: 0 0 8px; }
.counts .n { font-weight: 700; font-size: 16px; }
.c-pass .n { color: var(--ok); } .c-fail .n { color: var(--bad); } .c-warn .n { color: var(--warn); } .c-error .n { color: var(--err); } .c-na .n { color: var(--na); }
.facts { display: grid; grid-template-columns: repeat(auto-fit, minmax(220px, 1fr)); gap: 2px 16px; margin: 0; }
.facts div { display: flex; gap: 8px; min-width: 0; }
.facts div.wide { grid-column: 1 / -1; }
.facts dt { color: var(--muted); flex: none; }
.facts dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
.controls { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; margin-top: 10px; }
.controls button { font: inherit; padding: 3px 10px; border: 1px solid #bbb; border-radius: 14px; background: #fff; cursor: pointer; }
.controls button[aria-pressed="true"] { background: #1b1b1b; color: #fff; border-color: #1b1b1b; }
.controls input { font: inherit; padding: 3px 8px; border: 1px solid #bbb; border-radius: 4px; min-width: 12em; }
.verdict-filter, .expand { display: flex; flex-wrap: wrap; gap: 4px; }
button:focus-visible, summary:focus-visible, input:focus-visible { outline: 3px solid #1a73e8; outline-offset: 2px; }
main { padding: 12px 16px 40px; }
.case { background: #fff; border: 1px solid var(--line); border-left: 5px solid var(--na); border-radius: 6px; margin: 0 0 8px; }
.case.v-pass { border-left-color: var(--ok); } .case.v-fail { border-left-color: var(--bad); }
.case.v-warn { border-left-color: var(--warn); } .case.v-error { border-left-color: var(--err); }
.case > summary { cursor: pointer; padding: 8px 10px; display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: baseline; }
.case-id { font-weight: 600; overflow-wrap: anywhere; }
.case-title { flex: 1 1 16em; min-width: 0; }
.case-meta { color: var(--muted); font-size: 12px; }
.case-body { padding: 0 12px 12px; border-top: 1px solid var(--line); }
.badge { display: inline-block; min-width: 3.4em; text-align: center; padding: 0 6px; border-radius: 4px; font-size: 11px; font-weight: 700; color: #fff; background: var(--na); }
.b-pass { background: var(--ok); } .b-fail { background: var(--bad); } .b-warn { background: var(--warn); }
.b-info { background: var(--info); } .b-error { background: var(--err); }
.case-facts { margin: 8px 0; font-size: 13px; }
.verdicts { list-style: none; padding: 0; margin: 8px 0; }
.verdict { padding: 6px 0; border-bottom: 1px dashed var(--line); }
.verdict .severity { font-size: 11px; color: var(--muted); }
.verdict .message { margin: 2px 0; }
.verdict .reference { margin: 0; color: var(--muted); font-size: 12px; }
.verdict.v-pass .message, .verdict.v-na .message { color: var(--muted); }
.evidence { margin: 4px 0 0; padding-left: 20px; font-size: 13px; overflow-wrap: anywhere; }
button.seq { font: 12px ui-monospace, Menlo, Consolas, monospace; padding: 0 4px; border: 1px solid #bbb; border-radius: 3px; background: #f3f3f3; cursor: pointer; }
.driver-failure pre, .sender-log pre { background: #f6f6f6; padding: 6px; border-radius: 4px; max-height: 24em; overflow: auto; }
.exchange-detail { border: 1px solid var(--line); border-radius: 4px; padding: 6px 8px; margin-top: 6px; background: #fcfcfc; }
.exchange-detail .detail-head { font-weight: 600; overflow-wrap: anywhere; }
.exchange-detail pre { max-height: 28em; overflow: auto; }
.steps, .sender-log { margin-top: 8px; }
.steps summary, .sender-log summary { cursor: pointer; color: var(--muted); }
.steps ol { font-size: 13px; padding-left: 22px; overflow-wrap: anywhere; }
.no-match { color: var(--muted); }
@media (max-width: 600px) {
  .top, main { padding-left: 8px; padding-right: 8px; }
  .case-body { padding: 0 8px 8px; }
  .controls input { min-width: 0; width: 100%; }
  .search { flex: 1 1 100%; }
}
"""#

    /// The page's script: draws every case's timeline from the JSON block, shows an exchange
    /// on a click (timeline or evidence), filters cases by verdict and text, keyboard moves.
    static let script = #"""
/* pushdouble conform --html: draws each case's exchanges with PushDoubleTimeline (inlined
 * above) from the JSON block, and runs the filters. DOM APIs only: the exchanges hold text a
 * sender chose. */
(function () {
  'use strict';
  var perCase = [];
  try { perCase = JSON.parse(document.getElementById('pd-report-exchanges').textContent) || []; } catch (e) { perCase = []; }
  var cases = Array.prototype.slice.call(document.querySelectorAll('[data-testid="case"]'));
  var search = document.querySelector('[data-testid="case-filter"]');
  var noMatch = document.querySelector('[data-testid="no-match"]');
  var state = { verdict: 'all', q: '' };

  function indexOf(caseEl) { return Number(caseEl.getAttribute('data-case-index')); }
  function exchangesOf(caseEl) { return perCase[indexOf(caseEl)] || []; }

  /** Shows exchange `seq` of the case under its timeline and marks its attempt. */
  function showDetail(caseEl, seq) {
    var box = caseEl.querySelector('[data-testid="exchange-detail"]');
    var head = box.querySelector('.detail-head'), pre = box.querySelector('pre');
    var ex = exchangesOf(caseEl).filter(function (e) { return e.seq === seq; })[0];
    if (!ex) {
      head.textContent = 'Exchange #' + seq + ' is not in this report (the history excerpt left it out).';
      pre.textContent = '';
    } else {
      var req = ex.request || {};
      head.textContent = '#' + seq + ' ' + ex.provider + ' ' + (req.method || '') + ' ' + (req.path || '') + ' → ' +
        PushDoubleTimeline.label(ex) + (ex.decidedBy ? ' (decided by ' + ex.decidedBy.stage +
        (ex.decidedBy.detail ? ': ' + ex.decidedBy.detail : '') + ')' : '');
      pre.textContent = JSON.stringify(ex, null, 2);
    }
    box.hidden = false;
    box.setAttribute('data-seq', String(seq));
    if (caseEl.__pdTimelineOptions) caseEl.__pdTimelineOptions.selectedSeq = seq;
    Array.prototype.forEach.call(caseEl.querySelectorAll('[data-testid="attempt"]'), function (a) {
      a.classList.toggle('pd-selected', a.getAttribute('data-seq') === String(seq));
    });
  }

  /** Draws the case's timeline (it redraws itself when its width changes). */
  function draw(caseEl) {
    var box = caseEl.querySelector('[data-testid="retry-timeline"]');
    var options = {};
    options.onSelect = function (seq) { options.selectedSeq = seq; showDetail(caseEl, seq); };
    caseEl.__pdTimelineOptions = options;
    PushDoubleTimeline.render(box, exchangesOf(caseEl), options);
    box.setAttribute('data-rendered', 'true');
  }

  function matches(caseEl) {
    var v = caseEl.getAttribute('data-verdict'), f = state.verdict, ok;
    if (f === 'all') ok = true;
    else if (f === 'problems') ok = v === 'fail' || v === 'error' || v === 'warn';

    else ok = v === f;
    if (ok && state.q) {
      var title = caseEl.querySelector('.case-title');
      ok = (caseEl.getAttribute('data-case-id') + ' ' + (title ? title.textContent : '')).toLowerCase().indexOf(state.q) >= 0;
    }
    return ok;
  }

  function applyFilter() {
    var shown = 0;
    cases.forEach(function (c) { var m = matches(c); c.hidden = !m; if (m) shown++; });
    if (noMatch) noMatch.hidden = shown > 0;
  }

  function visibleSummaries() {
    return cases.filter(function (c) { return !c.hidden; }).map(function (c) { return c.querySelector('summary'); });
  }

  cases.forEach(function (c) {
    draw(c);
    c.addEventListener('click', function (ev) {
      var b = ev.target && ev.target.closest ? ev.target.closest('button.seq') : null;
      if (b) showDetail(c, Number(b.getAttribute('data-seq')));
    });
    var summary = c.querySelector('summary');
    summary.addEventListener('keydown', function (ev) {
      if (ev.key !== 'ArrowDown' && ev.key !== 'ArrowUp') return;
      var list = visibleSummaries(), i = list.indexOf(summary), next = list[i + (ev.key === 'ArrowDown' ? 1 : -1)];
      if (next) { ev.preventDefault(); next.focus(); }
    });
  });

  Array.prototype.forEach.call(document.querySelectorAll('[data-testid="filter-verdict"]'), function (b, _, all) {
    b.addEventListener('click', function () {
      state.verdict = b.getAttribute('data-filter');
      Array.prototype.forEach.call(all, function (o) { o.setAttribute('aria-pressed', String(o === b)); });
      applyFilter();
    });
  });
  if (search) {
    search.addEventListener('input', function () { state.q = search.value.trim().toLowerCase(); applyFilter(); });
    search.addEventListener('keydown', function (ev) {
      if (ev.key === 'Escape') { search.value = ''; state.q = ''; applyFilter(); }
    });
  }
  function setOpen(open) { cases.forEach(function (c) { if (!c.hidden) c.open = open; }); }
  var expand = document.querySelector('[data-testid="expand-all"]'), collapse = document.querySelector('[data-testid="collapse-all"]');
  if (expand) expand.addEventListener('click', function () { setOpen(true); });
  if (collapse) collapse.addEventListener('click', function () { setOpen(false); });
  document.addEventListener('keydown', function (ev) {
    var t = ev.target && ev.target.tagName;
    if (ev.key === '/' && t !== 'INPUT' && t !== 'TEXTAREA' && search) { ev.preventDefault(); search.focus(); }
  });
})();
"""#
}
