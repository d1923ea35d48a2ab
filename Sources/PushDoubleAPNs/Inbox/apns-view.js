// The inbox's view of apns notifications (the provider's part of /inbox/views.js; InboxView in
// PushDoubleCore, docs/inbox.md). Vanilla JS; data reaches the DOM only as text, through the inbox.
// APNs: payload `aps` (alert string or {title, subtitle, body}, badge, sound, thread-id,
// content-available) and the apns-* headers; no alert, sound or badge = silent (docs/apns.md §9).
(window.PushDoubleInboxViews = window.PushDoubleInboxViews || {})['apns'] = function (ex, index, inbox) {
  var str = inbox.str, isObject = inbox.isObject, otherKeys = inbox.otherKeys;
  var n = isObject(ex.notification) ? ex.notification : {};
  if (n.channelId !== undefined) return window.PushDoubleInboxViews['apns'].liveActivity(ex, n, inbox);
  var h = isObject(n.headers) ? n.headers : {};
  var p = isObject(n.payload) ? n.payload : {};
  var aps = isObject(p.aps) ? p.aps : {};
  var v = { platform: 'ios', app: h['apns-topic'] || ex.topic || '(no apns-topic)', title: '', subtitle: '', body: '', meta: [] };
  if (typeof aps.alert === 'string') v.body = aps.alert;
  else if (isObject(aps.alert)) { v.title = str(aps.alert.title); v.subtitle = str(aps.alert.subtitle); v.body = str(aps.alert.body); }
  var hasAlert = aps.alert !== undefined && aps.alert !== null, hasSound = aps.sound !== undefined && aps.sound !== null;
  var hasBadge = aps.badge !== undefined && aps.badge !== null;
  v.silent = !hasAlert && !hasSound && !hasBadge;
  if (v.silent) v.silentWhy = aps['content-available'] === 1 ? 'background push (content-available: 1, no alert, sound or badge)' : 'no alert, sound or badge';
  if (hasBadge) v.badge = aps.badge;
  v.meta.push(['push type', n.pushType], ['priority', n.priority]);
  if (hasSound) v.meta.push(['sound', isObject(aps.sound) ? JSON.stringify(aps.sound) : aps.sound]);
  if (aps['thread-id'] !== undefined) v.meta.push(['thread-id', aps['thread-id']]);
  if (h['apns-collapse-id'] !== undefined) v.meta.push(['collapse-id', h['apns-collapse-id']]);
  if (aps['content-available'] !== undefined) v.meta.push(['content-available', aps['content-available']]);
  otherKeys(aps, ['alert', 'badge', 'sound', 'thread-id', 'content-available']).forEach(function (k) { v.meta.push(['aps.' + k, JSON.stringify(aps[k])]); });
  otherKeys(p, ['aps']).forEach(function (k) { v.meta.push(['custom ' + k, JSON.stringify(p[k])]); });
  if (n.payloadError) v.meta.push(['payload error', n.payloadError]);
  return v;
};
// Hook (docs/inbox.md, "Provider hooks"): the apns-id header, when the sender set one, names the
// notification across its attempts; without one, the request body identifies it.
window.PushDoubleInboxViews['apns'].messageIdentity = function (req, t) {
  return t.header(req.headers, 'apns-id') || t.body(req);
};
// A push on a certificate-authenticated connection: the TLS client certificate it came with.
window.PushDoubleInboxViews['apns'].credentialDetails = function (ex, inbox) {
  if (!ex.auth || ex.auth.scheme !== 'apns-certificate') return [];
  var ce = ex.auth.extra || {};
  return [{ label: 'TLS client certificate (certificate-based provider authentication)',
            text: (ex.auth.subject || '(unreadable)') + (ce.environment ? '\nenvironment ' + ce.environment : '') +
              (ce.topics ? '\ntopics ' + ce.topics : '') }];
};
// A broadcast (endpoint apns.broadcast: `{bundleId, channelId, pushType, priority, expiration,
// payload}`) as the Live Activity that got it shows it: the alert when there is one, else the
// event; the content-state and the other Live Activity keys as facts (docs/apns.md "Devices
// subscribed to channels"). A Live Activity updates on screen, so it is never "silent".
window.PushDoubleInboxViews['apns'].liveActivity = function (ex, n, inbox) {
  var str = inbox.str, isObject = inbox.isObject, otherKeys = inbox.otherKeys;
  var p = isObject(n.payload) ? n.payload : {};
  var aps = isObject(p.aps) ? p.aps : {};
  var event = str(aps.event || 'update');
  var v = { platform: 'ios', app: n.bundleId || ex.topic || '(no bundle id)', title: 'Live Activity ' + event, subtitle: '', body: '', meta: [] };
  if (typeof aps.alert === 'string') v.body = aps.alert;
  else if (isObject(aps.alert)) { v.title = str(aps.alert.title) || v.title; v.body = str(aps.alert.body); }
  if (!v.body && isObject(aps['content-state'])) v.body = JSON.stringify(aps['content-state']);
  v.silent = false;
  v.meta.push(['channel', n.channelId], ['event', aps.event], ['priority', n.priority]);
  if (aps.timestamp !== undefined) v.meta.push(['timestamp', typeof aps.timestamp === 'number' ? new Date(aps.timestamp * 1000).toISOString() : aps.timestamp]);
  if (aps['content-state'] !== undefined) v.meta.push(['content-state', JSON.stringify(aps['content-state'])]);
  ['stale-date', 'dismissal-date', 'relevance-score'].forEach(function (k) { if (aps[k] !== undefined) v.meta.push([k, aps[k]]); });
  otherKeys(aps, ['alert', 'event', 'timestamp', 'content-state', 'stale-date', 'dismissal-date', 'relevance-score'])
    .forEach(function (k) { v.meta.push(['aps.' + k, JSON.stringify(aps[k])]); });
  if (n.fromStorage) v.meta.push(['delivered', 'from the channel\'s stored message, when the device subscribed']);
  if (Array.isArray(n.liveActivityProblems)) v.meta.push(['payload problems', n.liveActivityProblems.join('; ')]);
  return v;
};
// Hook (docs/inbox.md, "Provider hooks"): the Live Activity updates a registered device received
// on the channels it subscribed to (GET /apns/devices/{id}/channels), each linked to its
// broadcast's exchange (matched by apns-request-id) when the page holds it.
window.PushDoubleInboxViews['apns'].deviceNotifications = function (entry, h) {
  if (!entry.device) return [];
  return h.get('/apns/devices/' + encodeURIComponent(entry.device.id) + '/channels').then(function (doc) {
    return (doc && Array.isArray(doc.updates) ? doc.updates : []).map(function (u) {
      var sent = h.findExchange(function (x) {
        if (x.endpoint !== 'apns.broadcast' || !x.response || !Array.isArray(x.response.headers)) return false;
        return x.response.headers.some(function (kv) { return kv[0] === 'apns-request-id' && kv[1] === u.requestId; });
      });
      return { seq: sent ? sent.seq : null, provider: 'apns', endpoint: 'apns.broadcast', topic: u.bundleId, receivedAt: u.deliveredAt,
               notification: { bundleId: u.bundleId, channelId: u.channelId, priority: u.priority, payload: u.payload, fromStorage: u.fromStorage } };
    });
  });
};
