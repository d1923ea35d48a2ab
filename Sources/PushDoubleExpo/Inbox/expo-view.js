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
  var fetched = receipts && ticketID && isObject(receipts[ticketID]) ? receipts[ticketID] : null;
  if (fetched) v.meta.push(['receipt', JSON.stringify(fetched.receipt)]);
  v.outcome = outcome(r, fetched, ticketID);
  if (ex.endpoint === 'expo.send' || !ex.endpoint) v.preview = preview(v, m, ex);
  return v;

  // What became of the message for this device, shown on the device: the ticket's error, else
  // the receipt the sender fetched, else that no receipt was fetched yet (docs/expo.md §4).
  function outcome(r, fetched, ticketID) {
    var d = r && isObject(r.detail) ? r.detail : null;
    if (d && d.status === 'error') return { label: 'ticket', text: 'error ' + str(isObject(d.details) ? d.details.error : '') + (d.message ? ': ' + str(d.message) : ''), bad: true };
    if (fetched && isObject(fetched.receipt)) {
      var rc = fetched.receipt;
      if (rc.status === 'ok') return { label: 'receipt', text: 'ok (handed to APNs / FCM)', bad: false };
      return { label: 'receipt', text: 'error ' + str(isObject(rc.details) ? rc.details.error : '') + (rc.message ? ': ' + str(rc.message) : ''), bad: true };
    }
    if (ticketID) return { label: 'receipt', text: 'not fetched yet (ticket ' + str(ticketID) + ')', bad: false };
    return null;
  }

  // Expo hands the message to APNs or FCM by the device's platform, which the token does not
  // say: both are drawn, with the iOS and Android line limits of the APNs and FCM previews
  // (docs/inbox.md "Previews"); `subtitle` and `badge` are iOS only, `channelId` Android only
  // (Expo, "Sending notifications with Expo's push API", message request format).
  function preview(v, m, ex) {
    var facts = [['sound', m.sound === undefined || m.sound === null ? 'none' : (isObject(m.sound) ? JSON.stringify(m.sound) : m.sound)],
      ['badge (iOS)', m.badge], ['channel (Android)', m.channelId], ['interruption level (iOS)', m.interruptionLevel],
      ['priority', m.priority], ['ttl', m.ttl], ['category', m.categoryId]];
    if (v.silent) return { kind: 'silent', label: 'data message (silent)', surfaces: [], facts: facts.concat([['data', isObject(m.data) ? JSON.stringify(m.data) : '']]),
      hidden: v.silentWhy + ': the app gets the data, nothing is drawn' };
    var when = inbox.timeOfDay(ex.receivedAt);
    return { kind: 'alert', label: 'Expo → iOS / Android', facts: facts, surfaces: [
      { id: 'ios-banner', label: 'On iOS: banner / lock screen', app: v.app, time: when, badge: v.badge,
        parts: [{ role: 'title', text: v.title, lines: 1 }, { role: 'subtitle', text: v.subtitle, lines: 1 }, { role: 'body', text: v.body, lines: 4 }] },
      { id: 'android-shade', label: 'On Android: notification shade (collapsed)', app: v.app, time: when,
        parts: [{ role: 'title', text: v.title, lines: 1 }, { role: 'body', text: v.body, lines: 1 }] }] };
  }
};
