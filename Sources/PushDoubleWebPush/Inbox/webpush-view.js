// The inbox's view of webpush notifications (the provider's part of /inbox/views.js; InboxView in
// PushDoubleCore, docs/inbox.md). Vanilla JS; data reaches the DOM only as text, through the inbox.
// Web Push: the payload the double's browser decrypted (`{data, base64}`), JSON with
// title/body shown as such, other text as the body; `{error, detail}` = could not decrypt;
// `{browser: "autopush"}` = relayed to a real browser (its delivery and ack: annotation `browser`;
// what its service worker read, when reported: annotation `serviceWorker`).
// `declarative` (Apple-style subscriptions, docs/webpush.md "Declarative Web Push"): a valid
// declarative message is drawn as the notification the browser itself shows (title, body, the
// app badge as the badge bubble, navigate, icon…); an invalid one as the service worker gets it:
// the text of an ordinary push, with the reason the browser did not show it.
(window.PushDoubleInboxViews = window.PushDoubleInboxViews || {})['webpush'] = function (ex, index, inbox) {
  var str = inbox.str, isObject = inbox.isObject, otherKeys = inbox.otherKeys;
  var n = isObject(ex.notification) ? ex.notification : {};
  var v = { platform: 'browser', app: 'browser · ' + (n.service || 'web push'), title: '', subtitle: '', body: '', meta: [] };
  var pl = n.payload;
  if (pl === null || pl === undefined) {
    v.silent = true; v.silentWhy = 'no payload (the service worker gets an empty push event)';
  } else if (isObject(pl) && pl.error !== undefined) {
    v.title = 'Could not decrypt';
    v.decryptError = str(pl.error) + (pl.detail ? ': ' + str(pl.detail) : '');
  } else if (isObject(pl) && pl.browser === 'autopush') {
    var leg = isObject(ex.annotations) && isObject(ex.annotations.browser) ? ex.annotations.browser : {};
    var read = isObject(ex.annotations) && isObject(ex.annotations.serviceWorker) ? ex.annotations.serviceWorker : null;
    v.title = 'Relayed to a real browser';
    // What the browser's service worker read, when a test page reported it (POST /webpush/browsers/read).
    v.body = read ? (read.text === null ? '(no data)' : str(read.text)) : 'end-to-end encrypted: only the browser decrypts it';
    if (read) v.meta.push(['read by', "the browser's service worker"]);
    if (leg.delivery !== undefined) v.meta.push(['browser delivery', str(leg.delivery) + (leg.code !== undefined ? ' (code ' + str(leg.code) + ')' : '')]);
    if (leg.channelID !== undefined) v.meta.push(['channel', str(leg.channelID)]);
  } else if (isObject(n.declarative) && n.declarative.shown === 'notification' && isObject(n.declarative.notification)) {
    declarativeNotification(v, n.declarative);
  } else if (isObject(n.declarative) && n.declarative.shown === 'serviceWorkerPush') {
    v.body = isObject(pl) ? str(pl.data) : '';
    v.meta.push(['shown by', "the service worker's push event (not a valid declarative message: " + str(n.declarative.fallback) + ')']);
  } else if (isObject(pl) && pl.base64 === true) {
    v.body = '(binary payload, base64) ' + str(pl.data);
  } else if (isObject(pl)) {
    var text = str(pl.data), parsed = null;
    try { parsed = JSON.parse(text); } catch (e) { parsed = null; }
    var src = isObject(parsed) && isObject(parsed.notification) ? parsed.notification : parsed;
    if (isObject(src) && (src.title !== undefined || src.body !== undefined)) {
      v.title = str(src.title); v.body = str(src.body);
      ['icon', 'image', 'badge', 'tag', 'url'].forEach(function (k) { if (src[k] !== undefined) v.meta.push([k + ' (not loaded)', str(src[k])]); });
      otherKeys(src, ['title', 'body', 'icon', 'image', 'badge', 'tag', 'url']).forEach(function (k) { v.meta.push([k, JSON.stringify(src[k])]); });
    } else {
      v.body = text;
    }
  }
  v.meta.push(['ttl', n.ttl], ['urgency', n.urgency]);
  if (ex.auth && ex.auth.subject) v.meta.push(['VAPID sub', ex.auth.subject]);
  if (n.topic) v.meta.push(['topic', n.topic]);
  if (n.encoding) v.meta.push(['encoding', n.encoding]);
  v.preview = preview(v, n, pl, ex);
  return v;

  // The browser (docs/inbox.md "Previews"). A push message goes to the page's service worker,
  // which decides what to show (Push API: the push event; Notifications API: showNotification);
  // a valid declarative message the browser shows itself. Line limits of a desktop browser
  // notification (the title on 1 line, the body on up to 4): UNCONFIRMED, they vary by browser
  // and operating system.
  function preview(v, n, pl, ex) {
    var facts = [['ttl', n.ttl], ['urgency', n.urgency], ['topic (replaces a pending message with the same topic)', n.topic]];
    if (v.silent) return { kind: 'silent', label: 'empty push (silent)', surfaces: [], facts: facts, hidden: v.silentWhy };
    if (v.decryptError) return { kind: 'unreadable', label: 'undecryptable', surfaces: [], facts: facts,
      hidden: 'the browser cannot decrypt it, so no push event reaches the service worker (' + v.decryptError + ')' };
    if (isObject(pl) && pl.browser === 'autopush') return { kind: 'relayed', label: 'relayed to a real browser', surfaces: [], facts: facts,
      hidden: 'encrypted end to end: what the real browser shows is not known here' };
    var declarative = isObject(n.declarative) && n.declarative.shown === 'notification';
    // A declarative message the browser did not show goes to the service worker as any push.
    var json = !declarative && !isObject(n.declarative) && !(isObject(pl) && pl.base64 === true) && (v.title || hasTitleOrBody(pl));
    if (!declarative && !json) {
      return { kind: 'data', label: 'push event (service worker)', surfaces: [], facts: facts,
        hidden: 'the service worker gets the data (' + (isObject(pl) && pl.base64 === true ? 'binary' : 'text') + '); what it shows is up to its code' };
    }
    var d = declarative && isObject(n.declarative.notification) ? n.declarative.notification : {};
    if (declarative) facts.unshift(['shown by', 'the browser itself (declarative)'], ['on click', str(d.navigate)]);
    else facts.unshift(['shown by', 'the service worker, if it calls showNotification(title, {body}) with the JSON it got (the usual convention, not the protocol)']);
    var origin = 'browser · ' + (n.service || 'web push');
    return { kind: 'alert', label: declarative ? 'browser notification (declarative)' : 'browser notification', facts: facts, surfaces: [
      { id: 'desktop', label: 'Desktop notification', app: origin, time: inbox.timeOfDay(ex.receivedAt), badge: v.badge,
        parts: [{ role: 'title', text: v.title, lines: 1 }, { role: 'body', text: v.body, lines: 4 }],
        image: declarative ? d.image : undefined }] };
  }

  function hasTitleOrBody(pl) {
    var parsed = null;
    try { parsed = JSON.parse(str(isObject(pl) ? pl.data : '')); } catch (e) { return false; }
    var src = isObject(parsed) && isObject(parsed.notification) ? parsed.notification : parsed;
    return isObject(src) && (src.title !== undefined || src.body !== undefined);
  }

  // A valid declarative message (WebKit, "Meet Declarative Web Push"; the Push API's declarative
  // push message): the browser shows `notification` itself; `app_badge` sets the app's badge.
  // URLs are listed, never loaded (the page's CSP allows no remote image).
  function declarativeNotification(v, d) {
    var dn = d.notification, shown = ['title', 'body', 'navigate', 'icon', 'image', 'badge'];
    v.title = str(dn.title); v.body = str(dn.body);
    if (typeof d.app_badge === 'number') v.badge = d.app_badge;
    v.meta.push(['shown by', 'the browser (declarative Web Push, no service worker)'], ['navigate', str(dn.navigate)]);
    ['icon', 'image', 'badge'].forEach(function (k) { if (dn[k] !== undefined) v.meta.push([k + ' (not loaded)', str(dn[k])]); });
    otherKeys(dn, shown).forEach(function (k) { v.meta.push([k, typeof dn[k] === 'string' ? dn[k] : JSON.stringify(dn[k])]); });
    v.meta.push(['mutable', d.mutable === true ? 'yes (a service worker may replace it)' : 'no']);
  }
};
// Hooks (docs/inbox.md, "Provider hooks").
// The request's credential: VAPID (RFC 8292 §3: `Authorization: vapid t=<JWT>, k=<public key>`)
// or the legacy `WebPush <JWT>` scheme (with the key in Crypto-Key); other schemes: the inbox's.
window.PushDoubleInboxViews['webpush'].decodeAuthorization = function (scheme, rest, inbox) {
  if (scheme === 'vapid') {
    var t = /(?:^|,)\s*t\s*=\s*([^,\s]+)/.exec(rest), k = /(?:^|,)\s*k\s*=\s*([^,\s]+)/.exec(rest);
    return { label: 'VAPID (Authorization: vapid t=…, k=…)', jwt: t ? inbox.decodeJWT(t[1]) : null, raw: t ? t[1] : rest,
      lines: k ? ['k (application server public key) = ' + k[1]] : [] };
  }
  if (scheme === 'webpush') return { label: 'VAPID, legacy WebPush scheme', jwt: inbox.decodeJWT(rest), raw: rest };
  return null;
};
// One message across its attempts: the payload is encrypted anew on every attempt (RFC 8291), so
// the bodies of two attempts differ; the Topic header and the body size stay.
window.PushDoubleInboxViews['webpush'].messageIdentity = function (req, t) {
  return (t.header(req.headers, 'topic') || '') + '|' + (req.bodySize || 0);
};
