// PushDouble inbox: the admin listener's web UI (docs/inbox.md). Vanilla JS, no framework,
// no external resource. Every string from the history reaches the DOM through textContent
// or a text node: the page never builds markup from data.
(function () {
  'use strict';

  var INITIAL_PAGE = 2000;     // exchanges read from /history at start
  var MAX_KEPT = 5000;         // exchanges kept in the page (oldest forgotten first)
  var HEALTH_EVERY_MS = 5000;  // /health poll: counts and the dropped-entries banner
  var DEVICE_STATES = ['active', 'unregistered', 'expired', 'invalid', 'otherApp', 'rateLimited'];
  // The device fields the inbox shows by name; any other is a provider's attribute, listed as is.
  var DEVICE_FIELDS = ['id', 'provider', 'token', 'state', 'unregisteredAt', 'environment', 'topic', 'deliveries', 'transitions'];

  var state = {
    exchanges: new Map(),  // seq -> exchange
    order: [],             // kept seqs, ascending
    rows: new Map(),       // seq -> row element
    search: new Map(),     // seq -> lower-cased JSON text (free-text filter)
    byDevice: new Map(),   // device key -> [{seq, index}] (index: a batch's recipient, else -1)
    devices: [],           // GET /devices
    providers: new Set(),
    lastSeq: 0,
    pending: [],
    flushScheduled: false,
    es: null,
    retry: 0,
    retryTimer: null,
    health: null,          // the last GET /health
    selectedDevice: null,
    openSeq: null,
    openedFrom: null,
    deviceListDirty: false,
    devicesTimer: null,
    faultsShown: null,     // JSON of the GET /faults the panel shows
    faultsTimer: null,
    extrasTicket: 0,       // the device inbox's latest deviceNotifications call (older answers are dropped)
    deviceRefreshTimer: null
  };

  // ---------------------------------------------------------------- DOM helpers

  function $(id) { return document.getElementById(id); }

  // An element with attributes and children. `text` sets textContent; every other
  // attribute goes through setAttribute (never href/src from data: none is used here).
  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        var v = attrs[k];
        if (v === undefined || v === null || v === false) return;
        if (k === 'text') e.textContent = String(v);
        else if (k === 'class') e.className = v;
        else if (k.slice(0, 2) === 'on' && typeof v === 'function') e.addEventListener(k.slice(2), v);
        else e.setAttribute(k, String(v));
      });
    }
    (children || []).forEach(function (c) {
      if (c === null || c === undefined || c === false) return;
      e.append(typeof c === 'string' ? document.createTextNode(c) : c);
    });
    return e;
  }

  function say(text, isError) {
    var m = $('message');
    m.textContent = text;
    m.className = 'message' + (isError ? ' error' : '');
  }

  function str(v) { return typeof v === 'string' ? v : (v === undefined || v === null ? '' : String(v)); }
  function isObject(v) { return v !== null && typeof v === 'object' && !Array.isArray(v); }
  function pick(o) {
    if (!isObject(o)) return undefined;
    for (var i = 1; i < arguments.length; i++) if (o[arguments[i]] !== undefined && o[arguments[i]] !== null) return o[arguments[i]];
    return undefined;
  }
  function pretty(v) { try { return JSON.stringify(v, null, 2); } catch (e) { return String(v); } }
  function clock(iso) {
    var d = new Date(iso);
    return isNaN(d) ? str(iso) : d.toISOString().slice(11, 23);
  }
  function ms(a, b) {
    var x = new Date(a).getTime(), y = new Date(b).getTime();
    return isNaN(x) || isNaN(y) ? null : y - x;
  }

  // The console's hooks (console.js and the files beside it: rule builder, device actions,
  // scenario library) are called by name with the element just drawn and its data.
  function consoleHook(name) {
    var c = window.PushDoubleConsole;
    if (c && typeof c[name] === 'function') {
      try { c[name].apply(null, Array.prototype.slice.call(arguments, 1)); } catch (e) { say('Console: ' + e.message, true); }
    }
  }

  // ---------------------------------------------------------------- admin API

  function api(method, path, body) {
    var init = { method: method, headers: { accept: 'application/json' } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      init.headers['content-type'] = 'application/json';
    }
    return fetch(path, init).then(function (r) {
      return r.text().then(function (text) {
        var json = null;
        try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
        if (!r.ok) throw new Error((json && json.error) || (r.status + ' ' + text.slice(0, 200)));
        return json;
      });
    });
  }

  // ---------------------------------------------------------------- exchanges

  function statusOf(ex) { return ex.response && typeof ex.response.status === 'number' ? ex.response.status : null; }

  // The reasons of an exchange: the response's, and those of a batch's refused recipients.
  function reasonsOf(ex) {
    var out = [];
    if (ex.response && ex.response.reason) out.push(ex.response.reason);
    (ex.recipients || []).forEach(function (r) { if (r.reason && out.indexOf(r.reason) < 0) out.push(r.reason); });
    return out;
  }

  // The device key of a registered device id, or of a token no registered device has.
  function deviceKey(provider, deviceID, token) {
    if (deviceID) return 'id:' + deviceID;
    if (token) return 'token:' + provider + ':' + token;
    return null;
  }

  // Who an exchange was for: one entry per recipient (a batch) or one for the request.
  function targetsOf(ex) {
    if (Array.isArray(ex.recipients)) {
      return ex.recipients.map(function (r, i) { return { key: deviceKey(ex.provider, r.deviceID, r.token), index: i }; });
    }
    return [{ key: deviceKey(ex.provider, ex.deviceID, ex.token), index: -1 }];
  }

  function add(ex) {
    if (!ex || typeof ex.seq !== 'number') return;
    state.pending.push(ex);
    if (!state.flushScheduled) {
      state.flushScheduled = true;
      (window.requestAnimationFrame || setTimeout)(flush);
    }
  }

  // Appends the pending exchanges: rows newest first, device index, filters applied.
  function flush() {
    state.flushScheduled = false;
    var batch = state.pending;
    state.pending = [];
    var fragment = document.createDocumentFragment();
    var touchedDevices = new Set();
    var touchedProviders = new Set();
    var untargeted = false;
    batch.sort(function (a, b) { return a.seq - b.seq; });
    batch.forEach(function (ex) {
      if (state.exchanges.has(ex.seq)) return;
      state.exchanges.set(ex.seq, ex);
      state.order.push(ex.seq);
      if (ex.seq > state.lastSeq) state.lastSeq = ex.seq;
      if (!state.providers.has(ex.provider)) { state.providers.add(ex.provider); addProviderOption(ex.provider); }
      touchedProviders.add(ex.provider);
      targetsOf(ex).forEach(function (t) {
        if (!t.key) { untargeted = true; return; }
        if (!state.byDevice.has(t.key)) { state.byDevice.set(t.key, []); state.deviceListDirty = true; }
        state.byDevice.get(t.key).push({ seq: ex.seq, index: t.index });
        touchedDevices.add(t.key);
      });
      var row = makeRow(ex);
      row.hidden = !matches(ex);
      state.rows.set(ex.seq, row);
      fragment.prepend(row);
    });
    $('timeline').prepend(fragment);
    forgetOldest();
    updateSummary();
    if (state.deviceListDirty || touchedDevices.size) renderDeviceList();
    if (state.selectedDevice && (touchedDevices.has(state.selectedDevice) || extrasMayHaveChanged(touchedProviders))) renderDeviceInbox();
    else if (state.selectedDevice && untargeted) refreshDeviceExchangesSoon();
    // A delivery may have moved a registered device (deliveries, transitions), or named one
    // registered since the last read: reread the registry.
    var registered = false;
    touchedDevices.forEach(function (k) { if (k.indexOf('id:') === 0) registered = true; });
    if (registered) reloadDevicesSoon();
  }

  function reloadDevicesSoon() {
    if (state.devicesTimer) return;
    state.devicesTimer = setTimeout(function () {
      state.devicesTimer = null;
      loadDevices().catch(function (err) { say('Could not read the devices: ' + err.message, true); });
    }, 300);
  }

  function forgetOldest() {
    while (state.order.length > MAX_KEPT) {
      var seq = state.order.shift();
      var row = state.rows.get(seq);
      if (row) row.remove();
      state.rows.delete(seq);
      state.exchanges.delete(seq);
      state.search.delete(seq);
    }
    if (state.order.length && state.byDevice.size) {
      var first = state.order[0];
      state.byDevice.forEach(function (list) {
        while (list.length && list[0].seq < first) list.shift();
      });
    }
  }

  function clearExchanges() {
    state.exchanges.clear(); state.order = []; state.rows.clear(); state.search.clear(); state.byDevice.clear();
    $('timeline').replaceChildren();
    state.deviceListDirty = true;
    closeDetail();
    updateSummary();
  }

  function makeRow(ex) {
    var status = statusOf(ex);
    var reasons = reasonsOf(ex);
    var cls = status === null ? 'sx' : 's' + String(status).charAt(0);
    var who = ex.deviceID || ex.token || (Array.isArray(ex.recipients) ? ex.recipients.length + ' recipients' : '');
    var said = rowText(ex);
    var what = el('span', { class: 'what' }, [
      // The kind of a delivered notification ("iOS alert", "silent", a broadcast's "Live Activity
      // update"); a refused row keeps its room for the reason.
      status !== null && status >= 200 && status < 300 && ex.notification !== undefined && ex.notification !== null ? previewChip(ex) : null,
      said ? el('span', { class: 'said' + (said === 'silent' ? ' silent' : ''), 'data-testid': 'row-text', text: said }) : null,
      el('span', { class: 'endpoint', text: ex.request ? ex.request.method + ' ' + ex.endpoint : ex.endpoint }),
      reasons.length ? el('span', { class: 'reason', text: reasons.join(', ') }) : null,
      who ? el('span', { class: 'who', text: who }) : null
    ]);
    var row = el('li', {
      class: 'row', tabindex: '0', 'data-testid': 'exchange-row', 'data-seq': ex.seq, 'data-provider': ex.provider,
      'data-status': status === null ? '' : status, 'aria-label': 'exchange ' + ex.seq
    }, [
      el('span', { class: 'seq', text: '#' + ex.seq }),
      el('span', { class: 'time', text: clock(ex.receivedAt) }),
      el('span', { class: 'provider', text: ex.provider }),
      el('span', { class: 'status ' + cls, text: status === null ? (ex.response ? ex.response.action : '?') : String(status) }),
      what
    ]);
    return row;
  }

  // What a row says the notification says, as a mail client's list shows a subject: the title,
  // else the body (a Web Push message's decrypted text), else "silent", else why it could not
  // be read; '' for an exchange addressed to no device (an OAuth token request, a receipts
  // fetch), whatever it recorded.
  var ROW_TEXT_MAX = 80;
  function rowText(ex) {
    if (ex.notification === undefined || ex.notification === null) return '';
    if (!targetsOf(ex).some(function (t) { return t.key; })) return '';
    var v = notificationView(ex, -1);
    var text = v.decryptError ? 'undecryptable: ' + v.decryptError : (v.title || v.body || (v.silent ? 'silent' : ''));
    text = str(text).replace(/\s+/g, ' ').trim();
    return text.length > ROW_TEXT_MAX ? text.slice(0, ROW_TEXT_MAX - 1) + '…' : text;
  }

  // ---------------------------------------------------------------- filters

  function filterValues() {
    return {
      provider: $('filter-provider').value,
      device: $('filter-device').value.trim().toLowerCase(),
      status: $('filter-status').value.trim().toLowerCase(),
      search: $('filter-search').value.trim().toLowerCase()
    };
  }
  var filters = { provider: '', device: '', status: '', search: '' };

  function searchText(ex) {
    var t = state.search.get(ex.seq);
    if (t === undefined) { t = JSON.stringify(ex).toLowerCase(); state.search.set(ex.seq, t); }
    return t;
  }

  // Status filter terms (spaces or commas): "410", "4xx", or text of a reason, the action or the deciding stage.
  function statusMatches(ex, terms) {
    var status = statusOf(ex);
    var text = reasonsOf(ex).concat([ex.response ? ex.response.action : '', ex.decidedBy ? ex.decidedBy.stage : '']).join(' ').toLowerCase();
    return terms.some(function (t) {
      if (/^\d{3}$/.test(t)) return status === Number(t);
      if (/^\dxx$/.test(t)) return status !== null && String(status).charAt(0) === t.charAt(0);
      return text.indexOf(t) >= 0;
    });
  }

  function matches(ex) {
    var f = filters;
    if (f.provider && ex.provider !== f.provider) return false;
    if (f.device) {
      var ids = [ex.deviceID, ex.token];
      (ex.recipients || []).forEach(function (r) { ids.push(r.deviceID, r.token); });
      if (ids.filter(Boolean).join(' ').toLowerCase().indexOf(f.device) < 0) return false;
    }
    if (f.status) {
      var terms = f.status.split(/[\s,]+/).filter(Boolean);
      if (terms.length && !statusMatches(ex, terms)) return false;
    }
    if (f.search && searchText(ex).indexOf(f.search) < 0) return false;
    return true;
  }

  function applyFilters() {
    filters = filterValues();
    state.rows.forEach(function (row, seq) { row.hidden = !matches(state.exchanges.get(seq)); });
    updateSummary();
  }

  function updateSummary() {
    var shown = 0;
    state.rows.forEach(function (row) { if (!row.hidden) shown++; });
    var total = state.rows.size;
    $('timeline-summary').textContent = total === 0 ? 'No exchange yet: send a push to one of the fakes.'
      : (shown === total ? total + ' exchanges' : shown + ' of ' + total + ' exchanges match the filters')
        + (total >= MAX_KEPT ? ' (the page keeps the newest ' + MAX_KEPT + ')' : '');
  }

  function addProviderOption(p) {
    var select = $('filter-provider');
    for (var i = 0; i < select.options.length; i++) if (select.options[i].value === p) return;
    select.append(el('option', { value: p, text: p }));
  }

  // ---------------------------------------------------------------- live stream

  function setConnection(live) {
    var c = $('connection-state');
    c.textContent = live ? 'live' : 'reconnecting';
    c.className = 'conn' + (live ? ' live' : '');
  }

  // The stream resumes after the last seq the page holds: `?after=` (the server's
  // Last-Event-ID equivalent), reopened by hand so a `lagged` cut-off resumes too.
  function openStream() {
    if (state.es) state.es.close();
    var es = new EventSource('/history/stream?after=' + state.lastSeq);
    state.es = es;
    es.addEventListener('open', function () { state.retry = 0; setConnection(true); });
    es.addEventListener('exchange', function (ev) {
      try { add(JSON.parse(ev.data)); } catch (e) { say('unreadable stream event: ' + e.message, true); }
      loadFaultsSoon();
    });
    es.addEventListener('lagged', function (ev) {
      var d = {};
      try { d = JSON.parse(ev.data); } catch (e) { d = {}; }
      say('The live stream fell behind at #' + str(d.resumeFrom) + '; resuming from there.');
      reconnect();
    });
    es.addEventListener('error', function () { reconnect(); });
  }

  function reconnect() {
    if (state.es) { state.es.close(); state.es = null; }
    setConnection(false);
    var delay = Math.min(5000, 200 * Math.pow(2, state.retry++));
    clearTimeout(state.retryTimer);
    state.retryTimer = setTimeout(function () {
      // Exchanges still waiting to be drawn count as seen: resume after them.
      state.pending.forEach(function (ex) { if (ex.seq > state.lastSeq) state.lastSeq = ex.seq; });
      openStream();
    }, delay);
  }

  function showDropped(dropped, cap) {
    var b = $('dropped-banner');
    if (dropped > 0) {
      b.textContent = 'The history reached its cap (' + cap + ' exchanges) and dropped ' + dropped +
        ' older ones; they are gone from the timeline and from /history.';
      b.hidden = false;
    } else {
      b.hidden = true;
      b.textContent = '';
    }
  }

  function pollHealth() {
    return api('GET', '/health').then(function (h) {
      var hist = h.history || {};
      showDropped(Number(hist.dropped) || 0, hist.cap);
      state.health = h;
      renderCounts();
      if (typeof h.devices === 'number' && h.devices !== state.devices.length) reloadDevicesSoon();
      loadFaultsSoon();
      return h;
    });
  }

  // The header's counts. Devices are the device list's entries (registered devices and the
  // tokens that received pushes without one), so the two always agree.
  function renderCounts() {
    var h = state.health;
    if (!h) return;
    var hist = h.history || {};
    var shown = deviceEntries().length, registered = state.devices.length;
    $('counts').textContent = (hist.count || 0) + ' in history · ' + shown + (shown === 1 ? ' device' : ' devices')
      + (shown !== registered ? ' (' + registered + ' registered)' : '') + ' · ' + (h.faults || 0) + ' rules';
  }

  function loadInitialHistory() {
    return pollHealth().then(function (h) {
      var next = (h.history && h.history.nextSeq) || 1;
      var after = Math.max(0, next - 1 - INITIAL_PAGE);
      return api('GET', '/history?after=' + after + '&limit=' + INITIAL_PAGE);
    }).then(function (doc) {
      (doc.exchanges || []).forEach(add);
      (doc.exchanges || []).forEach(function (ex) { if (ex.seq > state.lastSeq) state.lastSeq = ex.seq; });
    });
  }

  function loadProviders() {
    return api('GET', '/providers').then(function (list) {
      (list || []).forEach(function (p) { state.providers.add(p.provider); addProviderOption(p.provider); });
    });
  }

  // ---------------------------------------------------------------- devices

  function loadDevices() {
    return api('GET', '/devices').then(function (list) {
      state.devices = list || [];
      state.deviceListDirty = true;
      renderDeviceList();
      if (state.selectedDevice) renderDeviceInbox();
    });
  }

  // Registered devices first (registry order), then tokens seen in the history that no
  // registered device has (magic tokens, open world).
  function deviceEntries() {
    var out = state.devices.map(function (d) {
      return { key: 'id:' + d.id, id: d.id, provider: d.provider, token: d.token || '', device: d };
    });
    state.byDevice.forEach(function (list, key) {
      if (key.indexOf('id:') === 0) {
        var id = key.slice(3);
        if (!state.devices.some(function (d) { return d.id === id; })) {
          var ex = state.exchanges.get(list.length ? list[list.length - 1].seq : -1);
          out.push({ key: key, id: id, provider: ex ? ex.provider : '?', token: (ex && ex.token) || '', device: null, gone: true });
        }
        return;
      }
      if (key.indexOf('token:') !== 0) return;
      var rest = key.slice(6), colon = rest.indexOf(':');
      var provider = rest.slice(0, colon), token = rest.slice(colon + 1);
      if (state.devices.some(function (d) { return d.provider === provider && d.token === token; })) return;
      out.push({ key: key, id: null, provider: provider, token: token, device: null });
    });
    return out;
  }

  function entryFor(key) {
    var list = deviceEntries();
    for (var i = 0; i < list.length; i++) if (list[i].key === key) return list[i];
    return null;
  }

  function renderDeviceList() {
    state.deviceListDirty = false;
    var ul = $('device-list');
    var focused = document.activeElement && document.activeElement.parentElement === ul ? document.activeElement.getAttribute('data-key') : null;
    var entries = deviceEntries();
    ul.replaceChildren.apply(ul, entries.map(function (e) {
      var count = deliveredOf(e.key).length;
      var st = e.device ? e.device.state : (e.gone ? 'no longer registered' : unknownTokenState(e.key).text);
      var stateClass = e.device || e.gone ? (st === 'active' ? '' : ' dead') : unknownTokenState(e.key).cls;
      return el('li', {
        class: 'device-item' + (e.key === state.selectedDevice ? ' selected' : ''), tabindex: '0', 'data-testid': 'device-item',
        'data-device-id': e.id || e.token, 'data-key': e.key, 'aria-label': 'device ' + (e.id || e.token)
      }, [
        el('span', { class: 'provider', text: e.provider }),
        el('span', { class: 'id', text: e.id || shortToken(e.token) }),
        el('span', { class: 'note', text: String(count) }),
        el('span', { class: 'state' + stateClass, 'data-testid': 'device-item-state', text: st })
      ]);
    }));
    Array.prototype.forEach.call(ul.children, function (li, i) { if (entries[i]) consoleHook('device', li, entries[i]); });
    if (!entries.length) ul.append(el('li', { class: 'note', text: 'No device registered and none seen yet.' }));
    renderCounts();
    if (focused) Array.prototype.forEach.call(ul.children, function (li) { if (li.getAttribute('data-key') === focused) li.focus(); });
  }

  function shortToken(t) { return t.length > 24 ? t.slice(0, 10) + '…' + t.slice(-8) : t; }

  function selectDevice(key) {
    state.selectedDevice = key;
    Array.prototype.forEach.call($('device-list').children, function (li) {
      li.classList.toggle('selected', li.getAttribute('data-key') === key);
    });
    renderDeviceInbox();
  }

  // Accepted deliveries to a device, newest first: 2xx decided `accepted` (per recipient for a
  // batch), unless the provider's view says the send delivers nothing (its `delivers` hook).
  function deliveredOf(key) {
    var list = deviceHistory(key);
    var out = [];
    for (var i = list.length - 1; i >= 0; i--) {
      var ex = state.exchanges.get(list[i].seq);
      if (ex && delivered(ex, list[i].index)) out.push({ ex: ex, index: list[i].index });
    }
    return out;
  }

  // The keys a device's exchanges are indexed under: its id, and its token as a token no
  // registered device had (the exchanges from before it was registered, e.g. through Apply).
  function keysOf(key) {
    var keys = [key];
    if (key && key.indexOf('id:') === 0) {
      var id = key.slice(3);
      state.devices.forEach(function (d) { if (d.id === id && d.token) keys.push('token:' + d.provider + ':' + d.token); });
    }
    return keys;
  }

  // Every {seq, index} of a device, in seq order, under all its keys.
  function deviceHistory(key) {
    var all = [];
    keysOf(key).forEach(function (k) { (state.byDevice.get(k) || []).forEach(function (x) { all.push(x); }); });
    all.sort(function (a, b) { return a.seq - b.seq; });
    return all;
  }

  // What the list says of a token no registered device has, from the last answer to it: a token
  // the fake accepted because the real service accepts any well-formed unknown token (decided
  // `accepted` by `openWorld`) is not an error; neither is an accepted magic token.
  function unknownTokenState(key) {
    var list = state.byDevice.get(key) || [];
    var last = list.length ? list[list.length - 1] : null;
    var ex = last ? state.exchanges.get(last.seq) : null;
    if (!ex) return { text: 'not registered', cls: ' dead' };
    var ok = index2xx(ex, last.index);
    var how = ex.decidedBy && ex.decidedBy.detail;
    if (ok && how === 'magic') return { text: 'magic token (accepted)', cls: ' open-world' };
    if (ok) return { text: 'open world (accepted)', cls: ' open-world' };
    return { text: 'not registered (refused)', cls: ' dead' };
  }

  function index2xx(ex, index) {
    var status = statusOf(ex);
    if (status === null || status < 200 || status > 299) return false;
    return index >= 0 ? !!(ex.recipients[index] && ex.recipients[index].accepted) : true;
  }

  function delivered(ex, index) {
    var status = statusOf(ex);
    if (status === null || status < 200 || status > 299) return false;
    var accepted = index >= 0 ? !!(ex.recipients[index] && ex.recipients[index].accepted)
      : !!(ex.decidedBy && ex.decidedBy.stage === 'accepted');
    if (!accepted) return false;
    var delivers = viewHook(ex.provider, 'delivers');
    return delivers ? delivers(ex, index, viewHelpers) !== false : true;
  }

  // Whether an exchange of these providers may have reached the selected device in a way no
  // exchange names it (its provider's `deviceNotifications` hook: an APNs broadcast on a channel
  // the device subscribed to).
  function extrasMayHaveChanged(providers) {
    var e = state.selectedDevice ? entryFor(state.selectedDevice) : null;
    return !!(e && providers.has(e.provider) && viewHook(e.provider, 'deviceNotifications'));
  }

  function renderDeviceInbox() {
    var box = $('device-inbox');
    var e = state.selectedDevice ? entryFor(state.selectedDevice) : null;
    if (!e) { box.hidden = true; return; }
    box.hidden = false;
    box.setAttribute('data-device-id', e.id || e.token);
    $('device-inbox-heading').textContent = (e.id ? 'Device ' + e.id : 'Token ' + shortToken(e.token)) + ' (' + e.provider + ')';
    var facts = [['provider', e.provider], ['token', e.token || '(derived by the provider)']];
    if (e.device) {
      facts.push(['state', e.device.state]);
      if (e.device.unregisteredAt) facts.push(['unregistered at', e.device.unregisteredAt]);
      if (e.device.environment) facts.push(['environment', e.device.environment]);
      if (e.device.topic) facts.push(['topic', e.device.topic]);
      facts.push(['deliveries', String(e.device.deliveries)]);
      if (e.device.transitions && e.device.transitions.length) facts.push(['transitions', JSON.stringify(e.device.transitions)]);
      // The provider's own attributes (an Expo device's `receipt`, …), as the registry holds them.
      otherKeys(e.device, DEVICE_FIELDS).forEach(function (k) {
        facts.push([k, typeof e.device[k] === 'string' ? e.device[k] : JSON.stringify(e.device[k])]);
      });
    } else {
      facts.push(['state', e.gone ? 'no longer registered' : unknownTokenState(e.key).text + ' (a magic token or the open world decides)']);
    }
    $('device-facts').replaceChildren.apply($('device-facts'), facts.reduce(function (acc, f) {
      acc.push(el('dt', { text: f[0] }), el('dd', { text: f[1] }));
      return acc;
    }, []));
    var select = $('device-state');
    var current = e.device ? e.device.state : 'active';
    select.replaceChildren.apply(select, DEVICE_STATES.map(function (s) {
      return el('option', { value: s, text: s, selected: s === current ? 'selected' : null });
    }));
    select.value = current;
    $('device-state-note').textContent = e.device ? '' : (e.token ? 'Applying a state registers this token as device "' + newDeviceID(e) + '".'
      : 'The device is gone and its token is unknown: it cannot be registered again from here.');
    consoleHook('deviceDetail', box, e);
    var delivered = deliveredOf(e.key);
    showDeviceNotifications(delivered);
    renderDeviceStory(e.key);
    // More the device received without an exchange naming it, from its provider's view
    // (docs/inbox.md, "Provider hooks": deviceNotifications).
    var more = viewHook(e.provider, 'deviceNotifications');
    if (!more) return;
    var ticket = ++state.extrasTicket;
    Promise.resolve(more(e, viewHelpers)).then(function (extra) {
      if (ticket !== state.extrasTicket || state.selectedDevice !== e.key || !Array.isArray(extra) || !extra.length) return;
      showDeviceNotifications(delivered.concat(extra.map(function (x) { return { ex: x, index: -1 }; })));
    }).catch(function () { /* the exchanges' notifications stay */ });
  }

  // The device inbox's notifications, newest first (by receivedAt; equal times keep their order).
  function showDeviceNotifications(entries) {
    var at = function (d) { var t = Date.parse(d.ex.receivedAt); return isNaN(t) ? 0 : t; };
    var items = entries.map(function (d, i) { return { d: d, i: i }; })
      .sort(function (a, b) { return (at(b.d) - at(a.d)) || (a.i - b.i); })
      .map(function (x) { return renderNotification(x.d.ex, x.d.index); });
    var list = $('device-notifications');
    list.replaceChildren.apply(list, items);
    if (!items.length) list.append(el('li', { class: 'note', text: 'No notification delivered to this device in the kept history.' }));
  }

  // The device's story (story.js): every exchange addressed to it, grouped into notifications
  // with all their attempts; the row text, the preview chip and the view's outcome of each.
  function renderDeviceStory(key) {
    var box = $('device-story');
    if (!window.PushDoubleStory) { box.replaceChildren(); return; }
    var indexOf = new Map();
    var exchanges = [];
    deviceHistory(key).forEach(function (x) {
      var ex = state.exchanges.get(x.seq);
      if (ex && !indexOf.has(x.seq)) { indexOf.set(x.seq, x.index); exchanges.push(ex); }
    });
    window.PushDoubleStory.render(box, exchanges, {
      el: el,
      describe: function (ex) {
        var v = ex.notification === undefined || ex.notification === null ? null : notificationView(ex, indexOf.get(ex.seq));
        return { text: rowText(ex) || ex.endpoint, chip: v ? previewChip(ex, v) : null, outcome: v ? v.outcome : null };
      },
      decision: decisionText, curlOf: curlCommand, clock: clock,
      onOpen: function (seq, from) { openDetail(seq, from); }
    });
    if (!exchanges.length) box.append(el('li', { class: 'note', text: 'No exchange addressed to this device in the kept history.' }));
  }

  // A fake may annotate an entry after the fact (an Expo receipt fetched later, by an exchange
  // addressed to no device): reread the selected device's latest entries.
  var REFRESHED_PER_DEVICE = 20;
  function refreshDeviceExchangesSoon() {
    if (state.deviceRefreshTimer) return;
    state.deviceRefreshTimer = setTimeout(function () {
      state.deviceRefreshTimer = null;
      if (!state.selectedDevice) return;
      deviceHistory(state.selectedDevice).slice(-REFRESHED_PER_DEVICE).forEach(function (x) { refreshExchange(x.seq); });
    }, 300);
  }

  // The id a state change registers an unregistered token (or a removed device) under.
  function newDeviceID(e) { return e.id || (e.provider + '-' + e.token.replace(/[^A-Za-z0-9]/g, '').slice(-16)); }

  function applyDeviceState() {
    var e = state.selectedDevice ? entryFor(state.selectedDevice) : null;
    if (!e) return;
    var s = $('device-state').value;
    var body, id;
    if (e.device) {
      id = e.device.id;
      body = JSON.parse(JSON.stringify(e.device));
    } else {
      id = newDeviceID(e);
      body = { id: id, provider: e.provider, token: e.token };
    }
    body.state = s;
    if (s === 'unregistered') body.unregisteredAt = new Date().toISOString();
    else delete body.unregisteredAt;
    api('PUT', '/devices/' + encodeURIComponent(id), body).then(function () {
      say('Device ' + id + ' is now ' + s + '.');
      if (!e.device) state.selectedDevice = 'id:' + id;
      return loadDevices();
    }).catch(function (err) { say('Could not change the device: ' + err.message, true); });
  }

  // ---------------------------------------------------------------- notifications

  // One notification as its platform shows it: {platform, app, title, subtitle, body,
  // silent, silentWhy, badge, meta: [[label, value]], decryptError}. Each provider brings its
  // own view (window.PushDoubleInboxViews.<provider>, from /inbox/views.js: the provider's
  // Inbox/ folder); a provider without one shows the recorded notification as JSON.
  function notificationView(ex, index) {
    var view = viewOf(ex.provider);
    if (view) return view(ex, index, viewHelpers);
    return { platform: ex.provider, app: ex.topic || ex.provider, title: '', subtitle: '', body: pretty(ex.notification), meta: [] };
  }

  // The view registered for `provider`, or null.
  function viewOf(provider) {
    var views = window.PushDoubleInboxViews || {};
    var view = Object.prototype.hasOwnProperty.call(views, provider) ? views[provider] : null;
    return typeof view === 'function' ? view : null;
  }

  // A hook the provider's view registers beside its function (docs/inbox.md, "Provider hooks":
  // delivers, decodeAuthorization, credentialDetails, messageIdentity), or null.
  function viewHook(provider, name) {
    var view = viewOf(provider);
    return view && Object.prototype.hasOwnProperty.call(view, name) && typeof view[name] === 'function' ? view[name] : null;
  }

  function otherKeys(o, known) {
    return isObject(o) ? Object.keys(o).filter(function (k) { return known.indexOf(k) < 0; }) : [];
  }

  // What a provider's view and its hooks may use (InboxView in docs/inbox.md). decodeJWT is a
  // function declaration further down (hoisted).
  // `get(path)` reads the admin JSON API (a promise), `findExchange(test)` the newest exchange
  // the page holds that passes `test` (deviceNotifications links what it returns to one).
  var viewHelpers = { str: str, isObject: isObject, pick: pick, otherKeys: otherKeys, pretty: pretty, decodeJWT: decodeJWT,
    get: function (path) { return api('GET', path); }, findExchange: findExchange, timeOfDay: timeOfDay };

  function findExchange(test) {
    for (var i = state.order.length - 1; i >= 0; i--) {
      var ex = state.exchanges.get(state.order[i]);
      if (ex && test(ex)) return ex;
    }
    return null;
  }

  // "14:05" (UTC) of an ISO time, as a notification's corner shows when it came; '' if unreadable.
  function timeOfDay(iso) { var d = new Date(iso); return isNaN(d) ? '' : d.toISOString().slice(11, 16); }

  function renderNotification(ex, index) {
    var v = notificationView(ex, index);
    var li = el('li', {
      class: 'notification', 'data-testid': 'notification', 'data-platform': v.platform, 'data-seq': ex.seq,
      'data-silent': v.silent ? 'true' : 'false'
    }, [
      el('div', { class: 'n-head' }, [
        el('span', { class: 'app', text: v.app }),
        v.badge !== undefined ? el('span', { class: 'n-badge', title: 'badge', text: str(v.badge) }) : null,
        el('span', { class: 'when', text: clock(ex.receivedAt) })
      ]),
      el('div', { class: 'n-title', 'data-testid': 'notification-title', text: v.title || '' }),
      v.subtitle ? el('div', { class: 'n-subtitle', 'data-testid': 'notification-subtitle', text: v.subtitle }) : null,
      el('div', { class: 'n-body', 'data-testid': 'notification-body', text: v.body || '' }),
      v.silent ? el('div', { class: 'n-silent', text: 'Silent: ' + v.silentWhy }) : null,
      v.outcome ? el('div', { class: 'n-outcome' + (v.outcome.bad ? ' bad' : ''), 'data-testid': 'notification-outcome',
        'data-bad': v.outcome.bad ? 'true' : 'false', text: str(v.outcome.label) + ': ' + str(v.outcome.text) }) : null,
      v.decryptError ? el('div', { class: 'decrypt-error', 'data-testid': 'decrypt-error', text: v.decryptError }) : null,
      v.meta.length ? el('div', { class: 'n-meta' }, v.meta.filter(function (m) { return m[1] !== undefined && m[1] !== null; }).map(function (m) {
        return el('span', { text: m[0] + ': ' + str(m[1]) });
      })) : null,
      previewOf(v, ex),
      typeof ex.seq === 'number'
        ? el('button', { type: 'button', class: 'n-open', text: 'Exchange #' + ex.seq, onclick: function () { openDetail(ex.seq, this); } })
        : null
    ]);
    return li;
  }

  // The notification as its platform shows it (preview.js), from the view's `preview`; null
  // when the view describes none or preview.js is not loaded.
  function previewOf(v, ex, caption) {
    var P = window.PushDoublePreview;
    return P && v && v.preview ? P.render(v.preview, { platform: v.platform, caption: caption, when: ex && ex.receivedAt }) : null;
  }

  // The short kind label of a row ("iOS alert", "silent", "Live Activity update").
  function previewChip(ex, view) {
    var P = window.PushDoublePreview;
    if (!P) return null;
    var v = view || notificationView(ex, -1);
    return v && v.preview ? P.chip(v.preview) : null;
  }

  // The detail's previews: one per recipient of a batch (the first few), else the request's.
  var DETAIL_PREVIEWS = 5;
  function renderDetailPreview(ex) {
    var box = $('detail-preview');
    if (ex.notification === undefined || ex.notification === null) { box.replaceChildren(el('p', { class: 'note', text: 'No notification in this exchange.' })); return; }
    var indexes = Array.isArray(ex.recipients) && ex.recipients.length
      ? ex.recipients.slice(0, DETAIL_PREVIEWS).map(function (r, i) { return i; }) : [-1];
    var shown = indexes.map(function (i) {
      var v = notificationView(ex, i);
      return previewOf(v, ex, i >= 0 ? 'recipient ' + i + ' ' + str(ex.recipients[i].token) : '');
    }).filter(Boolean);
    if (!shown.length) shown = [el('p', { class: 'note', text: 'This provider\'s view draws no preview.' })];
    box.replaceChildren.apply(box, shown);
  }

  // ---------------------------------------------------------------- exchange detail

  function b64urlText(part) {
    var s = part.replace(/-/g, '+').replace(/_/g, '/');
    while (s.length % 4) s += '=';
    var bin = atob(s);
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  }

  // A compact JWS: its header and claims (JSON), or null when it is not one.
  function decodeJWT(token) {
    var parts = str(token).trim().split('.');
    if (parts.length !== 3) return null;
    try {
      return { header: JSON.parse(b64urlText(parts[0])), claims: JSON.parse(b64urlText(parts[1])), signatureLength: parts[2].length };
    } catch (e) { return null; }
  }

  function header(ex, name) {
    var hs = (ex.request && ex.request.headers) || [];
    for (var i = 0; i < hs.length; i++) if (str(hs[i][0]).toLowerCase() === name) return str(hs[i][1]);
    return null;
  }

  // Credentials the request carried, decoded: first by the provider's view (its
  // `decodeAuthorization` hook, for a scheme of its own), else a Bearer JWT (a provider token),
  // an opaque bearer or another scheme shown as it came; then the JWT assertion of an OAuth
  // token request. Each: {label, jwt, raw, opaque, lines: [text shown under it]}.
  function credentials(ex) {
    var out = [];
    var auth = header(ex, 'authorization');
    if (auth) {
      var m = /^\s*(\S+)\s+(.*)$/.exec(auth);
      var scheme = m ? m[1].toLowerCase() : '', rest = m ? m[2] : auth;
      var decode = viewHook(ex.provider, 'decodeAuthorization');
      var own = decode ? decode(scheme, rest, viewHelpers) : null;
      if (own) {
        out.push(own);
      } else if (scheme === 'bearer') {
        var jwt = decodeJWT(rest);
        out.push(jwt ? { label: 'Bearer JWT', jwt: jwt, raw: rest } : { label: 'Bearer token (opaque, ' + rest.length + ' characters)', opaque: rest });
      } else {
        out.push({ label: 'Authorization (' + (scheme || 'no scheme') + ')', opaque: auth });
      }
    }
    var body = ex.request && ex.request.body;
    if (body && /(^|&)assertion=/.test(body)) {
      var params = new URLSearchParams(body);
      out.push({ label: 'JWT assertion of the token request (grant_type ' + str(params.get('grant_type')) + ')', jwt: decodeJWT(params.get('assertion') || ''), raw: params.get('assertion') });
    }
    return out;
  }

  function verdict(ex) {
    if (!ex.auth) return { cls: 'unknown', text: 'not recorded' };
    if (ex.auth.valid) return { cls: 'valid', text: 'valid' };
    var extra = ex.auth.extra || {};
    var recorded = extra.rule && extra.detail ? extra.rule + ': ' + extra.detail : (extra.detail || extra.rule);
    var why = (ex.decidedBy && ex.decidedBy.stage === 'auth' && ex.decidedBy.detail) || recorded ||
      (ex.response && ex.response.reason) || 'refused';
    return { cls: 'invalid', text: 'invalid: ' + why };
  }

  function epochText(claims) {
    var lines = [];
    ['iat', 'exp', 'nbf'].forEach(function (k) {
      if (typeof claims[k] === 'number') lines.push(k + ' = ' + new Date(claims[k] * 1000).toISOString());
    });
    return lines.join('\n');
  }

  function renderAuth(ex) {
    var box = $('detail-auth');
    var v = verdict(ex);
    var parts = [el('p', {}, ['Signature and credential verdict (as the fake recorded it): ',
      el('span', { class: 'verdict ' + v.cls, 'data-testid': 'auth-verdict', text: v.text })])];
    if (ex.auth) {
      parts.push(el('div', { class: 'auth-part' }, [el('div', { class: 'note', text: 'Identity recorded (' + ex.auth.scheme + ')' }),
        el('pre', { text: pretty(ex.auth) })]));
      if (ex.auth.scheme === 'oauth-bearer') {
        parts.push(el('p', { class: 'note', text: 'OAuth access token → account ' + (ex.auth.issuer || '(unknown to the token store)') +
          (ex.auth.audience ? ', project ' + ex.auth.audience : '') }));
      }
    }
    credentials(ex).forEach(function (c) {
      var kids = [el('div', { class: 'note', text: c.label })];
      if (c.jwt) {
        kids.push(el('pre', { 'data-testid': 'jwt-decoded', text: 'header ' + pretty(c.jwt.header) + '\nclaims ' + pretty(c.jwt.claims) +
          (epochText(c.jwt.claims) ? '\n' + epochText(c.jwt.claims) : '') + '\nsignature: ' + c.jwt.signatureLength + ' base64url characters' }));
      } else if (c.raw) {
        kids.push(el('pre', { text: 'not a decodable JWT: ' + c.raw }));
      }
      (c.lines || []).forEach(function (line) { kids.push(el('pre', { text: str(line) })); });
      if (c.opaque) kids.push(el('pre', { text: c.opaque }));
      parts.push(el('div', { class: 'auth-part' }, kids));
    });
    credentialDetails(ex).forEach(function (d) {
      parts.push(el('div', { class: 'auth-part' }, [el('div', { class: 'note', text: d.label }), el('pre', { text: d.text })]));
    });
    if (parts.length === 1 && !ex.auth) parts.push(el('p', { class: 'note', text: 'No credential in this request.' }));
    box.replaceChildren.apply(box, parts);
  }

  // What the provider's view adds to the credential panel (its `credentialDetails` hook):
  // [{label, text}], none without the hook.
  function credentialDetails(ex) {
    var details = viewHook(ex.provider, 'credentialDetails');
    var list = details ? details(ex, viewHelpers) : null;
    return Array.isArray(list) ? list : [];
  }

  function prettyBody(text, contentType) {
    if (text === null || text === undefined) return null;
    var t = str(text);
    if (/json/i.test(contentType || '') || /^\s*[\[{]/.test(t)) {
      try { return JSON.stringify(JSON.parse(t), null, 2); } catch (e) { return t; }
    }
    if (/x-www-form-urlencoded/i.test(contentType || '')) {
      var lines = [];
      new URLSearchParams(t).forEach(function (value, key) { lines.push(key + ' = ' + value); });
      return lines.join('\n');
    }
    return t;
  }

  function renderRequest(ex) {
    var r = ex.request || {};
    var lines = [str(r.method) + ' ' + str(r.path) + ' ' + str(ex.transport && ex.transport.version)];
    if (r.authority) lines.push(':authority: ' + r.authority);
    if (r.scheme) lines.push(':scheme: ' + r.scheme);
    (r.headers || []).forEach(function (h) { lines.push(str(h[0]) + ': ' + str(h[1])); });
    $('detail-request').textContent = lines.join('\n');
    $('detail-curl').textContent = curlCommand(ex);
    var body;
    if (r.body !== null && r.body !== undefined) body = r.body.length ? prettyBody(r.body, header(ex, 'content-type')) : '(empty body)';
    else if (r.bodyBase64) body = '(binary body, ' + r.bodySize + ' bytes, base64)\n' + r.bodyBase64;
    else body = '(empty body)';
    $('detail-body').textContent = body;
  }

  // POSIX shell single quoting.
  function shellQuote(v) { return "'" + str(v).replace(/'/g, "'\\''") + "'"; }

  // The request again as one curl command line, as recorded: the method; the URL from scheme +
  // authority + path; every recorded header in its order but the pseudo-headers and the framing
  // ones curl writes itself (host, content-length, connection, transfer-encoding); the body byte
  // for byte; and none of curl's own headers: an empty `-H 'Accept:'`, `-H 'User-Agent:'`,
  // (with a body) `-H 'Content-Type:'` and, over HTTP/1.1, `-H 'Expect:'` remove its defaults
  // where the request had no such header. HTTP/2: --http2 over TLS (ALPN h2),
  // --http2-prior-knowledge in cleartext. https: the test CA named by the sender environment
  // ("$PUSHDOUBLE_CA_FILE"). A binary body (base64 in the history) is decoded onto curl's
  // standard input: printf '%s' '<base64>' | base64 -d | curl … --data-binary @- ….
  var CURL_FRAMING = ['host', 'content-length', 'connection', 'transfer-encoding'];
  var CURL_DEFAULTS = ['accept', 'user-agent'];
  function curlCommand(ex) {
    var r = ex.request || {};
    var h2 = !!(ex.transport && ex.transport.version === 'HTTP/2');
    var parts = ['curl', '-sS', '-i'];
    if (h2) parts.push(r.scheme === 'https' ? '--http2' : '--http2-prior-knowledge');
    if (r.scheme === 'https') parts.push('--cacert', '"$PUSHDOUBLE_CA_FILE"');
    parts.push('-X', shellQuote(r.method));
    var present = [];
    (r.headers || []).forEach(function (h) {
      var name = str(h[0]), lower = name.toLowerCase();
      if (name.charAt(0) === ':' || CURL_FRAMING.indexOf(lower) >= 0) return;
      present.push(lower);
      parts.push('-H', shellQuote(name + ': ' + str(h[1])));
    });
    var hasText = r.body !== null && r.body !== undefined && r.body.length > 0, hasBinary = !hasText && !!r.bodyBase64;
    var unset = CURL_DEFAULTS.slice();
    if (hasText || hasBinary) unset.push('content-type');
    if ((hasText || hasBinary) && !h2) unset.push('expect');
    unset.forEach(function (name) {
      if (present.indexOf(name) < 0) parts.push('-H', shellQuote(CURL_HEADER_NAMES[name] + ':'));
    });
    if (hasText) parts.push('--data-binary', shellQuote(r.body));
    else if (hasBinary) parts.push('--data-binary', '@-');
    parts.push(shellQuote(str(r.scheme || 'http') + '://' + str(r.authority || '127.0.0.1') + str(r.path)));
    var command = parts.join(' ');
    return hasBinary ? "printf '%s' " + shellQuote(r.bodyBase64) + ' | base64 -d | ' + command : command;
  }
  var CURL_HEADER_NAMES = { accept: 'Accept', 'user-agent': 'User-Agent', 'content-type': 'Content-Type', expect: 'Expect' };

  function renderResponse(ex) {
    var r = ex.response || {};
    var lines = [(r.status !== null && r.status !== undefined ? 'HTTP ' + r.status : 'no status') + '  (action: ' + str(r.action) + ')'];
    if (r.reason) lines.push('reason: ' + r.reason);
    if (r.detail) lines.push('detail: ' + r.detail);
    if (r.delaySeconds !== undefined && r.delaySeconds !== null) lines.push('delayed ' + r.delaySeconds + ' s');
    (r.headers || []).forEach(function (h) { lines.push(str(h[0]) + ': ' + str(h[1])); });
    var ct = null;
    (r.headers || []).forEach(function (h) { if (str(h[0]).toLowerCase() === 'content-type') ct = str(h[1]); });
    if (r.body) lines.push('', prettyBody(r.body, ct));
    if (Array.isArray(ex.recipients)) {
      lines.push('', 'per recipient:');
      ex.recipients.forEach(function (x, i) {
        lines.push('  [' + i + '] ' + x.token + (x.deviceID ? ' (' + x.deviceID + ')' : '') + ': ' + (x.accepted ? 'accepted' : 'refused ' + str(x.reason)));
      });
    }
    if (ex.annotations) lines.push('', 'annotations: ' + pretty(ex.annotations));
    $('detail-response').textContent = lines.join('\n');
  }

  function decisionText(d) {
    if (!d) return 'not recorded';
    var what = {
      auth: 'authentication', validation: 'validation rule', fault: 'fault rule', quota: 'quota rule',
      device: 'device state', accepted: 'accepted'
    }[d.stage] || d.stage;
    return what + (d.detail ? ': ' + d.detail : '');
  }

  function renderTiming(ex) {
    var t = ex.transport || {}, c = t.connection || {}, tls = c.tls;
    var took = ms(ex.receivedAt, ex.respondedAt);
    var facts = [
      ['received', str(ex.receivedAt)], ['responded', str(ex.respondedAt)],
      ['receivedAt → respondedAt', took === null ? '?' : took + ' ms'],
      ['head → body complete', ms(t.headReceivedAt, t.bodyReceivedAt) === null ? '?' : ms(t.headReceivedAt, t.bodyReceivedAt) + ' ms'],
      ['connection', '#' + str(c.id) + ' on ' + str(c.listener) + ' from ' + str(c.peer) + ' (port ' + str(c.localPort) + ')'],
      ['connection accepted', str(c.acceptedAt)],
      ['stream', str(t.streamID) + ' (' + str(t.version) + ')'],
      ['TLS', tls ? [tls.version, tls.alpn ? 'ALPN ' + tls.alpn : 'no ALPN', tls.serverName ? 'SNI ' + tls.serverName : 'no SNI', tls.cipher].filter(Boolean).join(', ') : 'cleartext']
    ];
    if (t.priorityFramesReceived) facts.push(['priority frames on the connection', String(t.priorityFramesReceived)]);
    if (ex.environment) facts.push(['environment', ex.environment]);
    if (ex.topic) facts.push(['topic', ex.topic]);
    if (ex.deviceID || ex.token) facts.push(['device', (ex.deviceID || '(not registered)') + (ex.token ? ' · token ' + ex.token : '')]);
    var dl = $('detail-timing');
    dl.replaceChildren.apply(dl, facts.reduce(function (acc, f) { acc.push(el('dt', { text: f[0] }), el('dd', { text: f[1] })); return acc; }, []));
  }

  // The attempts of `ex`'s notification: PushDoubleTimeline.group (timeline.js documents the
  // rule: provider + target + the provider's message identity) over the kept exchanges of the
  // same provider.
  function notificationAttempts(ex) {
    var same = [];
    state.order.forEach(function (s) { var e = state.exchanges.get(s); if (e && e.provider === ex.provider) same.push(e); });
    var groups = window.PushDoubleTimeline.group(same);
    for (var i = 0; i < groups.length; i++) {
      if (groups[i].attempts.some(function (a) { return a.seq === ex.seq; })) return groups[i].attempts.map(function (a) { return a.exchange; });
    }
    return [ex];
  }

  // Without timeline.js: the same target's attempts with the same body, as a plain list
  // (gap to the previous attempt, status, retry-after).
  function renderAttemptList(box, current) {
    var body = current.request ? (current.request.body || current.request.bodyBase64) : null;
    var target = current.token || current.deviceID || (current.request && current.request.path);
    var attempts = [];
    state.order.forEach(function (s) {
      var e = state.exchanges.get(s);
      if (!e || e.provider !== current.provider || (e.token || e.deviceID || (e.request && e.request.path)) !== target) return;
      if ((e.request ? (e.request.body || e.request.bodyBase64) : null) === body) attempts.push(e);
    });
    var prev = null;
    box.replaceChildren(el('p', { class: 'note', text: 'Attempts to the same target with the same body (the timeline renderer is not loaded):' }),
      el('ol', { class: 'attempts' }, attempts.map(function (e) {
        var gap = prev ? ms(prev.respondedAt, e.receivedAt) : null;
        var ra = null;
        ((e.response && e.response.headers) || []).forEach(function (h) { if (str(h[0]).toLowerCase() === 'retry-after') ra = str(h[1]); });
        prev = e;
        return el('li', {
          tabindex: '0', 'data-testid': 'attempt', 'data-seq': e.seq, class: e.seq === current.seq ? 'current' : '',
          onclick: function () { openDetail(e.seq); },
          onkeydown: function (ev) { if (ev.key === 'Enter') openDetail(e.seq); }
        }, ['#' + e.seq + ' ' + clock(e.receivedAt) + (gap === null ? '' : ' (+' + gap + ' ms after the previous answer)') + ' → ' +
          (statusOf(e) === null ? str(e.response && e.response.action) : statusOf(e)) + (reasonsOf(e).length ? ' ' + reasonsOf(e).join(', ') : '') +
          (ra ? ' · retry-after ' + ra : '')]);
      })));
  }

  function renderRetryTimeline(ex) {
    var box = $('retry-timeline');
    box.replaceChildren();
    if (window.PushDoubleTimeline && typeof window.PushDoubleTimeline.render === 'function') {
      try {
        window.PushDoubleTimeline.render(box, notificationAttempts(ex), {
          onSelect: function (seq) { openDetail(Number(seq)); }, selectedSeq: ex.seq, list: true
        });
        return;
      } catch (e) {
        say('The timeline renderer failed: ' + e.message, true);
      }
    }
    renderAttemptList(box, ex);
  }

  function openDetail(seq, from, fresh) {
    var ex = state.exchanges.get(seq);
    if (!ex) { say('Exchange #' + seq + ' is no longer kept by the page.', true); return; }
    if (state.openSeq === null) state.openedFrom = from || document.activeElement;
    state.openSeq = seq;
    state.rows.forEach(function (row, s) { row.classList.toggle('selected', s === seq); });
    $('detail-title').textContent = 'Exchange #' + ex.seq + ' · ' + ex.provider + ' · ' + ex.endpoint;
    renderRequest(ex);
    renderAuth(ex);
    renderResponse(ex);
    $('detail-decided').textContent = decisionText(ex.decidedBy);
    renderTiming(ex);
    renderRetryTimeline(ex);
    renderDetailPreview(ex);
    $('detail-notification').textContent = ex.notification === undefined || ex.notification === null ? '(no decoded notification)' : pretty(ex.notification);
    var d = $('exchange-detail');
    var wasOpen = !d.hidden;
    d.hidden = false;
    d.setAttribute('data-seq', ex.seq);
    if (!wasOpen || !d.contains(document.activeElement)) d.focus();
    if (window.history && window.history.replaceState) window.history.replaceState(null, '', '#exchange-' + ex.seq);
    if (!fresh) refreshExchange(ex.seq);
  }

  // The entry as the history holds it now: a fake may have annotated it since the stream
  // delivered it (a receipt fetched later). Redraws the detail when it changed.
  function refreshExchange(seq) {
    api('GET', '/history?after=' + (seq - 1) + '&limit=1').then(function (doc) {
      var now = doc && doc.exchanges && doc.exchanges[0];
      if (!now || now.seq !== seq || !state.exchanges.has(seq)) return;
      if (JSON.stringify(now) === JSON.stringify(state.exchanges.get(seq))) return;
      state.exchanges.set(seq, now);
      state.search.delete(seq);
      if (state.openSeq === seq) openDetail(seq, null, true);
      if (state.selectedDevice) renderDeviceInbox();
    }).catch(function () { /* the copy in hand stays */ });
  }

  // "Copy as curl" of the open exchange: the command into the clipboard (story.js's copy) and
  // shown, the curl details opened.
  function copyDetailCommand() {
    var ex = state.openSeq === null ? null : state.exchanges.get(state.openSeq);
    if (!ex) return;
    var text = curlCommand(ex), button = $('detail-copy-curl');
    $('detail-curl').textContent = text;
    $('detail-curl').parentElement.open = true;
    var copy = window.PushDoubleStory ? window.PushDoubleStory.copyText(text) : Promise.resolve(false);
    copy.then(function (ok) {
      button.setAttribute('data-copied', ok ? 'true' : 'false');
      say(ok ? 'Exchange #' + ex.seq + ' copied as a curl command.' : 'The clipboard refused: select the command under "As a curl command".', !ok);
    });
  }

  function closeDetail() {
    var d = $('exchange-detail');
    if (d.hidden) return;
    d.hidden = true;
    state.openSeq = null;
    if (window.history && window.history.replaceState) window.history.replaceState(null, '', window.location.pathname + window.location.search);
    var back = state.openedFrom;
    state.openedFrom = null;
    if (back && document.body.contains(back) && typeof back.focus === 'function') back.focus();
  }

  // ---------------------------------------------------------------- faults

  // The panel follows GET /faults live: reloaded at every health poll and shortly after each
  // exchange the stream brings (its counters move then); redrawn only when the list changed,
  // so focus and selection in it survive a reload that found nothing new.
  var FAULTS_AFTER_EXCHANGE_MS = 300;
  function loadFaultsSoon() {
    if (state.faultsTimer) return;
    state.faultsTimer = setTimeout(function () {
      state.faultsTimer = null;
      loadFaults().catch(function () { /* the health poll and the stream report an outage */ });
    }, FAULTS_AFTER_EXCHANGE_MS);
  }

  function loadFaults() {
    return api('GET', '/faults').then(function (list) {
      var signature = JSON.stringify(list || []);
      if (signature === state.faultsShown) return;
      state.faultsShown = signature;
      var ul = $('fault-list');
      ul.replaceChildren.apply(ul, (list || []).map(function (f) {
        var rule = f.rule || f;
        // A rule with `times` that fired that often answers nothing more: shown as used up.
        var usedUp = typeof rule.times === 'number' && Number(f.fired) >= rule.times;
        return el('li', { class: 'fault-item' + (usedUp ? ' used-up' : ''), 'data-testid': 'fault-item', 'data-fault-id': rule.id }, [
          el('div', { class: 'f-head' }, [
            el('span', { class: 'f-id', text: rule.id }),
            el('span', { class: 'note', text: 'matched ' + str(f.matched) + ' · fired ' + str(f.fired) }),
            usedUp ? el('span', { class: 'badge', 'data-testid': 'fault-used-up', text: 'used up' }) : null,
            el('button', { type: 'button', 'data-testid': 'fault-remove', 'aria-label': 'remove rule ' + rule.id, text: 'Remove',
              onclick: function () { removeFault(rule.id); } })
          ]),
          el('pre', { text: pretty(rule) })
        ]);
      }));
      Array.prototype.forEach.call(ul.children, function (li, i) { consoleHook('fault', li, list[i]); });
      consoleHook('faults', list || []);
      if (!(list || []).length) ul.append(el('li', { class: 'note', text: 'No fault rule loaded.' }));
    });
  }

  function addFault(ev) {
    ev.preventDefault();
    var text = $('fault-json').value.trim();
    if (!text) { say('Type a rule first (the placeholder shows one).', true); return; }
    try { JSON.parse(text); } catch (e) { say('Not JSON: ' + e.message, true); return; }
    api('POST', '/faults', text).then(function () {
      say('Rule added.');
      return Promise.all([loadFaults(), pollHealth()]);
    }).catch(function (err) { say('The admin API refused the rule: ' + err.message, true); });
  }

  function removeFault(id) {
    api('DELETE', '/faults/' + encodeURIComponent(id)).then(function () {
      say('Rule ' + id + ' removed.');
      return Promise.all([loadFaults(), pollHealth()]);
    }).catch(function (err) { say('Could not remove the rule: ' + err.message, true); });
  }

  function reset() {
    api('POST', '/reset').then(function () {
      say('Reset: devices, rules and history cleared.');
      state.selectedDevice = null;
      $('device-inbox').hidden = true;
      clearExchanges();
      return Promise.all([loadDevices(), loadFaults(), pollHealth()]);
    }).catch(function (err) { say('Reset failed: ' + err.message, true); });
  }

  // The history only (DELETE /history): devices and rules stay armed for the next run.
  function clearHistory() {
    api('DELETE', '/history').then(function () {
      say('History cleared; devices and rules are kept.');
      clearExchanges();
      return Promise.all([loadDevices(), pollHealth()]);
    }).catch(function (err) { say('Could not clear the history: ' + err.message, true); });
  }

  // ---------------------------------------------------------------- keyboard

  // Arrow keys move between visible items of a list; Enter (or Space) opens one.
  function listKeys(list, selector, open) {
    list.addEventListener('keydown', function (ev) {
      var item = ev.target.closest ? ev.target.closest(selector) : null;
      if (!item || item.parentElement !== list) return;
      var visible = Array.prototype.filter.call(list.querySelectorAll(selector), function (x) { return !x.hidden; });
      var i = visible.indexOf(item);
      var next = null;
      if (ev.key === 'ArrowDown') next = visible[i + 1];
      else if (ev.key === 'ArrowUp') next = visible[i - 1];
      else if (ev.key === 'Home') next = visible[0];
      else if (ev.key === 'End') next = visible[visible.length - 1];
      else if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); open(item); return; }
      if (next) { ev.preventDefault(); next.focus(); }
    });
    list.addEventListener('click', function (ev) {
      var item = ev.target.closest ? ev.target.closest(selector) : null;
      if (item && item.parentElement === list) open(item);
    });
  }

  // ---------------------------------------------------------------- start

  function bind() {
    ['filter-provider', 'filter-device', 'filter-status', 'filter-search'].forEach(function (id) {
      $(id).addEventListener('input', applyFilters);
      $(id).addEventListener('change', applyFilters);
    });
    $('filters').addEventListener('submit', function (ev) { ev.preventDefault(); });
    listKeys($('timeline'), '.row', function (row) { openDetail(Number(row.getAttribute('data-seq')), row); });
    listKeys($('device-list'), '.device-item', function (li) { selectDevice(li.getAttribute('data-key')); });
    $('detail-close').addEventListener('click', closeDetail);
    $('detail-copy-curl').addEventListener('click', copyDetailCommand);
    document.addEventListener('keydown', function (ev) { if (ev.key === 'Escape') closeDetail(); });
    $('device-state-apply').addEventListener('click', applyDeviceState);
    $('fault-form').addEventListener('submit', addFault);
    // An example rule, naming the first provider that registered a view.
    var example = Object.keys(window.PushDoubleInboxViews || {})[0] || 'PROVIDER';
    $('fault-json').setAttribute('placeholder', JSON.stringify({ id: 'busy', match: { provider: example },
      action: { type: 'respond', reason: 'ServiceUnavailable', retryAfter: 7 }, times: 1 }));
    $('reset').addEventListener('click', reset);
    $('clear-history').addEventListener('click', clearHistory);
  }

  function start() {
    bind();
    consoleHook('start');
    updateSummary();
    Promise.all([loadProviders(), loadDevices(), loadFaults()])
      .catch(function (err) { say('Could not read the admin API: ' + err.message, true); })
      .then(loadInitialHistory)
      .catch(function (err) { say('Could not read the history: ' + err.message, true); })
      .then(function () {
        openStream();
        var m = /^#exchange-(\d+)$/.exec(window.location.hash);
        if (m) setTimeout(function () { openDetail(Number(m[1])); }, 50);
      });
    setInterval(function () { pollHealth().catch(function () { /* the stream reports the outage */ }); }, HEALTH_EVERY_MS);
  }

  // For tests and the console: the page's views of one exchange (no page state).
  window.PushDoubleInbox = {
    notificationView: notificationView, renderNotification: renderNotification, rowText: rowText, decodeJWT: decodeJWT, verdict: verdict,
    decisionText: decisionText, curlCommand: curlCommand, delivered: delivered, credentials: credentials, credentialDetails: credentialDetails,
    previewChip: previewChip,
    // What the console's files use of the page: its helpers and a reload of what they change.
    page: { api: api, el: el, say: say, pretty: pretty, shortToken: shortToken, newDeviceID: newDeviceID, entryFor: entryFor,
      devices: function () { return state.devices; },
      refreshDevices: function () { renderDeviceList(); if (state.selectedDevice) renderDeviceInbox(); },
      refresh: function () { return Promise.all([loadDevices(), loadFaults(), pollHealth()]); } }
  };

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();