/* PushDouble notification preview: draws a notification as the device or browser would show it,
 * from the description a provider's view returns (docs/inbox.md "Previews"). This file knows no
 * provider: each provider's view (its Inbox/<name>-view.js) says which surfaces its platform has
 * (a banner, the lock screen, a notification shade, a Live Activity…), which text goes on each and
 * in how many lines, and this file draws them alike.
 *
 *   PushDoublePreview.render(preview, options) -> element (null without a preview)
 *   PushDoublePreview.chip(preview)            -> element: the short label a timeline row shows
 *
 * preview (the `preview` member of a view's answer):
 *   { kind:     'alert' | 'silent' | 'live-activity' | 'data' | 'unreadable' (data-kind),
 *     label:    the row chip's text ("iOS alert", "Live Activity update", "silent"),
 *     hidden:   why nothing is shown on screen (a silent / background push), or absent,
 *     surfaces: [{ id (data-surface), label, app, time, badge, image (listed, never loaded),
 *                  parts: [{ role: title | subtitle | body | state | event | …, text, lines }] }],
 *     facts:    [[label, value]]  (sound, interruption level, channel, relevance…) }
 * `lines` is the most lines the platform shows of that text on that surface (0 or absent: all);
 * the text is clamped to it with CSS (line-clamp, an ellipsis at the cut), at the surface's width.
 * An element whose text the clamp cut gets data-truncated="true" once laid out.
 *
 * DOM (data-testid values are a contract with the inbox tests):
 *   figure.pv [data-testid=preview][data-kind][data-platform]
 *     div.pv-surface [data-testid=preview-surface][data-surface] per surface
 *       div.pv-part [data-testid=preview-part][data-role][data-lines]
 *     p.pv-hidden [data-testid=preview-hidden]  (nothing on screen, and why)
 *     dl.pv-facts [data-testid=preview-facts]
 * Everything is built with createElement / textContent: no text from the history is markup.
 */
(function (root) {
  'use strict';

  var MAX_LINES = 12; // preview.css has a clamp class per count up to this

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      var v = attrs[k];
      if (v === undefined || v === null || v === false) return;
      if (k === 'class') e.className = v; else e.setAttribute(k, String(v));
    });
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function str(v) { return typeof v === 'string' ? v : (v === undefined || v === null ? '' : String(v)); }

  function part(p) {
    var lines = Math.max(0, Math.min(MAX_LINES, Number(p.lines) || 0));
    var e = el('div', { 'class': 'pv-part pv-' + str(p.role) + (lines ? ' pv-clamp pv-lines-' + lines : ''), 'data-testid': 'preview-part',
      'data-role': str(p.role), 'data-lines': lines || 'all' }, str(p.text));
    if (lines) markWhenCut(e);
    return e;
  }

  // data-truncated once the element is laid out (a detached element has no size yet).
  function markWhenCut(e) {
    var tries = 0;
    (function check() {
      if (!e.isConnected || !e.clientHeight) { if (++tries < 40 && root.requestAnimationFrame) root.requestAnimationFrame(check); return; }
      e.setAttribute('data-truncated', e.scrollHeight > e.clientHeight + 1 ? 'true' : 'false');
    })();
  }

  function surface(s) {
    var box = el('div', { 'class': 'pv-surface', 'data-testid': 'preview-surface', 'data-surface': str(s.id), role: 'group',
      'aria-label': str(s.label) });
    box.appendChild(el('div', { 'class': 'pv-surface-label' }, s.label));
    var card = el('div', { 'class': 'pv-card' });
    var head = el('div', { 'class': 'pv-head' });
    head.appendChild(el('span', { 'class': 'pv-app' }, s.app));
    if (s.time) head.appendChild(el('span', { 'class': 'pv-time' }, s.time));
    if (s.badge !== undefined && s.badge !== null) head.appendChild(el('span', { 'class': 'pv-badge', 'data-testid': 'preview-badge', title: 'badge' }, str(s.badge)));
    card.appendChild(head);
    (s.parts || []).forEach(function (p) { if (str(p.text)) card.appendChild(part(p)); });
    if (s.image) card.appendChild(el('div', { 'class': 'pv-image', 'data-testid': 'preview-image' }, 'image (not loaded): ' + str(s.image)));
    box.appendChild(card);
    return box;
  }

  function render(preview, options) {
    if (!preview || typeof preview !== 'object') return null;
    var o = options || {};
    var fig = el('figure', { 'class': 'pv', 'data-testid': 'preview', 'data-kind': str(preview.kind), 'data-platform': str(o.platform) });
    fig.appendChild(el('figcaption', { 'class': 'pv-caption' }, str(preview.label) + (o.caption ? ' · ' + o.caption : '')));
    if (preview.hidden) fig.appendChild(el('p', { 'class': 'pv-hidden', 'data-testid': 'preview-hidden' }, 'Nothing on screen: ' + str(preview.hidden)));
    var surfaces = el('div', { 'class': 'pv-surfaces' });
    (preview.surfaces || []).forEach(function (s) { surfaces.appendChild(surface(s)); });
    if (surfaces.childNodes.length) fig.appendChild(surfaces);
    var facts = (preview.facts || []).filter(function (f) { return f && f[1] !== undefined && f[1] !== null && f[1] !== ''; });
    if (facts.length) {
      var dl = el('dl', { 'class': 'pv-facts', 'data-testid': 'preview-facts' });
      facts.forEach(function (f) { dl.appendChild(el('dt', {}, f[0])); dl.appendChild(el('dd', {}, str(f[1]))); });
      fig.appendChild(dl);
    }
    return fig;
  }

  function chip(preview) {
    if (!preview || !preview.label) return null;
    return el('span', { 'class': 'pv-chip', 'data-testid': 'row-kind', 'data-kind': str(preview.kind) }, preview.label);
  }

  root.PushDoublePreview = { render: render, chip: chip, MAX_LINES: MAX_LINES };
})(typeof window !== 'undefined' ? window : globalThis);
