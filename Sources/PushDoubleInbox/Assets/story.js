/* PushDouble device story: every exchange addressed to one device, grouped into notifications
 * (PushDoubleTimeline.group: provider + target + the provider's message identity), each with
 * all its attempts in order: when it came, how long after the previous answer, what it was
 * answered (status, reason, a fault's delay, Retry-After), what decided that, the outcome the
 * provider's view reports for the device (an Expo receipt), and a "Copy as curl" button.
 *
 *   PushDoubleStory.render(container, exchanges, options) -> { groups }
 *   PushDoubleStory.copyText(text) -> Promise<boolean>  (the clipboard, else a selected textarea)
 *
 * options: { el(tag, attrs, children): the inbox's element builder (text through textContent only),
 *            describe(ex) -> { text, chip (element or null), outcome: {label, text, bad} or null },
 *            decision(ex) -> string, curlOf(ex) -> string, clock(iso) -> string, onOpen(seq, element) }
 *
 * DOM (data-testid values are a contract with the inbox tests), newest notification first:
 *   li.story-notification [data-testid=story-notification][data-attempts][data-final]
 *     li.story-attempt [data-testid=story-attempt][data-seq][data-outcome] per attempt
 *       [data-testid=story-outcome]     the device outcome, when the view reports one
 *       button [data-testid=story-open] opens the exchange's detail
 *       button [data-testid=copy-curl]  copies the request as curl and shows it in
 *       pre [data-testid=curl-text]
 * Buttons are <button>s: Tab reaches them, Enter and Space press them. Text only: no markup
 * is built from the history.
 */
(function (root) {
  'use strict';

  // The clipboard API needs a secure context (127.0.0.1 and localhost are) and the page's focus;
  // where it is missing or refused, a selected off-screen textarea and execCommand('copy').
  function copyText(text) {
    var nav = root.navigator;
    if (nav && nav.clipboard && typeof nav.clipboard.writeText === 'function') {
      return nav.clipboard.writeText(text).then(function () { return true; }, function () { return fallbackCopy(text); });
    }
    return Promise.resolve(fallbackCopy(text));
  }

  function fallbackCopy(text) {
    var area = document.createElement('textarea');
    area.className = 'story-copy-area';
    area.setAttribute('aria-hidden', 'true');
    area.readOnly = true;
    area.value = text;
    document.body.appendChild(area);
    area.select();
    var ok = false;
    try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
    area.remove();
    return ok;
  }

  function responseHeader(ex, name) {
    var hs = (ex.response && ex.response.headers) || [];
    for (var i = 0; i < hs.length; i++) if (String(hs[i][0]).toLowerCase() === name) return String(hs[i][1]);
    return null;
  }

  function attemptItem(a, i, options) {
    var el = options.el, ex = a.exchange, T = root.PushDoubleTimeline, r = ex.response || {};
    var d = options.describe(ex) || {};
    var facts = [];
    facts.push(i === 0 ? 'first attempt' : '+' + T.formatDuration(a.gapMs || 0) + ' after the previous answer');
    if (typeof r.delaySeconds === 'number') facts.push('answer delayed ' + r.delaySeconds + ' s');
    var ra = responseHeader(ex, 'retry-after');
    if (ra !== null && a.outcome !== 'ok') facts.push('retry-after ' + ra);
    if (a.early) facts.push('retried inside the Retry-After window');
    var curlText = el('pre', { 'class': 'story-curl', 'data-testid': 'curl-text', hidden: 'hidden' });
    var copy = el('button', { type: 'button', 'class': 'story-copy', 'data-testid': 'copy-curl', 'data-seq': ex.seq,
      'aria-label': 'copy exchange ' + ex.seq + ' as a curl command', text: 'Copy as curl',
      onclick: function () {
        var text = options.curlOf(ex);
        curlText.textContent = text;
        curlText.hidden = false;
        copy.setAttribute('data-copied', 'pending');
        copyText(text).then(function (ok) {
          copy.setAttribute('data-copied', ok ? 'true' : 'false');
          copy.textContent = ok ? 'Copied as curl' : 'Copy as curl (select the text below)';
        });
      } });
    return el('li', { 'class': 'story-attempt', 'data-testid': 'story-attempt', 'data-seq': ex.seq, 'data-outcome': a.outcome }, [
      el('div', { 'class': 'story-line' }, [
        el('span', { 'class': 'story-seq', text: '#' + ex.seq }),
        el('span', { 'class': 'story-time', text: options.clock(ex.receivedAt) }),
        el('span', { 'class': 'story-label o-' + a.outcome, 'data-testid': 'story-label', text: a.label }),
        el('span', { 'class': 'story-facts', text: facts.join(' · ') })
      ]),
      el('div', { 'class': 'story-decided', text: 'decided by ' + options.decision(ex.decidedBy) }),
      d.outcome ? el('div', { 'class': 'story-outcome' + (d.outcome.bad ? ' bad' : ''), 'data-testid': 'story-outcome',
        'data-bad': d.outcome.bad ? 'true' : 'false', text: d.outcome.label + ': ' + d.outcome.text }) : null,
      el('div', { 'class': 'story-buttons' }, [
        el('button', { type: 'button', 'data-testid': 'story-open', 'data-seq': ex.seq, text: 'Exchange #' + ex.seq,
          onclick: function () { options.onOpen(ex.seq, this); } }),
        copy
      ]),
      curlText
    ]);
  }

  function render(container, exchanges, options) {
    var el = options.el, T = root.PushDoubleTimeline;
    var groups = T && typeof T.group === 'function' ? T.group(exchanges)
      : exchanges.map(function (ex) { return { attempts: [{ seq: ex.seq, exchange: ex, outcome: 'other', label: String(ex.response && ex.response.status), gapMs: null }] }; });
    var items = groups.slice().reverse().map(function (g) {
      var first = g.attempts[0].exchange, last = g.attempts[g.attempts.length - 1];
      var d = options.describe(first) || {};
      var n = g.attempts.length;
      return el('li', { 'class': 'story-notification', 'data-testid': 'story-notification', 'data-attempts': n, 'data-final': last.outcome }, [
        el('div', { 'class': 'story-head' }, [
          d.chip || null,
          el('span', { 'class': 'story-what', text: d.text || first.endpoint || '' }),
          el('span', { 'class': 'story-count', text: n + (n === 1 ? ' attempt' : ' attempts') + ' · last ' + last.label })
        ]),
        el('ol', { 'class': 'story-attempts' }, g.attempts.map(function (a, i) { return attemptItem(a, i, options); }))
      ]);
    });
    container.replaceChildren.apply(container, items);
    return { groups: groups };
  }

  root.PushDoubleStory = { render: render, copyText: copyText };
})(typeof window !== 'undefined' ? window : globalThis);
