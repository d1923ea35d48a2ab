// The inbox's view of expo notifications (the provider's part of /inbox/views.js; InboxView in
// PushDoubleCore, docs/inbox.md). Vanilla JS; data reaches the DOM only as text, through the inbox.
// Expo: the recipient's message of the body (docs/expo.md §2): title, subtitle, body, sound,
// badge, channelId; no title and no body (data-only, `_contentAvailable`) = silent.
(window.PushDoubleInboxViews = window.PushDoubleInboxViews || {})['expo'] = function (ex, index, inbox) {
  var str = inbox.str, isObject = inbox.isObject, otherKeys = inbox.otherKeys;
  var body = ex.notification;
  var messages = Array.isArray(body) ? body : (isObject(body) ? [body] : []);
  var flat = [];
  messages.forEach(function (m) {
    var to = isObject(m) ? m.to : undefined;
    (Array.isArray(to) ? to : [to]).forEach(function (t) { flat.push(m); });
  });
  var m = isObject(flat[index < 0 ? 0 : index]) ? flat[index < 0 ? 0 : index] : {};
  var v = { platform: 'expo', app: ex.topic ? 'project ' + ex.topic : 'expo', title: str(m.title), subtitle: str(m.subtitle), body: str(m.body), meta: [] };
  v.silent = m.title === undefined && m.body === undefined;
  if (v.silent) v.silentWhy = m._contentAvailable ? 'background push (_contentAvailable, no title or body)' : 'data-only message (no title or body)';
  if (m.badge !== undefined) v.badge = m.badge;
  [['sound', 'sound'], ['channelId', 'channelId'], ['categoryId', 'categoryId'], ['priority', 'priority'], ['ttl', 'ttl'],
    ['_contentAvailable', '_contentAvailable'], ['data', 'data']].forEach(function (f) {
    if (m[f[1]] !== undefined && m[f[1]] !== null) v.meta.push([f[0], isObject(m[f[1]]) ? JSON.stringify(m[f[1]]) : m[f[1]]]);
  });
  otherKeys(m, ['to', 'title', 'subtitle', 'body', 'badge', 'sound', 'channelId', 'categoryId', 'priority', 'ttl', '_contentAvailable', 'data'])
    .forEach(function (k) { v.meta.push([k, JSON.stringify(m[k])]); });
  var r = index >= 0 && ex.recipients ? ex.recipients[index] : null;
  if (r && r.detail) v.meta.push(['ticket', JSON.stringify(r.detail)]);
  // A receipt the sender fetched later annotates the entry: {receipts: {ticketId: {receipt, fetchedAt, fetches}}}.
  var receipts = isObject(ex.annotations) && isObject(ex.annotations.receipts) ? ex.annotations.receipts : null;
  var ticketID = r && isObject(r.detail) ? r.detail.id : null;
  if (receipts && ticketID && isObject(receipts[ticketID])) v.meta.push(['receipt', JSON.stringify(receipts[ticketID].receipt)]);
  return v;
};
