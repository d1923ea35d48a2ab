// The inbox's view of apns notifications (the provider's part of /inbox/views.js; InboxView in
// PushDoubleCore, docs/inbox.md). Vanilla JS; data reaches the DOM only as text, through the inbox.
// APNs: payload `aps` (alert string or {title, subtitle, body}, badge, sound, thread-id,
// content-available) and the apns-* headers; no alert, sound or badge = silent (docs/apns.md §9).
(window.PushDoubleInboxViews = window.PushDoubleInboxViews || {})['apns'] = function (ex, index, inbox) {
  var str = inbox.str, isObject = inbox.isObject, otherKeys = inbox.otherKeys;
  var n = isObject(ex.notification) ? ex.notification : {};
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
