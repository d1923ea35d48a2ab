// PushDouble inbox console: device actions and the create-device form (docs/inbox.md
// "Device actions"). Each provider's actions and form come from GET /catalogue
// (`deviceActions`, `deviceForm`); an action is applied with the admin API: PUT /devices/{id}
// for a state, environment or attribute, POST /faults of a rule matching the device for an
// armed answer (times = the count asked for), DELETE /faults/{id} of the device's rules for a
// revive. A badge on the device says what is armed for it.
(function () {
  'use strict';

  var C = window.PushDoubleConsole;
  var page = C.page, el = C.el, $ = C.byId;

  function providerDoc(id) {
    return ((C.catalogueDoc && C.catalogueDoc.providers) || []).filter(function (p) { return p.provider === id; })[0] || null;
  }

  // The enabled rules not used up that target the entry (by device id or token).
  function armedFor(e) {
    return C.rules.map(function (f) { return { rule: f.rule || f, fired: f.fired }; }).filter(function (x) {
      var m = x.rule.match || {};
      var targets = (e.id && m.device === e.id) || (e.token && m.token === e.token);
      var usedUp = typeof x.rule.times === 'number' && Number(x.fired) >= x.rule.times;
      return targets && x.rule.enabled !== false && !usedUp;
    }).map(function (x) { return x.rule; });
  }

  function ruleID(deviceKey, actionID) {
    var taken = {};
    C.rules.forEach(function (f) { taken[(f.rule || f).id] = true; });
    var base = 'device-' + deviceKey.replace(/[^A-Za-z0-9_.-]/g, '-').slice(0, 40) + '-' + actionID;
    for (var n = 1; ; n++) if (!taken[base + '-' + n]) return base + '-' + n;
  }

  // The admin API calls that apply `action` to the entry, `count` times for an armed answer.
  function apply(e, action, count) {
    var p = page();
    var effect = action.effect || {};
    var id = e.device ? e.device.id : p.newDeviceID(e);
    var calls;
    if (effect.kind === 'rule') {
      var match = { provider: e.provider };
      if (e.device) match.device = e.device.id; else match.token = e.token;
      var rule = { id: ruleID(e.id || e.token, action.id), match: match, action: effect.action, times: count };
      calls = p.api('POST', '/faults', rule).then(function () { return action.label + ' armed for the next ' + count + ' (rule ' + rule.id + ').'; });
    } else {
      if (!e.device && !e.token) { p.say('The device is gone and its token is unknown: it cannot be registered again from here.', true); return; }
      var body = e.device ? JSON.parse(JSON.stringify(e.device)) : { id: id, provider: e.provider, token: e.token };
      if (effect.kind === 'device') {
        if (effect.state) {
          body.state = effect.state;
          if (effect.state === 'unregistered') body.unregisteredAt = new Date().toISOString();
          else delete body.unregisteredAt;
        }
        Object.keys(effect.attributes || {}).forEach(function (k) { body[k] = effect.attributes[k]; });
      } else if (effect.kind === 'environment') {
        body.environment = (effect.environments || []).filter(function (x) { return x !== body.environment; })[0];
      }
      calls = p.api('PUT', '/devices/' + encodeURIComponent(id), body).then(function () {
        return 'Device ' + id + ': ' + action.label.toLowerCase() + ' (' + action.summary + ').';
      });
    }
    if (action.clearsRules) {
      calls = calls.then(function (text) {
        return Promise.all(armedFor(e).map(function (r) { return p.api('DELETE', '/faults/' + encodeURIComponent(r.id)); }))
          .then(function () { return text; });
      });
    }
    calls.then(function (text) {
      p.say(text);
      return p.refresh();
    }).catch(function (err) { p.say('Could not apply ' + action.label + ': ' + err.message, true); });
  }

  // The action buttons of one device, with the count the armed answers use.
  function actionBar(e, where) {
    var doc = providerDoc(e.provider);
    var actions = (doc && doc.deviceActions) || [];
    if (!actions.length) return null;
    var count = el('input', { type: 'number', min: '1', value: counts[e.key] || '1', 'data-testid': 'device-action-count',
      'aria-label': 'how many of the next requests' });
    count.addEventListener('input', function () { counts[e.key] = count.value; });
    var bar = el('div', { class: 'device-actions', 'data-testid': 'device-actions', 'data-where': where }, [
      el('label', { class: 'note' }, ['next ', count])
    ].concat(actions.map(function (a) {
      return el('button', { type: 'button', 'data-testid': 'device-action', 'data-action': a.id, title: a.summary,
        'aria-label': a.label + ' (' + a.summary + ')', text: a.label,
        onclick: function (ev) { ev.stopPropagation(); apply(e, a, Math.max(1, Number(count.value) || 1)); } });
    })));
    // Keys inside the bar are the bar's (the device list opens a device on Enter and Space).
    bar.addEventListener('keydown', function (ev) { ev.stopPropagation(); });
    bar.addEventListener('click', function (ev) { ev.stopPropagation(); });
    return bar;
  }

  function badge(e) {
    var armed = armedFor(e);
    if (!armed.length) return null;
    return el('span', { class: 'badge armed', 'data-testid': 'device-armed', title: armed.map(function (r) { return r.id; }).join(', '),
      text: 'armed ×' + armed.length });
  }

  C.chain('device', function (li, e) {
    if (!C.catalogueDoc) return;
    var b = badge(e);
    if (b) li.insertBefore(b, li.querySelector('.state'));
    var bar = actionBar(e, 'row');
    if (!bar) return;
    var menu = el('details', { class: 'row-actions', 'data-testid': 'device-row-actions' }, [el('summary', { text: 'Actions' }), bar]);
    menu.addEventListener('keydown', function (ev) { ev.stopPropagation(); });
    menu.addEventListener('click', function (ev) { ev.stopPropagation(); });
    if (openMenus[e.key]) menu.open = true;
    menu.addEventListener('toggle', function () { openMenus[e.key] = menu.open; });
    li.append(menu);
  });
  var openMenus = {};  // device key -> its row menu is open (kept across redraws)
  var counts = {};     // device key -> the count typed (kept across redraws)

  C.chain('deviceDetail', function (box, e) {
    var old = box.querySelector('[data-where="detail"]');
    if (old) old.remove();
    var oldArmed = box.querySelector('[data-testid="device-armed-list"]');
    if (oldArmed) oldArmed.remove();
    if (!C.catalogueDoc) return;
    var bar = actionBar(e, 'detail');
    var note = $('device-state-note');
    if (bar) note.parentNode.insertBefore(bar, note);
    var armed = armedFor(e);
    if (armed.length) {
      note.parentNode.insertBefore(el('p', { class: 'note', 'data-testid': 'device-armed-list',
        text: 'Armed: ' + armed.map(function (r) { return r.id; }).join(', ') }), note);
    }
  });

  // Redraw the devices when the rules change (their badges follow GET /faults).
  C.chain('faults', function () { if (C.catalogueDoc) page().refreshDevices(); });

  // ---------------------------------------------------------------- create a device

  function field(label, control) {
    return el('label', { class: 'cf-field' }, [el('span', { text: label }), control]);
  }

  function buildForm() {
    var form = el('form', { id: 'device-form', class: 'console-form', 'data-testid': 'device-form', 'aria-label': 'Create a device' }, [
      el('h3', { text: 'Create a device' }),
      field('Provider', el('select', { id: 'df-provider', 'data-testid': 'df-provider' })),
      field('Id', el('input', { id: 'df-id', 'data-testid': 'df-id', type: 'text', autocomplete: 'off', required: 'required' })),
      el('div', { id: 'df-fields', class: 'cf-wide rb-group' }),
      el('div', { class: 'cf-wide rb-buttons' }, [el('button', { type: 'submit', 'data-testid': 'df-submit', text: 'Create' })])
    ]);
    var fold = el('details', { class: 'rb-raw', 'data-testid': 'device-form-fold' }, [el('summary', { text: 'Create a device or a subscription' }), form]);
    var list = $('device-list');
    list.parentNode.insertBefore(fold, list);
    var sel = $('df-provider');
    sel.replaceChildren.apply(sel, (C.catalogueDoc.providers || []).map(function (p) { return el('option', { value: p.provider, text: p.provider }); }));
    sel.addEventListener('change', fillFields);
    form.addEventListener('submit', submitForm);
    fillFields();
  }

  function formOf(provider) {
    var doc = providerDoc(provider);
    return (doc && doc.deviceForm) || { route: '/devices', fields: [{ name: 'token', label: 'Token', required: true }] };
  }

  function fillFields() {
    var box = $('df-fields');
    box.replaceChildren.apply(box, formOf($('df-provider').value).fields.map(function (f) {
      var control = f.values
        ? el('select', { 'data-field': f.name, 'data-testid': 'df-' + f.name }, f.values.map(function (v) { return el('option', { value: v, text: v || '(any)' }); }))
        : el('input', { 'data-field': f.name, 'data-testid': 'df-' + f.name, type: 'text', autocomplete: 'off', required: f.required ? 'required' : null });
      return field(f.label, control);
    }));
  }

  function submitForm(ev) {
    ev.preventDefault();
    var provider = $('df-provider').value;
    var form = formOf(provider);
    var body = { id: $('df-id').value.trim() };
    if (form.route === '/devices') body.provider = provider;
    Array.prototype.forEach.call($('df-fields').querySelectorAll('[data-field]'), function (c) {
      var v = c.value.trim();
      if (v) body[c.getAttribute('data-field')] = v;
    });
    page().api('POST', form.route, body).then(function () {
      page().say('Created ' + provider + ' device ' + body.id + '.');
      $('df-id').value = '';
      return page().refresh();
    }).catch(function (err) { page().say('Could not create the device: ' + err.message, true); });
  }

  C.chain('start', function () {
    C.catalogue().then(function (doc) {
      C.catalogueDoc = doc;
      buildForm();
      page().refreshDevices();
    }).catch(function () { /* rules.js reports it */ });
  });
})();
