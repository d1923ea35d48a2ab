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
    else if (f === 'new') ok = caseEl.getAttribute('data-new') === 'true';

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