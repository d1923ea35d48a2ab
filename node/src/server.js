// PushDouble: a `pushdouble serve --ephemeral --exit-with-parent` process for tests, or an
// instance already running elsewhere (a container, a CI service) reached by its admin URL.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { constants as osConstants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdminClient } from './admin.js';
import { findBinary } from './binary.js';
import { caList, fetchDispatcher, trustCA } from './trust.js';
import { connectHttp2 } from './tunnel.js';
import { redirectHosts } from './redirect.js';

/** The providers' real host names (and ports) and the listener of the double that stands in for each. */
export const REAL_HOSTS = Object.freeze({
  'api.push.apple.com:443': 'apns-production',
  'api.push.apple.com:2197': 'apns-production',
  'api.sandbox.push.apple.com:443': 'apns-sandbox',
  'api.sandbox.push.apple.com:2197': 'apns-sandbox',
  'api.development.push.apple.com:443': 'apns-sandbox',
  'api.development.push.apple.com:2197': 'apns-sandbox',
  'fcm.googleapis.com:443': 'fcm',
  'oauth2.googleapis.com:443': 'google-oauth',
  'exp.host:443': 'expo',
  'updates.push.services.mozilla.com:443': 'webpush',
  'web.push.apple.com:443': 'webpush',
});

/** `pushdouble serve` exited or did not get ready in time; the message has its command line and stderr. */
export class ServerStartError extends Error {
  constructor(message) { super(message); this.name = 'ServerStartError'; }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const tail = (path, limit = 8000) => {
  try { const t = readFileSync(path, 'utf8'); return t.length <= limit ? t : '...\n' + t.slice(-limit); } catch { return ''; }
};

/** Lifecycle of one PushDouble handle. */
const State = Object.freeze({ idle: 'idle', running: 'running', connected: 'connected', stopped: 'stopped' });

/**
 * One double. `new PushDouble(options).start()` (or `PushDouble.start(options)`) runs
 * `pushdouble serve`; `PushDouble.connect(adminUrl)` attaches to a running one (stop() then
 * leaves it running).
 *
 * options: binary, scenarios (files loaded at start, in order), quiet (default true),
 * options ({"apns.tooManyRequestsPerDevice": 5} or {apns: {...}}: --option), proxy (false:
 * --no-proxy), host, historyCap, historyMaxBytes, seed, extraArgs, startupTimeout (ms, default
 * 30000), stopGrace (ms, default 5000), env (extra variables for serve).
 */
export class PushDouble {
  constructor(options = {}) {
    this.options = { quiet: true, proxy: true, startupTimeout: 30_000, stopGrace: 5_000, scenarios: [], ...options };
    this.state = State.idle;
    this._document = null;
    this._ca = null;
    this._trust = null;
  }

  static async start(options) { return new PushDouble(options).start(); }

  /**
   * A double already running (a container, a CI service): its listeners from GET /endpoints,
   * its CA from `ca` (PEM) or `caFile`, else GET /ca.pem, else $PUSHDOUBLE_CA_FILE; its sender
   * environment from `environment` (default: none known).
   */
  static async connect(adminUrl = process.env.PUSHDOUBLE_ADMIN_URL, { ca, caFile, environment } = {}) {
    const pd = new PushDouble();
    const admin = new AdminClient(adminUrl);
    const endpoints = await admin.endpoints();
    if (!ca) {
      const file = caFile ?? process.env.PUSHDOUBLE_CA_FILE;
      if (caFile) ca = readFileSync(caFile, 'utf8');
      else ca = await admin.request('GET', '/ca.pem', { raw: true }).catch(() => (file ? readFileSync(file, 'utf8') : null));
    }
    pd._document = { endpoints, environment: { PUSHDOUBLE_ADMIN_URL: admin.baseUrl, ...(environment ?? {}) } };
    pd._ca = ca;
    pd._admin = admin;
    pd.state = State.connected;
    return pd;
  }

  // -- command line ------------------------------------------------------------------------

  /** The `serve` command line this double runs (with `endpointsFile`). */
  command(endpointsFile) {
    const o = this.options;
    const args = ['serve', '--ephemeral', '--exit-with-parent', '--endpoints-file', endpointsFile];
    for (const s of o.scenarios ?? []) args.push('--scenario', String(s));
    if (o.quiet) args.push('--quiet');
    if (o.proxy === false) args.push('--no-proxy');
    if (o.host) args.push('--host', o.host);
    if (o.historyCap !== undefined) args.push('--history-cap', String(o.historyCap));
    if (o.historyMaxBytes !== undefined) args.push('--history-max-bytes', String(o.historyMaxBytes));
    if (o.seed !== undefined) args.push('--seed', String(o.seed));
    for (const [key, value] of Object.entries(o.options ?? {})) {
      const items = value && typeof value === 'object' && !Array.isArray(value) && !key.includes('.')
        ? Object.entries(value).map(([k, v]) => [`${key}.${k}`, v]) : [[key, value]];
      for (const [name, v] of items) args.push('--option', `${name}=${JSON.stringify(v)}`);
    }
    return [this.binary ?? findBinary(o.binary), ...args, ...(o.extraArgs ?? [])];
  }

  // -- life cycle --------------------------------------------------------------------------

  /** Starts serve and waits until it listens. Resolves to this. */
  async start() {
    if (this.state === State.running || this.state === State.connected) return this;
    this.binary = findBinary(this.options.binary);
    this.dir = mkdtempSync(join(tmpdir(), 'pushdouble-node-'));
    const endpoints = join(this.dir, 'endpoints.json');
    this.logFile = join(this.dir, 'serve.log');
    this.stderrFile = join(this.dir, 'serve.err');
    const [bin, ...args] = this._cmd = this.command(endpoints);
    const out = openSync(this.logFile, 'w'), err = openSync(this.stderrFile, 'w');
    try {
      this.child = spawn(bin, args, { stdio: ['ignore', out, err], env: { ...process.env, ...(this.options.env ?? {}) } });
    } finally { closeSync(out); closeSync(err); }
    this.child.unref();  // a forgotten stop() must not keep the test process alive; serve then exits with it
    // The exit status as a shell reports it: the code, or 128 + the number of the signal that ended it.
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve(code ?? 128 + (osConstants.signals[signal] ?? 0))));
    this.child.once('error', (e) => { this._spawnError = e; });
    this.state = State.running;
    const deadline = Date.now() + this.options.startupTimeout;
    for (;;) {
      if (existsSync(endpoints)) {
        try { this._document = JSON.parse(readFileSync(endpoints, 'utf8')); break; } catch { /* written atomically; retry */ }
      }
      if (this._spawnError) await this._fail(`could not be started: ${this._spawnError.message}`);
      if (this.child.exitCode !== null || this.child.signalCode !== null) await this._fail(`exited with status ${this.child.exitCode ?? this.child.signalCode} before it was ready`);
      if (Date.now() > deadline) await this._fail(`was not ready after ${this.options.startupTimeout} ms`);
      await sleep(20);
    }
    this._ca = readFileSync(this._document.environment.PUSHDOUBLE_CA_FILE, 'utf8');
    this._admin = new AdminClient(this.adminUrl);
    return this;
  }

  async _fail(what) {
    const stderr = tail(this.stderrFile);
    await this.stop();
    throw new ServerStartError(`pushdouble serve ${what}\ncommand: ${this._cmd.join(' ')}\nstderr:\n${stderr.trimEnd() || '(empty)'}`);
  }

  /** Stops serve (SIGTERM, SIGKILL after stopGrace) and undoes trust(). Resolves to its exit status
   * (undefined for a connected instance, which is left running). Safe to call twice. */
  async stop() {
    this._trust?.restore();
    this._trust = null;
    if (this.state !== State.running) { if (this.state === State.connected) this.state = State.stopped; return this.returnCode; }
    this.state = State.stopped;
    const child = this.child;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = new Promise((r) => setTimeout(r, this.options.stopGrace, 'timeout'));
      if (await Promise.race([this.exited, timer]) === 'timeout') child.kill('SIGKILL');
    }
    this.returnCode = await this.exited;
    this._lastLog = tail(this.logFile, 1 << 20);
    this._lastStderr = tail(this.stderrFile, 1 << 20);
    rmSync(this.dir, { recursive: true, force: true });
    return this.returnCode;
  }

  async [Symbol.asyncDispose ?? Symbol.for('nodejs.asyncDispose')]() { await this.stop(); }

  /** A clean double for the next test: history, devices (world modes back to default) and rules
   * forgotten, the start-up scenarios loaded again. */
  async fresh() {
    await this.admin.reset();
    await this.admin.clearDevices();
    for (const [i, s] of (this.options.scenarios ?? []).entries()) await this.admin.loadScenario(String(s), { merge: i > 0 });
  }

  // -- what the running double offers -------------------------------------------------------

  _doc() {
    if (!this._document) throw new Error('the double is not started (await start() first)');
    return this._document;
  }
  get running() { return this.state === State.running && this.child?.exitCode === null; }
  /** The serve process id (null for a connected instance). */
  get pid() { return this.child?.pid ?? null; }
  /** The sender environment exactly as serve wrote it (a copy): CA files, proxy, URLs, credential files. */
  get environment() { return { ...this._doc().environment }; }
  /** Every listener: [{name, url, host, port, provider?, environment?}]. */
  get endpoints() { return this._doc().endpoints.map((e) => ({ ...e })); }
  endpoint(name) {
    const e = this._doc().endpoints.find((x) => x.name === name);
    if (!e) throw new RangeError(`no listener ${name} (have: ${this._doc().endpoints.map((x) => x.name).join(', ')})`);
    return { ...e };
  }
  url(name) { return this.endpoint(name).url; }
  get adminUrl() { return this.url('admin'); }
  get caFile() { return this._doc().environment.PUSHDOUBLE_CA_FILE ?? null; }
  /** The test CA (PEM text). */
  get ca() { this._doc(); return this._ca; }
  /** The AdminClient of this double. */
  get admin() { this._doc(); return this._admin; }

  /** TLS options for node:http2 / https / tls: { ca: [system roots, test CA] }. */
  tlsOptions() { return { ca: caList(this.ca) }; }
  /** An undici dispatcher trusting the test CA: fetch(url, { dispatcher }); `{ proxy: 'env' }` or
   * `{ proxy: url }` tunnels HTTPS origins through a CONNECT proxy (the real-host route). */
  dispatcher(options = {}) { return fetchDispatcher(this.ca, options); }
  /** Trusts the test CA process-wide for fetch, https and node:http2 (TLS connections naming no CA) until stop(). */
  async trust() {
    if (!this._trust || this._trust.restored) this._trust = await trustCA(this.ca);
    return this._trust;
  }
  /** http2.connect trusting the test CA, through a CONNECT tunnel when HTTPS_PROXY applies (real-host route). */
  connectHttp2(authority, options = {}) { return connectHttp2(authority, { ...this.tlsOptions(), ...options }); }

  /** Sets the sender environment in `target` (default process.env); returns a function that restores it. */
  applyEnvironment(target = process.env) {
    const saved = {};
    for (const [k, v] of Object.entries(this.environment)) { saved[k] = Object.hasOwn(target, k) ? target[k] : undefined; target[k] = v; }
    return () => { for (const [k, v] of Object.entries(saved)) { if (v === undefined) delete target[k]; else target[k] = v; } };
  }

  /** Redirects TLS connections to the providers' real hosts to this double in this process
   * (for libraries with compiled-in hosts), trusting the test CA on them; returns the function
   * that stops it. */
  redirect() { return redirectHosts(this.hostMap(), this.tlsOptions()); }

  /** {'api.push.apple.com:443': ['127.0.0.1', port], ...}: the real names mapped to this double's listeners. */
  hostMap() {
    const names = Object.fromEntries(this._doc().endpoints.map((e) => [e.name, e]));
    return Object.fromEntries(Object.entries(REAL_HOSTS).filter(([, l]) => names[l]).map(([real, l]) => [real, [names[l].host, Number(names[l].port)]]));
  }

  /** What serve printed on stdout so far (the banner, and the exchange log unless quiet). */
  log() { return this.state === State.running ? tail(this.logFile, 1 << 20) : (this._lastLog ?? ''); }
  stderr() { return this.state === State.running ? tail(this.stderrFile, 1 << 20) : (this._lastStderr ?? ''); }
}
