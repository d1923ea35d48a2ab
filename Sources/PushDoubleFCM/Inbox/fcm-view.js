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
  if (ex.endpoint === 'fcm.send' || (!ex.endpoint && !n.claims)) v.preview = preview(v, n, an, android, image, ex);
  return v;

  // Android (docs/inbox.md "Previews"): collapsed in the notification shade, the title and the
  // text on one line each (Android, "Create a notification": the text is truncated to fit one
  // line); expanded, the whole text (as a BigTextStyle would show it; that the FCM SDK's own
  // notification expands so: UNCONFIRMED). The image is listed, never loaded.
  function preview(v, n, an, android, image, ex) {
    var facts = [], f = function (label) {
      var val = pick.apply(null, [an].concat(Array.prototype.slice.call(arguments, 1)));
      if (val !== undefined) facts.push([label, isObject(val) ? JSON.stringify(val) : val]);
      return val;
    };
    if (n.validateOnly === true) return { kind: 'silent', label: 'validate only', surfaces: [], hidden: 'validate_only: checked by FCM, delivered to no device', facts: facts };
    if (v.silent) {
      return { kind: 'silent', label: 'data message (silent)', surfaces: [], facts: [['data', isObject(n.data) ? JSON.stringify(n.data) : ''], ['android priority', android.priority]],
        hidden: 'a data-only message: the app gets it (onMessageReceived), the system draws nothing' };
    }
    var channel = f('channel', 'channel_id', 'channelId');
    if (channel === undefined) facts.push(['channel', "the app's default channel (manifest), else FCM's fallback channel"]);
    f('small icon', 'icon'); f('colour', 'color'); f('sound', 'sound'); f('tag (replaces the one with the same tag)', 'tag');
    f('on tap', 'click_action', 'clickAction'); f('count', 'notification_count', 'notificationCount');
    f('notification priority', 'notification_priority', 'notificationPriority'); f('visibility on the lock screen', 'visibility');
    if (android.priority !== undefined) facts.push(['message priority', android.priority]);
    if (android.ttl !== undefined) facts.push(['ttl', android.ttl]);
    var app = v.app, when = inbox.timeOfDay(ex.receivedAt);
    var parts = function (limit) { return [{ role: 'title', text: v.title, lines: 1 }, { role: 'body', text: v.body, lines: limit ? 1 : 0 }]; };
    return { kind: 'alert', label: 'Android notification', facts: facts, surfaces: [
      { id: 'shade', label: 'Notification shade (collapsed)', app: app, time: when, parts: parts(true), image: image },
      { id: 'expanded', label: 'Expanded', app: app, time: when, parts: parts(false), image: image }] };
  }

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
