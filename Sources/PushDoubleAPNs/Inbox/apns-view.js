// The inbox's view of apns notifications (the provider's part of /inbox/views.js; InboxView in
// PushDoubleCore, docs/inbox.md). Vanilla JS; data reaches the DOM only as text, through the inbox.
// APNs: payload `aps` (alert string or {title, subtitle, body}, badge, sound, thread-id,
// content-available) and the apns-* headers; no alert, sound or badge = silent (docs/apns.md §9).
(window.PushDoubleInboxViews = window.PushDoubleInboxViews || {})['apns'] = function (ex, index, inbox) {
  var str = inbox.str, isObject = inbox.isObject, otherKeys = inbox.otherKeys;
  var n = isObject(ex.notification) ? ex.notification : {};
  // A broadcast (a channel's exchange, or an update a subscribed device received): its facts
  // from `liveActivity` below, its preview as the Live Activity shows it.
  if (n.channelId !== undefined) {
    var la = window.PushDoubleInboxViews['apns'].liveActivity(ex, n, inbox);
    la.preview = liveActivity(la, isObject(n.payload) && isObject(n.payload.aps) ? n.payload.aps : {}, n, ex);
    return la;
  }
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
  // The preview (docs/inbox.md "Previews"): a push to a device or a broadcast; a channel
  // management request shows nothing on any screen.
  if (String(ex.endpoint || '').indexOf('apns.channels') !== 0) {
    v.preview = ex.endpoint === 'apns.broadcast' || n.pushType === 'liveactivity' ? liveActivity(v, aps, n, ex)
      : (v.silent ? silentPreview(v, aps, n) : alertPreview(v, aps, n, ex));
  }
  return v;

  // Line limits (docs/inbox.md "Previews"; UNCONFIRMED: Apple documents none): a banner and a
  // lock-screen notification show the title and the subtitle on one line each and the body on
  // up to 4, cut with an ellipsis; the expanded notification (long press) shows everything.
  function alertPreview(v, aps, n, ex) {
    var alert = isObject(aps.alert) ? aps.alert : {};
    var title = v.title || locText(alert, 'title'), subtitle = v.subtitle || locText(alert, 'subtitle'), body = v.body || locText(alert, '');
    var parts = function (limit) {
      return [{ role: 'title', text: title, lines: limit ? 1 : 0 }, { role: 'subtitle', text: subtitle, lines: limit ? 1 : 0 },
              { role: 'body', text: body, lines: limit ? 4 : 0 }];
    };
    var hasText = !!(title || subtitle || body);
    var level = aps['interruption-level'];
    // Interruption levels (Apple, "Generating a remote notification", the aps `interruption-level` key).
    var LEVELS = { passive: 'added to the notification list without sound or lighting the screen',
      active: 'shown at once, with sound',
      'time-sensitive': 'shown at once, may break through a Focus and stays on the lock screen longer',
      critical: 'shown at once, plays its sound even when muted or in a Focus (needs an entitlement)' };
    var p = { kind: 'alert', label: hasText ? 'iOS alert' : 'iOS badge/sound only', surfaces: [], facts: [] };
    if (hasText) {
      p.surfaces.push({ id: 'banner', label: 'Banner (unlocked)', app: v.app, time: 'now', parts: parts(true) },
                      { id: 'lock-screen', label: 'Lock screen', app: v.app, time: inbox.timeOfDay(ex.receivedAt), parts: parts(true) },
                      { id: 'expanded', label: 'Expanded (long press)', app: v.app, parts: parts(false) });
    } else {
      p.hidden = 'no alert text: the push only ' + [v.badge !== undefined ? 'sets the badge' : '', aps.sound !== undefined && aps.sound !== null ? 'plays a sound' : '']
        .filter(Boolean).join(' and ');
    }
    p.facts.push(['app icon badge', v.badge === undefined ? 'unchanged' : (Number(v.badge) === 0 ? '0 (badge removed)' : v.badge)],
                 ['sound', soundText(aps.sound)],
                 ['interruption level', (level === undefined ? 'active (default)' : level) + ' — ' + (LEVELS[level === undefined ? 'active' : level] || 'not a level iOS knows: treated as active')]);
    if (aps['relevance-score'] !== undefined) p.facts.push(['relevance score', aps['relevance-score']]);
    if (aps['thread-id'] !== undefined) p.facts.push(['grouped by thread-id', aps['thread-id']]);
    if (aps.category !== undefined) p.facts.push(['category (actions)', aps.category]);
    if (aps['mutable-content'] === 1) p.facts.push(['mutable-content', 'a notification service extension may change it before it shows']);
    if (aps['content-available'] === 1) p.facts.push(['content-available', 'the app is also woken in the background']);
    p.facts.push(['apns-priority', n.priority === undefined ? '' : n.priority + (Number(n.priority) === 10 ? ' (immediately)' : Number(n.priority) === 5 ? ' (power-considerate)' : '')]);
    return p;
  }

  // A background push: delivered to the app, never drawn.
  function silentPreview(v, aps, n) {
    return { kind: 'silent', label: 'silent (background)', surfaces: [],
      hidden: v.silentWhy + ': iOS wakes the app in the background (at its discretion, throttled), nothing is shown',
      facts: [['push type', n.pushType], ['apns-priority', n.priority]] };
  }

  // A Live Activity push (apns-push-type liveactivity, to one activity's token or a broadcast on
  // a channel): `aps.event` start / update / end, `content-state` (the activity's new state,
  // drawn by the app's widget: listed here as key: value), `timestamp`, `stale-date`,
  // `dismissal-date`, and an optional `alert` that lights the screen (Apple, "Starting and
  // updating Live Activities with ActivityKit push notifications").
  function liveActivity(v, aps, n, ex) {
    var event = str(aps.event) || '(no event)';
    var broadcast = ex.endpoint === 'apns.broadcast';
    var cs = isObject(aps['content-state']) ? aps['content-state'] : null;
    var state = cs ? Object.keys(cs).map(function (k) { return k + ': ' + (typeof cs[k] === 'string' ? cs[k] : JSON.stringify(cs[k])); }).join('\n') : '';
    // The topic of a Live Activity push is the app's bundle id + `.push-type.liveactivity`.
    var app = broadcast ? str(n.bundleId || v.app) : str(v.app).replace(/\.push-type\.liveactivity$/, '');
    // Not a silent push: the activity on the lock screen changes. The row says so.
    v.silent = false; delete v.silentWhy;
    if (!v.title) { v.title = 'Live Activity ' + event; v.body = state; }
    var p = { kind: 'live-activity', label: 'Live Activity ' + event + (broadcast ? ' (broadcast)' : ''), facts: [],
      surfaces: [{ id: 'live-activity', label: 'Live Activity (lock screen)', app: app, time: inbox.timeOfDay(ex.receivedAt),
        parts: [{ role: 'event', text: event === 'end' ? 'ended' : event }, { role: 'state', text: state || '(no content-state)' }] }] };
    var alert = aps.alert;
    if (alert !== undefined && alert !== null) {
      var a = isObject(alert) ? alert : { body: alert };
      p.surfaces.push({ id: 'live-activity-alert', label: 'Alert (the activity expands, the screen lights)', app: app, time: 'now',
        parts: [{ role: 'title', text: locText(a, 'title'), lines: 1 }, { role: 'body', text: locText(a, ''), lines: 4 }] });
    }
    if (broadcast) p.facts.push(['channel', str(n.channelId) + ' (every activity subscribed to it)']);
    if (aps.timestamp !== undefined) p.facts.push(['timestamp', epoch(aps.timestamp)]);
    if (aps['stale-date'] !== undefined) p.facts.push(['stale date', epoch(aps['stale-date'])]);
    if (aps['dismissal-date'] !== undefined) p.facts.push(['dismissal date', epoch(aps['dismissal-date'])]);
    if (aps['relevance-score'] !== undefined) p.facts.push(['relevance score', aps['relevance-score']]);
    if (aps['attributes-type'] !== undefined) p.facts.push(['attributes type (push to start)', aps['attributes-type']]);
    if (Array.isArray(n.liveActivityProblems)) p.facts.push(['payload problems', n.liveActivityProblems.join('; ')]);
    p.facts.push(['sound', soundText(isObject(alert) ? alert.sound : undefined)], ['apns-priority', n.priority]);
    return p;
  }

  // A text of the alert, or its localization key (title-loc-key, subtitle-loc-key, loc-key) as
  // the app's strings file would resolve it: shown as [key](args).
  function locText(a, which) {
    var plain = which ? a[which] : a.body;
    if (plain !== undefined && plain !== null) return str(plain);
    var key = a[(which ? which + '-' : '') + 'loc-key'], args = a[(which ? which + '-' : '') + 'loc-args'];
    return key === undefined ? '' : '[' + str(key) + ']' + (Array.isArray(args) ? '(' + args.join(', ') + ')' : '');
  }

  function soundText(sound) {
    if (sound === undefined || sound === null) return 'none';
    if (isObject(sound)) return (sound.critical === 1 ? 'critical ' : '') + str(sound.name || '') + (sound.volume !== undefined ? ' at volume ' + sound.volume : '');
    return sound === 'default' ? 'default' : str(sound) + ' (a sound file of the app)';
  }

  function epoch(s) { var d = new Date(Number(s) * 1000); return isNaN(d) ? str(s) : str(s) + ' (' + d.toISOString() + ')'; }
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
