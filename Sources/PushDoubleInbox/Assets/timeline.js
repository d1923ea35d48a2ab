/* PushDouble retry timeline: draws the attempts of each notification of a list of history
 * exchanges (as GET /history returns them) on a time axis, as inline SVG.
 *
 *   PushDoubleTimeline.render(container, exchanges, options) -> { groups }
 *   PushDoubleTimeline.group(exchanges)                      -> [notification]
 *
 * Shared by the inbox page (/inbox/timeline.js) and the HTML conformance report (inlined).
 * Everything is built with DOM APIs (createElementNS / textContent / setAttribute): the
 * history holds text a sender chose, so nothing it holds is ever parsed as markup.
 *
 * Grouping rule (one notification = one group, its exchanges = its attempts, in arrival order):
 *   key = provider + target + identity, where
 *   - target   = the recipients' tokens of a batch (joined by ","), else the request's
 *                token, else the registered device id, else the request path;
 *   - identity = what the provider's view says identifies one message across its attempts
 *                (its `messageIdentity(request, helpers)` hook, registered beside its view on
 *                PushDoubleInboxViews, docs/inbox.md "Provider hooks"), else the request body.
 *                The views are loaded before this script: /inbox/views.js on the inbox page,
 *                inlined in the HTML report.
 *   Two identical notifications sent on purpose to the same target therefore share a group.
 *
 * Times: an attempt starts when its request head arrived (transport.headReceivedAt, else
 * receivedAt) and ends when the answer was decided (respondedAt, a fault's delay included),
 * as the conformance checks count them (Checks/Generic/Attempt.swift).
 *
 * Retry-After (RFC 9110 §10.2.3): the response header `retry-after` of an answer that was not
 * 2xx, as delta-seconds or an HTTP-date (IMF-fixdate, RFC 850, asctime), counted from
 * respondedAt. Its window is [respondedAt, respondedAt + wait]. The next attempt of the same
 * notification is *early* when it starts more than TOLERANCE_MS before the window ends (the
 * tolerance of the conformance check `retry-after`, RetryChecks.waitTolerance).
 *
 * DOM produced (data-testid values are a contract with the inbox tests):
 *   section.pd-notification [data-testid=timeline-notification] per group, holding an <svg>;
 *   g.pd-attempt [data-testid=attempt][data-seq][data-outcome] per attempt, focusable
 *     (tabindex 0, role button): click / Enter / Space calls options.onSelect(seq);
 *   an early attempt also has class pd-early, data-early="true" and, inside it, an element
 *     [data-testid=attempt-early] (the "early" mark of its label);
 *   rect.pd-window [data-testid=retry-after-window][data-seq] per Retry-After window;
 *   text.pd-gap [data-testid=gap] per gap between two attempts.
 * options: { onSelect(seq), selectedSeq (drawn selected), width (px; default the container's
 *   width, and then the drawing follows the container's width with a ResizeObserver), list
 *   (true: the attempt list under each drawing is open), legend (false: no legend) }.
 */
(function (root) {
  'use strict';

  var SVG_NS = 'http://www.w3.org/2000/svg';
  /** Clock granularity allowed when judging a wait, ms (RetryChecks.waitTolerance = 0.05 s). */
  var TOLERANCE_MS = 50;
  /** The shortest time span a drawing covers, ms (one quick attempt is not drawn full width). */
  var MIN_SPAN_MS = 50;
  var OUTCOMES = ['ok', 'client', 'throttled', 'server', 'connection', 'other'];
  var OUTCOME_TEXT = { ok: '2xx', client: '4xx', throttled: '429', server: '5xx', connection: 'no answer (connection)', other: 'other' };

  // ---- pure part (no DOM) ---------------------------------------------------------------

  /** First value of header `name` (case-insensitive) in a `[[name, value], …]` list. */
  function header(headers, name) {
    if (!headers) return null;
    var want = name.toLowerCase();
    for (var i = 0; i < headers.length; i++) {
      var h = headers[i];
      if (h && h.length >= 2 && String(h[0]).toLowerCase() === want) return String(h[1]);
    }
    return null;
  }

  function time(s) { var t = Date.parse(s); return isNaN(t) ? null : t; }
  /** When the attempt started (ms since the epoch). */
  function startOf(ex) { return time((ex.transport && ex.transport.headReceivedAt) || ex.receivedAt) || time(ex.receivedAt) || 0; }
  /** When the attempt was answered (ms since the epoch). */
  function endOf(ex) { var e = time(ex.respondedAt); return e === null ? startOf(ex) : Math.max(e, startOf(ex)); }

  var MONTHS = { jan: 0, feb: 1, mar: 2, apr: 3, may: 4, jun: 5, jul: 6, aug: 7, sep: 8, oct: 9, nov: 10, dec: 11 };
  function utc(y, mon, d, hh, mm, ss) {
    var m = MONTHS[mon.toLowerCase()];
    if (m === undefined || d < 1 || d > 31 || hh > 23 || mm > 59 || ss > 60) return null;
    return Date.UTC(y, m, d, hh, mm, ss);
  }
  /** An HTTP-date (IMF-fixdate, RFC 850 or asctime form) as ms since the epoch, else null.
   *  `referenceMs` places RFC 850's two-digit year: the year within 50 years of it. */
  function parseHTTPDate(value, referenceMs) {
    var v = String(value).trim(), m;
    if ((m = /^[A-Za-z]{3}, (\d{2}) ([A-Za-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/.exec(v)))
      return utc(+m[3], m[2], +m[1], +m[4], +m[5], +m[6]);
    if ((m = /^[A-Za-z]+, (\d{2})-([A-Za-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/.exec(v))) {
      var ref = new Date(referenceMs || Date.now()).getUTCFullYear();
      var y = ref - (ref % 100) + (+m[3]);
      if (y > ref + 50) y -= 100;
      return utc(y, m[2], +m[1], +m[4], +m[5], +m[6]);
    }
    if ((m = /^[A-Za-z]{3} ([A-Za-z]{3}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/.exec(v)))
      return utc(+m[6], m[1], +m[2], +m[3], +m[4], +m[5]);
    return null;
  }

  /** The Retry-After window an answer asked for: null when the answer has no `retry-after` or
   *  was 2xx; `{value, invalid: true}` when the value is neither form; else
   *  `{value, form: 'seconds'|'date', seconds, start, end}` (start/end in ms since the epoch). */
  function retryAfterWindow(ex) {
    var r = ex.response || {};
    if (typeof r.status === 'number' && r.status >= 200 && r.status < 300) return null;
    var value = header(r.headers, 'retry-after');
    if (value === null) return null;
    var start = endOf(ex), v = value.trim(), seconds, form;
    if (/^\d+$/.test(v)) { seconds = Number(v); form = 'seconds'; }
    else {
      var at = parseHTTPDate(v, start);
      if (at === null) return { value: value, invalid: true };
      seconds = Math.max(0, (at - start) / 1000); form = 'date';
    }
    return { value: value, form: form, seconds: seconds, start: start, end: start + seconds * 1000 };
  }

  /** Whether attempt `next` started inside the Retry-After window of attempt `prev`. */
  function isEarly(prev, next) {
    var w = retryAfterWindow(prev);
    return !!(w && !w.invalid && startOf(next) + TOLERANCE_MS < w.end);
  }

  /** What kind of answer an exchange got: ok | client | throttled | server | connection | other. */
  function outcome(ex) {
    var s = ex.response && ex.response.status;
    if (typeof s !== 'number') return 'connection';
    if (s >= 200 && s < 300) return 'ok';
    if (s === 429) return 'throttled';
    if (s >= 400 && s < 500) return 'client';
    if (s >= 500) return 'server';
    return 'other';
  }

  /** "503 ServiceUnavailable", "reset", "200 (delayed)". */
  function label(ex) {
    var r = ex.response || {}, action = r.action || 'respond';
    if (typeof r.status !== 'number') return action;
    var text = String(r.status) + (r.reason ? ' ' + r.reason : '');
    if (action !== 'respond') text += ' (' + action + ')';
    return text;
  }

  /** The request body as the history holds it: its text, else its base64, else ''. */
  function bodyOf(req) {
    return req.body !== undefined && req.body !== null ? req.body : (req.bodyBase64 || '');
  }

  /** What a provider's `messageIdentity` hook may use. */
  var identityHelpers = { header: header, body: bodyOf };

  /** The message identity of a request of `provider`: its view's `messageIdentity` hook
   *  (root.PushDoubleInboxViews[provider].messageIdentity), else the request body. */
  function messageIdentity(provider, req) {
    var views = root.PushDoubleInboxViews;
    var view = views && Object.prototype.hasOwnProperty.call(views, provider) ? views[provider] : null;
    var hook = view && Object.prototype.hasOwnProperty.call(view, 'messageIdentity') ? view.messageIdentity : null;
    return typeof hook === 'function' ? hook(req, identityHelpers) : bodyOf(req);
  }

  /** The group key of an exchange (see the grouping rule at the top). */
  function groupKey(ex) {
    var req = ex.request || {}, provider = String(ex.provider || '?');
    var target = ex.recipients && ex.recipients.length
      ? ex.recipients.map(function (r) { return r.token; }).join(',')
      : (ex.token || ex.deviceID || req.path || '');
    return JSON.stringify([provider, target, messageIdentity(provider, req)]);
  }

  /** "830 ms", "1.25 s", "2 min 5 s". */
  function formatDuration(ms) {
    ms = Math.max(0, ms);
    if (ms < 1000) return Math.round(ms) + ' ms';
    if (ms < 10000) return (ms / 1000).toFixed(2) + ' s';
    if (ms < 120000) return (ms / 1000).toFixed(1) + ' s';
    var s = Math.round(ms / 1000);
    if (s < 7200) return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
    return (s / 3600).toFixed(1) + ' h';
  }

  /** The exchanges grouped into notifications, groups in first-attempt order:
   *  `[{key, provider, target, attempts: [{seq, exchange, start, end, outcome, label,
   *  window, gapMs, early}]}]` (gapMs: from the previous attempt's answer to this start). */
  function group(exchanges) {
    var list = (exchanges || []).filter(function (e) { return e && typeof e === 'object'; }).slice();
    list.sort(function (a, b) { return (startOf(a) - startOf(b)) || ((a.seq || 0) - (b.seq || 0)); });
    var groups = [], byKey = {};
    list.forEach(function (ex) {
      var key = groupKey(ex), g = byKey[key];
      if (!g) {
        var req = ex.request || {};
        g = byKey[key] = { key: key, provider: String(ex.provider || '?'),
          target: ex.deviceID || ex.token || req.path || '', attempts: [] };
        groups.push(g);
      }
      var prev = g.attempts.length ? g.attempts[g.attempts.length - 1] : null;
      g.attempts.push({ seq: ex.seq, exchange: ex, start: startOf(ex), end: endOf(ex), outcome: outcome(ex), label: label(ex),
        window: retryAfterWindow(ex), gapMs: prev ? startOf(ex) - prev.end : null,
        early: prev ? isEarly(prev.exchange, ex) : false });
    });
    return groups;
  }

  /** The group holding seq `seq`, or null. */
  function groupOf(exchanges, seq) {
    var gs = group(exchanges);
    for (var i = 0; i < gs.length; i++)
      for (var j = 0; j < gs[i].attempts.length; j++) if (gs[i].attempts[j].seq === seq) return gs[i];
    return null;
  }

  /** A tick step (ms) of 1, 2 or 5 × 10^k giving about `count` ticks over `span`. */
  function tickStep(span, count) {
    var raw = Math.max(span, 1) / Math.max(count, 1), p = Math.pow(10, Math.floor(Math.log(raw) / Math.LN10));
    var f = raw / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
  }

  // ---- DOM part ---------------------------------------------------------------------------

  function svg(name, attrs, parent) {
    var el = document.createElementNS(SVG_NS, name);
    for (var k in attrs) if (Object.prototype.hasOwnProperty.call(attrs, k)) el.setAttribute(k, String(attrs[k]));
    if (parent) parent.appendChild(el);
    return el;
  }
  function html(name, attrs, parent, text) {
    var el = document.createElement(name);
    for (var k in attrs) if (Object.prototype.hasOwnProperty.call(attrs, k)) el.setAttribute(k, String(attrs[k]));
    if (text !== undefined) el.textContent = text;
    if (parent) parent.appendChild(el);
    return el;
  }
  function svgText(attrs, parent, text) { var t = svg('text', attrs, parent); t.textContent = text; return t; }

  var LAYOUT = { height: 104, pad: 14, windowTop: 16, windowHeight: 40, markTop: 30, markHeight: 14,
                 gapY: 25, labelY: [62, 76], rowHeight: 14, axisY: 90, charWidth: 6.4 };

  /** The baseline of label row `row` (rows past the second push the axis down). */
  function labelY(row) { return LAYOUT.labelY[0] + row * LAYOUT.rowHeight; }

  /** The visible time span of a group: every attempt, and Retry-After windows up to a margin
   *  past the last answer (half the attempts' span, at least 20 ms: a long window would
   *  squeeze the attempts into a corner, and a retry made too early would hide under it). */
  function extent(g) {
    var t0 = g.attempts[0].start, last = t0;
    g.attempts.forEach(function (a) { last = Math.max(last, a.end); });
    var margin = Math.max(0.5 * (last - t0), 20), t1 = last;
    g.attempts.forEach(function (a) { if (a.window && !a.window.invalid) t1 = Math.max(t1, Math.min(a.window.end, last + margin)); });
    return { t0: t0, t1: Math.max(t1, t0 + MIN_SPAN_MS) };
  }

  /** The estimated width of an attempt's label, px. */
  function labelWidth(a) { return (a.label.length + (a.early ? 8 : 0)) * LAYOUT.charWidth; }

  /** Where an attempt's label lies, px: from its mark's start, or, when that would run past the
   *  right edge, ending at its mark's end (as drawAttempt draws it). */
  function labelSpan(a, x, width) {
    var x0 = x(a.start), w = Math.max(6, x(a.end) - x0), lw = labelWidth(a);
    return x0 + lw > width - LAYOUT.pad ? { x0: x0 + w - lw, x1: x0 + w, right: true } : { x0: x0, x1: x0 + lw, right: false };
  }

  /** A row per attempt such that no two labels overlap, however close the attempts are (retries
   *  a millisecond apart): each label takes the first row whose last label ends before it. */
  function labelRows(attempts, x, width) {
    var ends = [];
    return attempts.map(function (a) {
      var span = labelSpan(a, x, width), row = 0;
      while (row < ends.length && span.x0 < ends[row]) row++;
      ends[row] = span.x1 + 6;
      return row;
    });
  }

  function select(options, seq) { if (options && typeof options.onSelect === 'function') options.onSelect(seq); }

  function drawWindows(g, s, x, t1) {
    g.attempts.forEach(function (a) {
      var w = a.window;
      if (!w || w.invalid) return;
      var clipped = w.end > t1, x0 = x(w.start), x1 = x(Math.min(w.end, t1));
      svg('rect', { 'class': 'pd-window' + (clipped ? ' pd-window-clipped' : ''), 'data-testid': 'retry-after-window',
        'data-seq': a.seq, x: x0, y: LAYOUT.windowTop, width: Math.max(1, x1 - x0), height: LAYOUT.windowHeight }, s);
      svgText({ 'class': 'pd-window-label', x: x0 + 2, y: LAYOUT.windowTop - 4 }, s,
        'Retry-After ' + formatDuration(w.seconds * 1000) + (clipped ? ' →' : ''));
    });
  }

  /** The gap between answer and retry, labelled over the line; a label that would overlap the
   *  previous one is left blank with the duration in its tooltip (the list below says it too). */
  function drawGaps(g, s, x) {
    var lastEnd = -Infinity;
    for (var i = 1; i < g.attempts.length; i++) {
      var prev = g.attempts[i - 1], a = g.attempts[i], x0 = x(prev.end), x1 = x(a.start);
      svg('line', { 'class': 'pd-gap-line', x1: x0, x2: Math.max(x0, x1), y1: LAYOUT.markTop + LAYOUT.markHeight / 2,
        y2: LAYOUT.markTop + LAYOUT.markHeight / 2 }, s);
      var text = formatDuration(a.gapMs), mid = (x0 + Math.max(x0, x1)) / 2, half = text.length * LAYOUT.charWidth / 2;
      var fits = mid - half >= lastEnd;
      var t = svgText({ 'class': 'pd-gap' + (a.early ? ' pd-gap-early' : ''), 'data-testid': 'gap', 'text-anchor': 'middle',
        x: mid, y: LAYOUT.gapY }, s, fits ? text : '');
      if (fits) lastEnd = mid + half + 4; else { t.setAttribute('data-hidden-overlap', 'true'); svg('title', {}, t).textContent = text; }
    }
  }

  function drawAttempt(a, s, x, labelRow, width, options) {
    var cls = 'pd-attempt pd-outcome-' + a.outcome + (a.early ? ' pd-early' : '') +
      (options.selectedSeq === a.seq ? ' pd-selected' : '');
    var name = '#' + a.seq + ' ' + a.label + ' at ' + new Date(a.start).toISOString() +
      (a.early ? ', early: inside the previous Retry-After window' : '');
    var el = svg('g', { 'class': cls, 'data-testid': 'attempt', 'data-seq': a.seq, 'data-outcome': a.outcome,
      tabindex: 0, role: 'button', 'aria-label': name }, s);
    if (a.early) el.setAttribute('data-early', 'true');
    svg('title', {}, el).textContent = name;
    var x0 = x(a.start), w = Math.max(6, x(a.end) - x0), span = labelSpan(a, x, width), right = span.right;
    // An invisible rect over the mark and its label: a click anywhere on the attempt hits it.
    var hx0 = Math.min(x0, span.x0), hx1 = Math.max(x0 + w, span.x1);
    svg('rect', { 'class': 'pd-hit', x: hx0, y: LAYOUT.markTop - 2, width: hx1 - hx0,
      height: labelY(labelRow) + 4 - (LAYOUT.markTop - 2) }, el);
    svg('rect', { 'class': 'pd-mark', x: x0, y: LAYOUT.markTop, width: w, height: LAYOUT.markHeight, rx: 3 }, el);
    var t = svgText({ 'class': 'pd-label', 'data-testid': 'attempt-label', x: right ? x0 + w : x0, y: labelY(labelRow),
      'text-anchor': right ? 'end' : 'start' }, el, '');
    svg('tspan', {}, t).textContent = a.label;
    if (a.early) svg('tspan', { 'class': 'pd-early-mark', 'data-testid': 'attempt-early' }, t).textContent = ' · early';
    el.addEventListener('click', function () { select(options, a.seq); });
    el.addEventListener('keydown', function (ev) {
      if (ev.key === 'Enter' || ev.key === ' ') { if (ev.preventDefault) ev.preventDefault(); select(options, a.seq); }
    });
  }

  function drawAxis(s, x, t0, t1, width, y) {
    svg('line', { 'class': 'pd-axis', x1: x(t0), x2: x(t1), y1: y, y2: y }, s);
    var step = tickStep(t1 - t0, Math.max(2, Math.floor(width / 110)));
    for (var t = 0; t0 + t <= t1 + 0.5; t += step) {
      svg('line', { 'class': 'pd-tick', x1: x(t0 + t), x2: x(t0 + t), y1: y, y2: y + 4 }, s);
      var anchor = t === 0 ? 'start' : x(t0 + t) > width - 30 ? 'end' : 'middle';
      svgText({ 'class': 'pd-tick-label', x: x(t0 + t), y: y + 13, 'text-anchor': anchor }, s,
        t === 0 ? '0' : '+' + formatDuration(t));
    }
  }

  /** One notification's drawing: windows under the marks, gaps, attempts, axis. */
  function drawGroup(g, width, options) {
    var ext = extent(g), pad = LAYOUT.pad, scale = (width - 2 * pad) / (ext.t1 - ext.t0);
    var x = function (t) { return pad + (t - ext.t0) * scale; };
    var rows = labelRows(g.attempts, x, width);
    // Two label rows fit the default height; each further row pushes the axis down.
    var extra = Math.max(0, Math.max.apply(null, rows) + 1 - LAYOUT.labelY.length) * LAYOUT.rowHeight, height = LAYOUT.height + extra;
    var s = svg('svg', { 'class': 'pd-svg', width: width, height: height, viewBox: '0 0 ' + width + ' ' + height,
      role: 'group', 'aria-label': g.attempts.length + ' attempt(s) over ' + formatDuration(ext.t1 - ext.t0) });
    drawWindows(g, s, x, ext.t1);
    drawGaps(g, s, x);
    g.attempts.forEach(function (a, i) { drawAttempt(a, s, x, rows[i], width, options); });
    drawAxis(s, x, ext.t0, ext.t1, width, LAYOUT.axisY + extra);
    return s;
  }

  /** The attempts as text: readable at any width and by a screen reader. */
  function attemptList(g, options) {
    var d = html('details', { 'class': 'pd-attempt-list' });
    if (options.list) d.setAttribute('open', '');
    html('summary', {}, d, 'Attempts as a list');
    var ol = html('ol', {}, d);
    g.attempts.forEach(function (a) {
      var li = html('li', { 'class': 'pd-outcome-' + a.outcome + (a.early ? ' pd-early' : ''), 'data-seq': a.seq }, ol);
      var text = '#' + a.seq + ' +' + formatDuration(a.start - g.attempts[0].start) + ' ' + a.label;
      if (a.gapMs !== null) text += ', ' + formatDuration(a.gapMs) + ' after the previous answer';
      if (a.window) text += a.window.invalid ? ', Retry-After "' + a.window.value + '" (unreadable)'
        : ', asked Retry-After ' + a.window.value.trim() + ' (' + formatDuration(a.window.seconds * 1000) + ')';
      li.textContent = text;
      if (a.early) html('strong', { 'class': 'pd-early-mark' }, li, ' early: inside the previous Retry-After window');
    });
    return d;
  }

  function legend() {
    var ul = html('ul', { 'class': 'pd-legend', 'aria-label': 'Legend' });
    OUTCOMES.forEach(function (o) {
      var li = html('li', {}, ul);
      html('span', { 'class': 'pd-swatch pd-outcome-' + o, 'aria-hidden': 'true' }, li);
      li.appendChild(document.createTextNode(OUTCOME_TEXT[o]));
    });
    var w = html('li', {}, ul); html('span', { 'class': 'pd-swatch pd-swatch-window', 'aria-hidden': 'true' }, w);
    w.appendChild(document.createTextNode('Retry-After window'));
    var e = html('li', {}, ul); html('span', { 'class': 'pd-swatch pd-swatch-early', 'aria-hidden': 'true' }, e);
    e.appendChild(document.createTextNode('retried too early'));
    return ul;
  }

  function drawingWidth(container, options) {
    // The drawing sits in a section with 8 px padding and a 1 px border on each side.
    var w = options.width || (container.clientWidth ? container.clientWidth - 22 : 700);
    return Math.max(240, Math.floor(w));
  }

  /** Redraws when the container's width changes (a details element opened, a scrollbar came,
   *  the window was resized), unless options.width fixes the width. */
  function follow(container, exchanges, options) {
    if (container.__pdTimelineObserver) { container.__pdTimelineObserver.disconnect(); container.__pdTimelineObserver = null; }
    if (options.width || typeof ResizeObserver !== 'function') return;
    var drawn = container.clientWidth;
    var observer = new ResizeObserver(function () {
      var now = container.clientWidth;
      if (now && Math.abs(now - drawn) >= 2) render(container, exchanges, options);
    });
    observer.observe(container);
    container.__pdTimelineObserver = observer;
  }

  /** Draws `exchanges` into `container` (its previous content is replaced). */
  function render(container, exchanges, options) {
    options = options || {};
    follow(container, exchanges, options);
    while (container.firstChild) container.removeChild(container.firstChild);
    if (container.classList) container.classList.add('pd-timeline');
    var groups = group(exchanges), width = drawingWidth(container, options);
    if (!groups.length) { html('p', { 'class': 'pd-empty' }, container, 'No attempts to draw.'); return { groups: groups }; }
    if (options.legend !== false) container.appendChild(legend());
    groups.forEach(function (g) {
      var early = g.attempts.filter(function (a) { return a.early; }).length;
      var sec = html('section', { 'class': 'pd-notification' + (early ? ' pd-has-early' : ''), 'data-testid': 'timeline-notification',
        'data-attempts': g.attempts.length, 'data-early-count': early }, container);
      var h = html('div', { 'class': 'pd-notification-head' }, sec);
      html('span', { 'class': 'pd-provider' }, h, g.provider);
      html('span', { 'class': 'pd-target' }, h, g.target);
      html('span', { 'class': 'pd-count' }, h, g.attempts.length + (g.attempts.length === 1 ? ' attempt' : ' attempts'));
      if (early) html('strong', { 'class': 'pd-early-note' }, h, early + ' retried too early');
      var scroll = html('div', { 'class': 'pd-scroll' }, sec);
      scroll.appendChild(drawGroup(g, width, options));
      sec.appendChild(attemptList(g, options));
    });
    return { groups: groups };
  }

  var api = { render: render, group: group, groupOf: groupOf, groupKey: groupKey, messageIdentity: messageIdentity, retryAfterWindow: retryAfterWindow,
    isEarly: isEarly, parseHTTPDate: parseHTTPDate, outcome: outcome, label: label, formatDuration: formatDuration, labelRows: labelRows,
    header: header, TOLERANCE_MS: TOLERANCE_MS };
  root.PushDoubleTimeline = api;
  if (typeof module === 'object' && module && module.exports) module.exports = api;
})(typeof window !== 'undefined' ? window : globalThis);