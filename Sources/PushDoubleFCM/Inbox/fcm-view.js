// The inbox's view of fcm notifications (the provider's part of /inbox/views.js; InboxView in
// PushDoubleCore, docs/inbox.md). Vanilla JS; data reaches the DOM only as text, through the inbox.
// FCM: message.notification {title, body, image} under android.notification's fields
// (docs/fcm.md §2.1-2.3, either spelling); no notification at all = data-only, silent.
(window.PushDoubleInboxViews = window.PushDoubleInboxViews || {})['fcm'] = function (ex, index, inbox) {
  var str = inbox.str, isObject = inbox.isObject, pick = inbox.pick;
  var n = isObject(ex.notification) ? ex.notification : {};
  var mn = isObject(n.notification) ? n.notification : {};
  var android = isObject(n.android) ? n.android : {};
  var an = isObject(android.notification) ? android.notification : {};
  var v = { platform: 'android', app: n.project ? 'project ' + n.project : 'fcm', meta: [] };
  v.title = str(pick(an, 'title') !== undefined ? an.title : mn.title);
  v.body = str(pick(an, 'body') !== undefined ? an.body : mn.body);
  v.subtitle = '';
  var image = pick(an, 'image') !== undefined ? an.image : mn.image;
  v.silent = !isObject(n.notification) && !isObject(android.notification);
  if (v.silent) v.silentWhy = 'data-only message (no notification block)';
  if (image !== undefined) v.meta.push(['image (not loaded)', image]);
  [['channel', 'channel_id', 'channelId'], ['icon', 'icon'], ['color', 'color'], ['sound', 'sound'], ['tag', 'tag'],
    ['click action', 'click_action', 'clickAction'], ['count', 'notification_count', 'notificationCount'],
    ['priority', 'notification_priority', 'notificationPriority'], ['visibility', 'visibility']].forEach(function (f) {
    var val = pick.apply(null, [an].concat(f.slice(1)));
    if (val !== undefined) v.meta.push([f[0], isObject(val) ? JSON.stringify(val) : val]);
  });
  var ck = pick(android, 'collapse_key', 'collapseKey');
  if (ck !== undefined) v.meta.push(['collapse_key', ck]);
  if (android.priority !== undefined) v.meta.push(['android priority', android.priority]);
  if (android.ttl !== undefined) v.meta.push(['ttl', android.ttl]);
  var data = isObject(android.data) ? android.data : n.data;
  if (isObject(data)) v.meta.push(['data', JSON.stringify(data)]);
  if (isObject(n.target)) v.meta.push(['target', JSON.stringify(n.target)]);
  ['apns', 'webpush'].forEach(function (k) { if (n[k] !== undefined) v.meta.push([k + ' block', 'present (other platforms)']); });
  return v;
};
// Hooks (docs/inbox.md, "Provider hooks").
// A validate_only send (docs/fcm.md) is checked and answered but delivers nothing.
window.PushDoubleInboxViews['fcm'].delivers = function (ex, index, inbox) {
  return !(inbox.isObject(ex.notification) && ex.notification.validateOnly === true);
};
// A token request: the assertion's claims as the token endpoint recorded them.
window.PushDoubleInboxViews['fcm'].credentialDetails = function (ex, inbox) {
  if (!inbox.isObject(ex.notification) || !ex.notification.claims) return [];
  return [{ label: 'Assertion as the token endpoint recorded it', text: inbox.pretty(ex.notification) }];
};
