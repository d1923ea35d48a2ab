// AdminClient: the admin API of a running PushDouble (docs/admin-openapi.yaml) on node:http.
// It never uses a proxy or a fetch dispatcher: the admin listener is plain HTTP, so
// HTTPS_PROXY and the test-CA trust of the process do not apply to it.
import http from 'node:http';
import https from 'node:https';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';

/** The device states of the admin API (Scenarios/scenario.schema.json#/$defs/deviceState). */
export const DEVICE_STATES = Object.freeze(['active', 'unregistered', 'expired', 'invalid', 'otherApp', 'rateLimited']);

/** An admin request answered with an error status (or not at all: status 0). */
export class AdminError extends Error {
  constructor(method, url, status, body) {
    let error = null;
    try { error = body ? JSON.parse(body).error ?? null : null; } catch { /* not JSON */ }
    super(`${method} ${url} -> ${status || 'no answer'}: ${error ?? body}`);
    this.name = 'AdminError';
    Object.assign(this, { method, url, status, body, error });
  }
}

const jsonOrNull = (text) => { if (!text) return null; try { return JSON.parse(text); } catch { return null; } };
const headersObject = (pairs) => Object.fromEntries((pairs ?? []).filter((p) => p.length >= 2).map(([k, v]) => [String(k).toLowerCase(), v]));
const clean = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));
const shorten = (t, n) => { t = String(t); return t.length <= n ? t : t.slice(0, n - 1) + '…'; };

/** One recorded exchange: `raw` is the admin API's JSON object; the getters are shortcuts. */
export class Exchange {
  constructor(raw) { Object.defineProperty(this, 'raw', { value: raw ?? {}, enumerable: false }); }
  static from(raw) { return new Exchange(raw); }
  get seq() { return this.raw.seq; }
  get provider() { return this.raw.provider; }
  get endpoint() { return this.raw.endpoint; }
  get token() { return this.raw.token ?? null; }
  get deviceId() { return this.raw.deviceID ?? null; }
  get topic() { return this.raw.topic ?? null; }
  get environment() { return this.raw.environment ?? null; }
  get notification() { return this.raw.notification ?? null; }
  get auth() { return this.raw.auth ?? {}; }
  get request() { return this.raw.request ?? {}; }
  get response() { return this.raw.response ?? {}; }
  get recipients() { return this.raw.recipients ?? []; }
  get annotations() { return this.raw.annotations ?? {}; }
  /** The HTTP status answered (null when the connection was dropped, reset...). */
  get status() { return this.response.status ?? null; }
  /** The provider reason answered (Unregistered, UNREGISTERED, DeviceNotRegistered...). */
  get reason() { return this.response.reason ?? null; }
  /** respond, delayed, reset, goaway, drop... */
  get action() { return this.response.action ?? null; }
  /** The stage that decided the answer: auth, validation, fault, quota, device, accepted. */
  get decidedBy() { return this.raw.decidedBy?.stage ?? null; }
  get accepted() { const s = this.status; return s !== null && s >= 200 && s < 300; }
  get receivedAt() { return this.raw.receivedAt ? new Date(this.raw.receivedAt) : null; }
  get method() { return this.request.method ?? null; }
  get path() { return this.request.path ?? null; }
  get requestHeaders() { return headersObject(this.request.headers); }
  get responseHeaders() { return headersObject(this.response.headers); }
  get requestBody() { return this.request.body ?? null; }
  get requestJson() { return jsonOrNull(this.requestBody); }
  get responseBody() { return this.response.body ?? null; }
  get responseJson() { return jsonOrNull(this.responseBody); }
  get retryAfter() { return this.responseHeaders['retry-after'] ?? null; }
  /** The APNs request as decoded ({payload, headers, pushType, priority}); null for other providers. */
  get apns() { return this.provider === 'apns' ? (this.notification ?? {}) : null; }
  /** The FCM message as decoded ({project, target, notification, data, android, ...}); null otherwise. */
  get fcm() { return this.provider === 'fcm' ? (this.notification ?? {}) : null; }
  /** The Expo messages (always an array); null otherwise. */
  get expo() {
    if (this.provider !== 'expo') return null;
    const n = this.notification;
    return Array.isArray(n) ? n : n ? [n] : [];
  }
  /** The Web Push message as the double's browser decrypted it ({payload: {data}, ttl, urgency, ...}); null otherwise. */
  get webpush() { return this.provider === 'webpush' ? (this.notification ?? {}) : null; }
  /** The decrypted Web Push payload text (null when absent or binary). */
  get webpushText() { const p = this.webpush?.payload; return p && 'data' in p && !p.base64 ? p.data : null; }
  /** One line: `#12 fcm fcm.send POST /v1/... -> 404 UNREGISTERED [device] token=...`. */
  summary() {
    const parts = [`#${this.seq}`, String(this.provider), String(this.endpoint)];
    if (this.method) parts.push(`${this.method} ${shorten(this.path ?? '', 70)}`);
    parts.push(`-> ${this.status ?? this.action}`);
    if (this.reason) parts.push(this.reason);
    if (this.retryAfter) parts.push(`retry-after=${this.retryAfter}`);
    if (this.decidedBy) { const d = this.raw.decidedBy?.detail; parts.push(`[${this.decidedBy}${d ? ': ' + shorten(d, 40) : ''}]`); }
    if (this.deviceId) parts.push(`device=${this.deviceId}`); else if (this.token) parts.push(`token=${shorten(this.token, 24)}`);
    return parts.join(' ');
  }
  toString() { return this.summary(); }
  toJSON() { return this.raw; }
}

const q = (s) => encodeURIComponent(String(s));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let faultIds = 0;

/** Client of the admin API at `baseUrl` (PushDouble#adminUrl or $PUSHDOUBLE_ADMIN_URL). */
export class AdminClient {
  constructor(baseUrl = process.env.PUSHDOUBLE_ADMIN_URL, { timeout = 10_000 } = {}) {
    if (!baseUrl) throw new TypeError('AdminClient needs the admin URL (or $PUSHDOUBLE_ADMIN_URL)');
    this.baseUrl = String(baseUrl).replace(/\/+$/, '');
    this.timeout = timeout;
  }

  // -- transport ---------------------------------------------------------------------------

  /** One request: `body` is JSON-encoded (strings and Buffers are sent as they are); resolves to
   * the decoded JSON (or the text when `raw`). Rejects with AdminError. */
  request(method, path, { body, query, raw = false } = {}) {
    let url = this.baseUrl + path;
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null) params.set(k, v instanceof Date ? v.toISOString() : String(v));
    if ([...params].length) url += '?' + params;
    let data = null;
    const headers = { accept: 'application/json' };
    if (body !== undefined && body !== null) {
      data = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
      headers['content-type'] = 'application/json';
      headers['content-length'] = data.length;
    }
    const lib = url.startsWith('https:') ? https : http;
    return new Promise((resolve, reject) => {
      const req = lib.request(url, { method, headers, timeout: this.timeout, agent: false }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode >= 400) return reject(new AdminError(method, url, res.statusCode, text));
          if (raw) return resolve(text);
          try { resolve(text.trim() ? JSON.parse(text) : null); } catch (e) { reject(new AdminError(method, url, res.statusCode, `not JSON: ${e.message}`)); }
        });
        res.on('error', (e) => reject(new AdminError(method, url, 0, e.message)));
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.timeout} ms`)));
      req.on('error', (e) => reject(new AdminError(method, url, 0, e.message)));
      req.end(data ?? undefined);
    });
  }

  get(path, query) { return this.request('GET', path, { query }); }

  // -- status ------------------------------------------------------------------------------

  /** /health: providers, device and rule counts, history count/dropped/nextSeq/cap, listeners. */
  health() { return this.get('/health'); }
  endpoints() { return this.get('/endpoints'); }
  providers() { return this.get('/providers'); }
  /** `open` (any well-formed token is an active device) or `closed` (only registered devices). */
  setWorld(provider, world) { return this.request('PUT', `/providers/${q(provider)}`, { body: { world } }); }

  // -- devices -----------------------------------------------------------------------------

  devices(provider) { return this.get('/devices', { provider }); }
  device(id) { return this.get(`/devices/${q(id)}`); }
  /** Register one device (an object) or several (an array), in the admin API's shape. */
  register(devices) { return this.request('POST', '/devices', { body: devices }); }
  /** registerDevice('d1', 'apns', 'ab01...', { state: 'unregistered' }); other options are provider attributes. */
  registerDevice(id, provider, token, { state, environment, topic, transitions, unregisteredAt, ...attributes } = {}) {
    if (state !== undefined && !DEVICE_STATES.includes(state)) throw new RangeError(`state ${state} is not one of ${DEVICE_STATES.join(', ')}`);
    return this.register({ ...clean({ id, provider, token, state, environment, topic, transitions, unregisteredAt }), ...attributes });
  }
  /** Create or replace a device (PUT /devices/{id}). */
  putDevice(device) { return this.request('PUT', `/devices/${q(device.id)}`, { body: device }); }
  /** Change a registered device's state, keeping everything else. */
  async setDeviceState(id, state, { unregisteredAt } = {}) {
    if (!DEVICE_STATES.includes(state)) throw new RangeError(`state ${state} is not one of ${DEVICE_STATES.join(', ')}`);
    const d = await this.device(id);
    d.state = state;
    delete d.unregisteredAt;
    if (state === 'unregistered' && unregisteredAt) d.unregisteredAt = unregisteredAt;
    return this.putDevice(d);
  }
  /** The app was uninstalled: state `unregistered` (APNs 410, FCM UNREGISTERED, ...). */
  killDevice(id) { return this.setDeviceState(id, 'unregistered'); }
  removeDevice(id) { return this.request('DELETE', `/devices/${q(id)}`); }
  /** Forget every device (of one provider) and restore its default world mode. */
  clearDevices(provider) { return this.request('DELETE', '/devices', { query: { provider } }); }

  // -- faults ------------------------------------------------------------------------------

  faults() { return this.get('/faults'); }
  fault(id) { return this.get(`/faults/${q(id)}`); }
  /** Append one rule (object) or several (array, atomically), in the scenario schema's faultRule shape. */
  addFault(rule) { return this.request('POST', '/faults', { body: rule }); }
  removeFault(id) { return this.request('DELETE', `/faults/${q(id)}`); }
  clearFaults(provider) { return this.request('DELETE', '/faults', { query: { provider } }); }

  _rule(kind, provider, action, { count, id, endpoint, device, token, topic, environment, nth, everyNth, probability, fromSeconds, untilSeconds } = {}) {
    const match = clean({ provider, endpoint, device, token, topic, environment, nth, everyNth, probability, from: fromSeconds, until: untilSeconds });
    const rule = { id: id ?? `node-${kind}-${++faultIds}-${Date.now() % 100000}`, action };
    if (Object.keys(match).length) rule.match = match;
    if (count !== undefined && count !== null) rule.times = count;
    return this.addFault(rule);
  }

  /** The next `count` (default 1) matching requests get an error: failNext('fcm', { count: 2, status: 429, retryAfter: 1 }),
   * failNext('apns', { reason: 'ServiceUnavailable' }). Without status or reason: 503. */
  failNext(provider, { count = 1, status, reason, retryAfter, headers, body, contentType, ...match } = {}) {
    if (status === undefined && reason === undefined) status = 503;
    const action = clean({ type: 'respond', status, reason, retryAfter, headers, body, contentType });
    return this._rule('fail', provider, action, { count, ...match });
  }
  /** Like failNext, any number of times unless `count` is given. */
  respond(provider, options = {}) { return this.failNext(provider, { count: null, ...options }); }
  /** Hold matching requests `seconds` before answering (normally, or with `then`, an action). */
  delay(provider, seconds, { then, ...match } = {}) { return this._rule('delay', provider, clean({ type: 'delay', seconds, then }), match); }
  /** Close the TCP connection without an answer. */
  dropConnection(provider, { count = 1, ...match } = {}) { return this._rule('drop', provider, { type: 'drop' }, { count, ...match }); }
  /** HTTP/2 GOAWAY (lastStreamId: before (default), this, highest or a number). */
  goaway(provider, { count = 1, lastStreamId, errorCode, debugData, debugJSON, then, ...match } = {}) {
    return this._rule('goaway', provider, clean({ type: 'goaway', lastStreamId, errorCode, debugData, debugJSON, then }), { count, ...match });
  }
  /** HTTP/2 RST_STREAM (errorCode e.g. INTERNAL_ERROR). */
  resetStream(provider, { count = 1, errorCode, ...match } = {}) { return this._rule('reset', provider, clean({ type: 'reset', errorCode }), { count, ...match }); }
  /** Never answer (the client's timeout is on trial). */
  stall(provider, { count = 1, ...match } = {}) { return this._rule('stall', provider, { type: 'stall' }, { count, ...match }); }
  /** At most `limit` requests per `seconds` (fixed window); the rest get 429 with a truthful Retry-After. */
  quota(provider, limit, seconds, { per = 'all', reason, status, ...match } = {}) {
    return this._rule('quota', provider, clean({ type: 'quota', fixedWindow: { limit, seconds }, per, reason, status }), match);
  }
  tokenBucket(provider, rate, burst, { per = 'all', reason, status, ...match } = {}) {
    return this._rule('quota', provider, clean({ type: 'quota', tokenBucket: { rate, burst }, per, reason, status }), match);
  }

  // -- history -----------------------------------------------------------------------------

  /** One page as the API answers it: {count, dropped, nextCursor, nextSeq, exchanges}. */
  historyPage({ after, limit, provider, device, token, endpoint, since, until } = {}) {
    return this.get('/history', { provider, device, token, endpoint, since, until, after, limit });
  }
  /** Every matching exchange, oldest first (all pages), as Exchange objects. `status` filters on
   * the answered HTTP status; `limit` keeps the newest `limit`. */
  async history({ provider, device, token, endpoint, since, until, after, status, limit } = {}) {
    let out = [];
    let cursor = after;
    for (;;) {
      const page = await this.historyPage({ after: cursor, limit: 5000, provider, device, token, endpoint, since, until });
      out.push(...(page.exchanges ?? []).map(Exchange.from));
      cursor = page.nextCursor;
      if (cursor === undefined || cursor === null || !(page.exchanges ?? []).length) break;
    }
    if (status !== undefined && status !== null) out = out.filter((x) => x.status === status);
    if (limit !== undefined && limit !== null) out = limit ? out.slice(-limit) : [];
    return out;
  }
  /** The newest matching exchange (null when there is none). */
  async last(filters = {}) { const h = await this.history(filters); return h.at(-1) ?? null; }
  /** Poll until at least `count` exchanges match `filters`; resolves to them. Rejects with an
   * Error listing what did arrive after `timeout` ms (default 5000). */
  async waitFor(count = 1, { timeout = 5000, interval = 50, ...filters } = {}) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const got = await this.history(filters);
      if (got.length >= count) return got;
      if (Date.now() >= deadline) {
        const lines = got.slice(-10).map((x) => '  ' + x.summary()).join('\n') || '  (none)';
        const what = Object.keys(clean(filters)).length ? JSON.stringify(clean(filters)) : 'anything';
        const e = new Error(`waited ${timeout} ms for ${count} exchange(s) matching ${what}, got ${got.length}:\n${lines}`);
        e.name = 'TimeoutError';
        throw e;
      }
      await sleep(interval);
    }
  }
  clearHistory(provider) { return this.request('DELETE', '/history', { query: { provider } }); }

  // -- reset and scenarios -------------------------------------------------------------------

  /** Forget devices, rules and history (of one provider, or all). */
  reset(provider) { return this.request('POST', '/reset', { query: { provider } }); }
  /** Load a scenario: an object, JSON text, or a file path. Replaces devices, rules and history unless `merge`. */
  async loadScenario(scenario, { merge = false, name } = {}) {
    let body = scenario;
    if (typeof scenario === 'string' && !scenario.trimStart().startsWith('{')) {
      body = await readFile(scenario);
      name ??= basename(scenario);
    }
    return this.request('POST', '/scenarios', { body, query: { merge: merge ? 'true' : undefined, name } });
  }
  /** The current devices, rules, world modes, seed and fake options as a scenario object. */
  exportScenario() { return this.get('/scenario/export'); }

  // -- provider routes -------------------------------------------------------------------------

  /** A Web Push subscription the double's browser holds the keys of ({id, endpoint, keys: {p256dh, auth}}). */
  createSubscription({ id, service, applicationServerKey, endpointOrigin } = {}) {
    return this.request('POST', '/webpush/subscriptions', { body: clean({ id, service, applicationServerKey, endpointOrigin }) });
  }
  subscriptions() { return this.get('/webpush/subscriptions'); }
  subscription(id) { return this.get(`/webpush/subscriptions/${q(id)}`); }
  /** What the browser received for a subscription (accepted messages only). */
  subscriptionMessages(id) { return this.get(`/webpush/subscriptions/${q(id)}/messages`); }
  /** The decrypted text of each message a subscription received, oldest first. */
  async receivedTexts(id) {
    return (await this.subscriptionMessages(id)).map((m) => (m.payload && !m.payload.base64 ? m.payload.data : null));
  }
  /** Release held Expo receipts (all of them without ids). */
  releaseExpoReceipts(ids) { return this.request('POST', '/expo/receipts/release', { body: ids ? { ids: [...ids] } : undefined }); }
  /** Revoke FCM access tokens (one, an account's, or all): {revoked: n}. */
  revokeFcmTokens({ token, clientEmail } = {}) { return this.request('POST', '/fcm/tokens/revoke', { body: clean({ token, clientEmail }) }); }
  /** The service accounts the FCM fake knows: [{clientEmail, projects}]. */
  async fcmAccounts() { return (await this.get('/fcm/accounts'))?.accounts ?? []; }
}
