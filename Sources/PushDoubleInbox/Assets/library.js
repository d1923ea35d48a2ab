// PushDouble inbox console: the scenario library (docs/inbox.md "Scenario library").
// GET /scenarios lists the scenario files of the shipped Scenarios/ and `serve --scenarios`
// folders with their titles, devices and rules; Load posts a file's document to
// POST /scenarios?merge=true (what is armed stays), Unload deletes its devices and rules
// (DELETE /devices/{id}, DELETE /faults/{id}); Import posts a file chosen on this machine.
(function () {
  'use strict';

  var C = window.PushDoubleConsole;
  var page = C.page, el = C.el, $ = C.byId;

  var entries = [];

  // Loaded = every device and rule of the file is in the double now.
  function isLoaded(e) {
    var devices = page().devices().map(function (d) { return d.id; });
    var rules = C.rules.map(function (f) { return (f.rule || f).id; });
    if (!e.devices.length && !e.rules.length) return !!e.loaded;
    return e.devices.every(function (d) { return devices.indexOf(d.id) >= 0; }) && e.rules.every(function (r) { return rules.indexOf(r) >= 0; });
  }

  function load(e) {
    var path = '/scenarios?merge=true&name=' + encodeURIComponent(e.file);
    page().api('POST', path, e.document).then(function () {
      page().say('Loaded ' + (e.title || e.id) + ': ' + e.devices.length + ' device(s), ' + e.rules.length + ' rule(s).');
      return page().refresh();
    }).then(render).catch(function (err) { page().say('Could not load ' + e.file + ': ' + err.message, true); });
  }

  function unload(e) {
    var calls = e.devices.map(function (d) { return page().api('DELETE', '/devices/' + encodeURIComponent(d.id)).catch(function () { return null; }); })
      .concat(e.rules.map(function (r) { return page().api('DELETE', '/faults/' + encodeURIComponent(r)).catch(function () { return null; }); }));
    Promise.all(calls).then(function () {
      page().say('Unloaded ' + (e.title || e.id) + '.');
      return page().refresh();
    }).then(render).catch(function (err) { page().say('Could not unload ' + e.file + ': ' + err.message, true); });
  }

  function importFile(input) {
    var file = input.files && input.files[0];
    if (!file) return;
    var reader = new FileReader();
    reader.onload = function () {
      page().api('POST', '/scenarios?merge=true&name=' + encodeURIComponent(file.name), String(reader.result)).then(function (r) {
        page().say('Imported ' + file.name + ' (' + (r && r.loaded) + ').');
        input.value = '';
        return page().refresh();
      }).catch(function (err) { page().say('Could not import ' + file.name + ': ' + err.message, true); });
    };
    reader.readAsText(file);
  }

  function render() {
    var ul = $('library-list');
    if (!ul) return;
    var q = $('library-filter').value.trim().toLowerCase();
    var shown = entries.filter(function (e) {
      return !q || [e.file, e.id, e.title, e.description].join(' ').toLowerCase().indexOf(q) >= 0;
    });
    ul.replaceChildren.apply(ul, shown.map(function (e) {
      var loaded = !e.error && isLoaded(e);
      return el('li', { class: 'library-item' + (loaded ? ' loaded' : ''), 'data-testid': 'library-item', 'data-file': e.file,
        'data-scenario-id': e.id || '', 'data-loaded': loaded ? 'true' : 'false' }, [
        el('div', { class: 'l-head' }, [
          el('span', { class: 'l-title', text: e.title || e.id || e.file }),
          el('code', { class: 'note', text: e.file }),
          e.error ? null : el('button', { type: 'button', 'data-testid': loaded ? 'library-unload' : 'library-load',
            'aria-label': (loaded ? 'unload ' : 'load ') + e.file, text: loaded ? 'Unload' : 'Load',
            onclick: function () { if (loaded) unload(e); else load(e); } })
        ]),
        e.error ? el('p', { class: 'note', text: e.error }) : el('p', { class: 'note', text:
          (e.devices.length ? 'devices: ' + e.devices.map(function (d) { return d.id + ' (' + d.provider + ', ' + d.state + ')'; }).join(', ') : 'no device')
          + ' · ' + (e.rules.length ? 'rules: ' + e.rules.join(', ') : 'no rule') })
      ]);
    }));
    if (!shown.length) ul.append(el('li', { class: 'note', text: entries.length ? 'No scenario matches.' : 'No scenario folder (serve --scenarios DIR).' }));
  }

  function build() {
    var pane = $('faults-pane');
    var input = el('input', { type: 'file', accept: '.json,application/json', 'data-testid': 'library-import', 'aria-label': 'import a scenario file' });
    input.addEventListener('change', function () { importFile(input); });
    var filter = el('input', { id: 'library-filter', type: 'search', 'data-testid': 'library-filter', placeholder: 'filter', autocomplete: 'off',
      'aria-label': 'filter the scenario library' });
    filter.addEventListener('input', render);
    pane.append(el('section', { class: 'library-pane', 'data-testid': 'scenario-library', 'aria-labelledby': 'library-heading' }, [
      el('h2', { id: 'library-heading', text: 'Scenario library' }),
      el('div', { class: 'device-actions' }, [filter, el('label', { class: 'note' }, ['Import ', input])]),
      el('ul', { id: 'library-list', class: 'library', 'data-testid': 'library-list' })
    ]));
  }

  C.chain('start', function () {
    build();
    page().api('GET', '/scenarios').then(function (list) { entries = list || []; render(); })
      .catch(function (err) { page().say('Could not read the scenario library: ' + err.message, true); });
  });
  // Loaded marks follow the devices and rules.
  C.chain('faults', function () { render(); });
  var renderTimer = null;
  C.chain('device', function () {
    if (renderTimer) return;
    renderTimer = setTimeout(function () { renderTimer = null; render(); }, 0);
  });
})();
