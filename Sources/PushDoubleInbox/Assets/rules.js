// PushDouble inbox console: the rule builder (docs/inbox.md "Rule builder"). Provider →
// endpoint → action → when, from GET /catalogue (each provider's endpoints with the reasons
// its fake sends there); shows the JSON it posts (POST /faults, or PUT /faults/{id} when
// editing). Adds Edit and Switch off/on (PATCH /faults/{id}) to each rule of the panel.
// Also the console's shared part: window.PushDoubleConsole with `chain` (several files hook
// the same page event) and `catalogue()` (GET /catalogue, read once). The console's scripts
// load before inbox.js, which starts at once and calls their hooks.
(function () {
  'use strict';

  var C = window.PushDoubleConsole = window.PushDoubleConsole || {};
  // Adds `fn` to the page hook `name` (inbox.js calls each hook by name), after earlier ones.
  C.chain = function (name, fn) {
    var prev = C[name];
    C[name] = prev ? function () { prev.apply(null, arguments); fn.apply(null, arguments); } : fn;
  };
  var catalogue = null;
  C.catalogue = function () {
    if (!catalogue) catalogue = page().api('GET', '/catalogue');
    return catalogue;
  };
  // The rules as the panel last showed them (GET /faults).
  C.rules = [];
  C.chain('faults', function (list) { C.rules = list; });

  function page() { return window.PushDoubleInbox.page; }
  function el() { return page().el.apply(null, arguments); }
  function $(id) { return document.getElementById(id); }
  // The helpers the console's other files use.
  C.page = page; C.el = el; C.byId = $;

  // What the builder's "when" offers, and how each writes the rule.
  var WHEN = [
    ['next', 'the next N requests'], ['every', 'every request'],
    ['everyNth', 'every Nth request'], ['nth', 'only the Nth request']
  ];
  var ACTIONS = [['respond', 'respond with a reason'], ['delay', 'delay, then answer'],
    ['drop', 'drop the connection'], ['goaway', 'HTTP/2 GOAWAY']];
  var GOAWAY_CODES = ['NO_ERROR', 'ENHANCE_YOUR_CALM', 'INTERNAL_ERROR', 'REFUSED_STREAM'];

  var editing = null;  // id of the rule the builder edits, null when adding
  var idTyped = false; // the rule id was typed: no longer proposed

  function field(label, control, hint) {
    return el('label', { class: 'rb-field' }, [el('span', { text: label }), control, hint ? el('small', { class: 'note', text: hint }) : null]);
  }
  function options(select, list, value) {
    select.replaceChildren.apply(select, list.map(function (o) {
      return el('option', { value: o[0], text: o[1] });
    }));
    if (value !== undefined && list.some(function (o) { return o[0] === value; })) select.value = value;
  }

  function build() {
    var form = el('form', { id: 'rule-builder', class: 'rule-builder', 'data-testid': 'rule-builder', 'aria-label': 'Rule builder' }, [
      el('h3', { id: 'rb-title', text: 'Build a rule' }),
      field('Provider', el('select', { id: 'rb-provider', 'data-testid': 'rb-provider' })),
      field('Endpoint', el('select', { id: 'rb-endpoint', 'data-testid': 'rb-endpoint' })),
      field('Action', el('select', { id: 'rb-action', 'data-testid': 'rb-action' })),
      el('div', { id: 'rb-respond', class: 'rb-group' }, [
        field('Reason', el('select', { id: 'rb-reason', 'data-testid': 'rb-reason' }), 'the reasons this endpoint sends'),
        field('Status', el('input', { id: 'rb-status', 'data-testid': 'rb-status', type: 'number', min: '200', max: '599', placeholder: 'the reason\'s' })),
        field('Retry-After (s)', el('input', { id: 'rb-retry-after', 'data-testid': 'rb-retry-after', type: 'number', min: '0', placeholder: 'none' }))
      ]),
      el('div', { id: 'rb-delay', class: 'rb-group' }, [
        field('Seconds', el('input', { id: 'rb-seconds', 'data-testid': 'rb-seconds', type: 'number', min: '0', step: '0.1', value: '2' }))
      ]),
      el('div', { id: 'rb-goaway', class: 'rb-group' }, [
        field('Error code', el('select', { id: 'rb-goaway-code', 'data-testid': 'rb-goaway-code' })),
        field('This request', el('select', { id: 'rb-goaway-last', 'data-testid': 'rb-goaway-last' }))
      ]),
      field('When', el('select', { id: 'rb-when', 'data-testid': 'rb-when' })),
      field('N', el('input', { id: 'rb-count', 'data-testid': 'rb-count', type: 'number', min: '1', value: '1' })),
      field('For device', el('select', { id: 'rb-device', 'data-testid': 'rb-device' })),
      field('or token', el('input', { id: 'rb-token', 'data-testid': 'rb-token', type: 'text', autocomplete: 'off', placeholder: 'any' })),
      field('Rule id', el('input', { id: 'rb-id', 'data-testid': 'rb-id', type: 'text', autocomplete: 'off' })),
      el('p', { class: 'note', text: 'Posts this JSON:' }),
      el('pre', { id: 'rb-preview', 'data-testid': 'rb-preview', 'aria-live': 'polite' }),
      el('div', { class: 'rb-buttons' }, [
        el('button', { id: 'rb-submit', 'data-testid': 'rb-submit', type: 'submit', text: 'Add rule' }),
        el('button', { id: 'rb-cancel', 'data-testid': 'rb-cancel', type: 'button', text: 'Cancel edit', hidden: 'hidden' })
      ])
    ]);
    var raw = $('fault-form');
    raw.parentNode.insertBefore(form, raw);
    // The raw JSON form stays, for experts, folded under the builder.
    var fold = el('details', { class: 'rb-raw', 'data-testid': 'fault-raw' }, [el('summary', { text: 'Raw JSON (any rule the admin API takes)' })]);
    raw.parentNode.insertBefore(fold, raw);
    fold.append(raw);
    options($('rb-action'), ACTIONS);
    options($('rb-when'), WHEN);
    options($('rb-goaway-code'), GOAWAY_CODES.map(function (c) { return [c, c]; }));
    options($('rb-goaway-last'), [['before', 'not processed (before)'], ['this', 'processed (this)']]);
    form.addEventListener('input', function (ev) { changed(ev.target && ev.target.id); });
    form.addEventListener('change', function (ev) { changed(ev.target && ev.target.id); });
    form.addEventListener('submit', submit);
    $('rb-cancel').addEventListener('click', function () { stopEditing(); changed(); });
  }

  function providers() { return (C.catalogueDoc && C.catalogueDoc.providers) || []; }
  function providerDoc(id) { return providers().filter(function (p) { return p.provider === id; })[0] || null; }
  function endpointDoc() {
    var p = providerDoc($('rb-provider').value);
    return p ? p.endpoints.filter(function (e) { return e.id === $('rb-endpoint').value; })[0] || null : null;
  }

  // Re-fills the selects that depend on `what` changed, then redraws the preview.
  function changed(what) {
    if (what === 'rb-provider' || what === undefined) fillEndpoints();
    if (what === 'rb-provider' || what === 'rb-endpoint' || what === undefined) fillReasons();
    if (what === 'rb-provider' || what === undefined || what === 'devices') fillDevices();
    var action = $('rb-action').value;
    $('rb-respond').hidden = action !== 'respond';
    $('rb-delay').hidden = action !== 'delay';
    $('rb-goaway').hidden = action !== 'goaway';
    $('rb-count').disabled = $('rb-when').value === 'every';
    if (what === 'rb-id') idTyped = true;
    if (!editing && !idTyped) $('rb-id').value = freshID();
    $('rb-preview').textContent = JSON.stringify(rule(), null, 2);
  }

  function fillProviders() {
    options($('rb-provider'), providers().map(function (p) { return [p.provider, p.provider]; }), $('rb-provider').value);
  }
  function fillEndpoints() {
    var p = providerDoc($('rb-provider').value);
    var list = p ? p.endpoints.slice() : [];
    // Send endpoints first: what a rule without an endpoint would hit.
    list.sort(function (a, b) { return (a.kind === 'send' ? 0 : 1) - (b.kind === 'send' ? 0 : 1); });
    options($('rb-endpoint'), list.map(function (e) { return [e.id, e.kind + ': ' + e.id]; }), $('rb-endpoint').value);
    $('rb-endpoint').title = (endpointDoc() || {}).summary || '';
  }
  function fillReasons() {
    var e = endpointDoc();
    var list = [['', '(a bare status)']].concat(((e && e.reasons) || []).map(function (r) { return [r, r]; }));
    options($('rb-reason'), list, $('rb-reason').value || (list[1] ? list[1][0] : ''));
    $('rb-endpoint').title = (e && e.summary) || '';
  }
  function fillDevices() {
    var p = $('rb-provider').value;
    var list = [['', 'any']].concat(page().devices().filter(function (d) { return d.provider === p; }).map(function (d) { return [d.id, d.id]; }));
    options($('rb-device'), list, $('rb-device').value);
  }

  function freshID() {
    var taken = {};
    C.rules.forEach(function (f) { taken[(f.rule || f).id] = true; });
    var base = $('rb-provider').value + '-' + ($('rb-action').value === 'respond' ? ($('rb-reason').value || $('rb-status').value || 'status') : $('rb-action').value);
    base = base.replace(/[^A-Za-z0-9_.-]/g, '-');
    for (var n = 1; ; n++) if (!taken[base + '-' + n]) return base + '-' + n;
  }

  function number(id) {
    var v = $(id).value.trim();
    return v === '' ? null : Number(v);
  }

  // The rule the form describes, as POST /faults takes it.
  function rule() {
    var match = { provider: $('rb-provider').value, endpoint: $('rb-endpoint').value };
    if ($('rb-device').value) match.device = $('rb-device').value;
    var token = $('rb-token').value.trim();
    if (token) match.token = token;
    var action = { type: $('rb-action').value };
    if (action.type === 'respond') {
      if ($('rb-reason').value) action.reason = $('rb-reason').value;
      if (number('rb-status') !== null) action.status = number('rb-status');
      if (number('rb-retry-after') !== null) action.retryAfter = number('rb-retry-after');
    } else if (action.type === 'delay') {
      action.seconds = number('rb-seconds') === null ? 0 : number('rb-seconds');
    } else if (action.type === 'goaway') {
      action.errorCode = $('rb-goaway-code').value;
      action.lastStreamId = $('rb-goaway-last').value;
    }
    var out = { id: $('rb-id').value.trim(), match: match, action: action };
    var n = number('rb-count') || 1;
    var when = $('rb-when').value;
    if (when === 'next') out.times = n;
    else if (when === 'everyNth') match.everyNth = n;
    else if (when === 'nth') match.nth = n;
    return out;
  }

  // The form for an existing rule, or false when the builder cannot show it (the raw JSON can).
  function load(r) {
    var m = r.match || {}, a = r.action || {};
    var known = ['provider', 'endpoint', 'device', 'token', 'nth', 'everyNth'];
    if (!m.provider || Object.keys(m).some(function (k) { return known.indexOf(k) < 0; })) return false;
    if (ACTIONS.every(function (x) { return x[0] !== a.type; })) return false;
    var whens = (r.times !== undefined ? 1 : 0) + (m.nth !== undefined ? 1 : 0) + (m.everyNth !== undefined ? 1 : 0);
    if (whens > 1) return false;
    if (a.type === 'respond' && (a.body !== undefined || a.headers !== undefined || a.custom || typeof (a.retryAfter === undefined ? 0 : a.retryAfter) !== 'number')) return false;
    if (a.type === 'delay' && a.then !== undefined) return false;
    if (a.type === 'goaway' && (a.debugData !== undefined || a.debugJSON !== undefined || a.then !== undefined || typeof a.lastStreamId === 'number')) return false;
    $('rb-provider').value = m.provider;
    fillEndpoints();
    var p = providerDoc(m.provider);
    var endpoint = m.endpoint || ((p && p.endpoints.filter(function (e) { return e.kind === 'send'; })[0]) || {}).id;
    $('rb-endpoint').value = endpoint;
    fillReasons();
    fillDevices();
    $('rb-action').value = a.type;
    $('rb-reason').value = a.reason || '';
    $('rb-status').value = a.status === undefined ? '' : a.status;
    $('rb-retry-after').value = a.retryAfter === undefined ? '' : a.retryAfter;
    if (a.type === 'delay') $('rb-seconds').value = a.seconds;
    if (a.type === 'goaway') { $('rb-goaway-code').value = a.errorCode || 'NO_ERROR'; $('rb-goaway-last').value = a.lastStreamId || 'before'; }
    $('rb-device').value = m.device || '';
    $('rb-token').value = m.token || '';
    $('rb-when').value = r.times !== undefined ? 'next' : m.everyNth !== undefined ? 'everyNth' : m.nth !== undefined ? 'nth' : 'every';
    $('rb-count').value = r.times || m.everyNth || m.nth || 1;
    $('rb-id').value = r.id;
    return true;
  }

  function startEditing(r) {
    if (!load(r)) {
      // Beyond the builder: its JSON in the raw form, saved in place by the builder's "Save changes".
      var raw = document.querySelector('[data-testid="fault-raw"]');
      raw.open = true;
      $('fault-json').value = JSON.stringify(r, null, 2);
      editing = r.id;
      showEditing(true);
      page().say('Rule ' + r.id + ' is beyond the builder: edit its JSON, then "Save changes".');
      return;
    }
    editing = r.id;
    showEditing(false);
    changed('edit');
    $('rb-provider').focus();
  }
  function showEditing(raw) {
    $('rb-title').textContent = 'Edit rule ' + editing;
    $('rb-submit').textContent = 'Save changes';
    $('rb-cancel').hidden = false;
    $('rule-builder').setAttribute('data-editing', editing);
    $('rule-builder').setAttribute('data-raw', raw ? 'true' : 'false');
  }
  function stopEditing() {
    editing = null;
    $('rb-title').textContent = 'Build a rule';
    $('rb-submit').textContent = 'Add rule';
    $('rb-cancel').hidden = true;
    $('rule-builder').removeAttribute('data-editing');
    $('rule-builder').removeAttribute('data-raw');
  }

  function submit(ev) {
    ev.preventDefault();
    var raw = $('rule-builder').getAttribute('data-raw') === 'true';
    var body;
    if (raw) {
      try { body = JSON.parse($('fault-json').value); } catch (e) { page().say('Not JSON: ' + e.message, true); return; }
    } else body = rule();
    var id = editing;
    var call = id ? page().api('PUT', '/faults/' + encodeURIComponent(id), body) : page().api('POST', '/faults', body);
    call.then(function () {
      page().say(id ? 'Rule ' + id + ' replaced.' : 'Rule ' + body.id + ' added.');
      if (id) stopEditing();
      idTyped = false;
      return page().refresh();
    }).then(function () { changed(); })
      .catch(function (err) { page().say('The admin API refused the rule: ' + err.message, true); });
  }

  function toggle(r, on) {
    page().api('PATCH', '/faults/' + encodeURIComponent(r.id), { enabled: on }).then(function () {
      page().say('Rule ' + r.id + (on ? ' switched on.' : ' switched off.'));
      return page().refresh();
    }).catch(function (err) { page().say('Could not switch the rule: ' + err.message, true); });
  }

  // Each rule of the panel: an "off" badge, Edit and Switch off/on beside Remove.
  C.chain('fault', function (li, status) {
    var r = status.rule || status;
    var off = r.enabled === false;
    li.classList.toggle('switched-off', off);
    var head = li.querySelector('.f-head');
    var remove = li.querySelector('[data-testid="fault-remove"]');
    var kids = [
      off ? el('span', { class: 'badge off', 'data-testid': 'fault-off', text: 'off' }) : null,
      el('button', { type: 'button', 'data-testid': 'fault-toggle', 'aria-label': (off ? 'switch on rule ' : 'switch off rule ') + r.id,
        text: off ? 'Switch on' : 'Switch off', onclick: function () { toggle(r, off); } }),
      el('button', { type: 'button', 'data-testid': 'fault-edit', 'aria-label': 'edit rule ' + r.id, text: 'Edit',
        onclick: function () { startEditing(r); } })
    ];
    kids.forEach(function (k) { if (k) head.insertBefore(k, remove); });
  });

  C.chain('start', function () {
    build();
    C.catalogue().then(function (doc) {
      C.catalogueDoc = doc;
      fillProviders();
      changed();
    }).catch(function (err) { page().say('Could not read the catalogue: ' + err.message, true); });
  });
  // The device choices follow GET /devices.
  C.chain('device', function () { if ($('rb-device') && C.catalogueDoc) scheduleDevices(); });
  var devicesTimer = null;
  function scheduleDevices() {
    if (devicesTimer) return;
    devicesTimer = setTimeout(function () { devicesTimer = null; fillDevices(); $('rb-preview').textContent = JSON.stringify(rule(), null, 2); }, 0);
  }
})();
