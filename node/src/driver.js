// Driver kit: a `pushdouble conform` adapter in a few lines (docs/conformance.md, "Driver
// protocol v1": JSON-RPC 2.0, one object per line on stdin/stdout).
//
//   import { Adapter, run, sent, dead, failed } from 'pushdouble/driver';
//   class MySender extends Adapter {
//     name = 'my-sender'; version = '1.0'; providers = ['fcm'];
//     async initialize(config) { this.client = new MyFcmClient(config.fcm.url, config.fcm.serviceAccountFile); }
//     async send(notification, devices) { return Promise.all(devices.map((d) => this.push(notification, d))); }
//   }
//   run(new MySender());
//
// stdout carries protocol lines only: the kit keeps the real stdout's write for itself and
// points process.stdout.write (so console.log) at stderr. Requests are handled one at a time;
// a handler may be async. A handler that throws becomes a JSON-RPC error reply (-32000, its
// message) with its stack on stderr, and the loop goes on; an unknown method is -32601, a line
// that is not JSON -32700, a JSON value that is not a request -32600.
import { createInterface } from 'node:readline';
import { redirectFromEnvironment } from './redirect.js';

export { hostMapFromProviders, redirectHosts } from './redirect.js';

export const SENT = 'sent';          // accepted by the provider
export const PENDING = 'pending';    // accepted, the final state comes later (Expo tickets)
export const DEAD = 'dead';          // the token is gone; the sender will not use it again
export const REJECTED = 'rejected';  // the message itself is invalid; not retried
export const FAILED = 'failed';      // transient failure, retries exhausted
export const SKIPPED = 'skipped';    // not attempted (e.g. a token already known dead)
export const ABORTED = 'aborted';    // never attempted: the library aborted the whole batch
export const OUTCOMES = Object.freeze([SENT, PENDING, DEAD, REJECTED, FAILED, SKIPPED, ABORTED]);

/** Devices carry registeredAt; a dead token registered again later is used again. */
export const FEATURE_REGISTERED_AT = 'registeredAt';
/** The runner calls register(devices) (declared for you when register is overridden). */
export const FEATURE_REGISTER = 'register';

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const SERVER_ERROR = -32000;

const deviceId = (device) => (device && typeof device === 'object' ? device.id : String(device));

/** One `results` entry: {device, outcome, reason?, providerMessageId?}; `device` is the device (or target) object or its id. */
export function result(device, outcome, reason, messageId) {
  if (!OUTCOMES.includes(outcome)) throw new RangeError(`outcome ${outcome} is not one of ${OUTCOMES.join(', ')}`);
  const r = { device: deviceId(device), outcome };
  if (reason !== undefined && reason !== null) r.reason = String(reason);
  if (messageId !== undefined && messageId !== null) r.providerMessageId = String(messageId);
  return r;
}
/** Accepted by the provider (messageId: the APNs apns-id, the FCM message name...). */
export const sent = (device, messageId, reason) => result(device, SENT, reason, messageId);
/** Accepted; the final state comes later (an Expo ticket: messageId = the ticket id). */
export const pending = (device, messageId, reason) => result(device, PENDING, reason, messageId);
/** The token is gone (410, BadDeviceToken, UNREGISTERED, DeviceNotRegistered...). */
export const dead = (device, reason) => result(device, DEAD, reason);
/** The message itself is invalid (too large, bad collapse id...); not retried. */
export const rejected = (device, reason) => result(device, REJECTED, reason);
/** Transient failure, retries exhausted. */
export const failed = (device, reason) => result(device, FAILED, reason);
/** Not attempted (e.g. a token the sender already knows is dead). */
export const skipped = (device, reason) => result(device, SKIPPED, reason);
/** Never attempted because the library aborted the batch. */
export const aborted = (device, reason) => result(device, ABORTED, reason);

/**
 * The outcome a library's error stands for, by its class: `table` is a Map (or an array of
 * [Class, outcome] pairs) and the most specific class in the error's prototype chain wins
 * (so [[UnregisteredError, DEAD], [FirebaseError, FAILED]] gives dead for the subclass).
 * `fallback` when no class matches. Never read message text when the library gives a type.
 */
export function outcomeOf(error, table, fallback = FAILED) {
  const map = table instanceof Map ? table : new Map(table);
  for (let p = error !== null && error !== undefined ? Object.getPrototypeOf(error) : null; p; p = Object.getPrototypeOf(p)) {
    if (map.has(p.constructor)) return map.get(p.constructor);
  }
  return fallback;
}

/**
 * What an application keeps of the tokens a provider called dead, so an adapter skips them
 * later and sends again once the app registered the token anew. skip(device) returns a
 * skipped() result for a token known dead, else null; a device whose registeredAt is later
 * than the moment the death was learnt is alive again. note(device, entry) records a dead()
 * result's token and returns entry; revive(devices) forgets them (the register call).
 */
export class DeadTokens {
  constructor(clock = Date.now) { this.clock = clock; this.dead = new Map(); }
  has(token) { return this.dead.has(token); }
  skip(device) {
    const known = this.dead.get(device.token);
    if (!known) return null;
    if (device.registeredAt && Date.parse(device.registeredAt) > known.at) { this.dead.delete(device.token); return null; }
    return skipped(device, `known dead: ${known.reason}`);
  }
  note(device, entry) {
    if (entry?.outcome === DEAD && device && typeof device === 'object') this.dead.set(device.token, { at: this.clock(), reason: entry.reason ?? 'dead' });
    return entry;
  }
  revive(devices) { for (const d of devices ?? []) this.dead.delete(d.token); }
}

/**
 * Base class of an adapter: set name, version, providers (and features, fields, targets when
 * needed) as fields, override initialize / send / settle / register / shutdown.
 */
export class Adapter {
  name = 'node-adapter';
  version = '0';
  providers = [];
  features = [];
  fields = null;
  targets = [];
  /** The full initialize params, once initialized. */
  params = null;

  /** config is params.providers: {apns: {url, sandboxUrl, caFile, keyFile, keyId, teamId, topic}, fcm: {...}, ...}.
   * May return an object whose members are added to the initialize result. */
  initialize(config) {}
  /** Sends to every device (and target); returns one result per recipient, retries included. */
  send(notification, devices, targets) { throw new Error('this adapter does not implement send'); }
  /** Finishes deferred work (Expo receipts) and returns the results that changed. */
  settle() { return []; }
  /** The app registered these devices' tokens again now (only called when overridden). */
  register(devices) { throw new Error('register is not implemented'); }
  /** Releases resources; the kit replies {} and the loop ends. */
  shutdown() {}

  supportsRegister() { return this.register !== Adapter.prototype.register; }
  /** The initialize result built from the fields. */
  initializeResult() {
    const r = { name: String(this.name), version: String(this.version), providers: [...this.providers] };
    const features = [...(this.features ?? [])];
    if (this.supportsRegister() && !features.includes(FEATURE_REGISTER)) features.push(FEATURE_REGISTER);
    if (features.length) r.features = features;
    if (this.fields) r.fields = Object.fromEntries(Object.entries(this.fields).map(([k, v]) => [k, [...v]]));
    if (this.targets?.length) r.targets = [...this.targets];
    return r;
  }
}

class MethodNotFound extends Error {}
class InvalidParams extends Error {}

const rpcError = (id, code, message) => ({ jsonrpc: '2.0', id: id ?? null, error: { code, message } });

function results(value) {
  if (value === undefined || value === null) return { results: [] };
  if (!Array.isArray(value)) return 'results' in value ? value : { results: [value] };
  for (const r of value) {
    if (!r || typeof r !== 'object' || !('device' in r) || !('outcome' in r)) console.error(`pushdouble driver: result ${JSON.stringify(r)} has no device/outcome (use sent(), dead(), ...)`);
  }
  return { results: value };
}

/** Dispatches one request to the adapter; resolves to the result value. */
async function call(adapter, method, params = {}) {
  params ??= {};
  switch (method) {
    case 'initialize': {
      if (typeof params !== 'object' || Array.isArray(params)) throw new InvalidParams('initialize params must be an object');
      adapter.params = params;
      const extra = await adapter.initialize(params.providers ?? {});
      return { ...adapter.initializeResult(), ...(extra && typeof extra === 'object' ? extra : {}) };
    }
    case 'send':
      if (typeof params !== 'object' || Array.isArray(params)) throw new InvalidParams('send params must be an object');
      return results(await adapter.send(params.notification ?? {}, params.devices ?? [], params.targets ?? []));
    case 'settle':
      return results(await adapter.settle());
    case 'register': {
      if (!adapter.supportsRegister()) throw new MethodNotFound(method);
      const r = await adapter.register((Array.isArray(params) ? params : params.devices) ?? []);
      return r === undefined || r === null ? {} : Array.isArray(r) ? { results: r } : r;
    }
    case 'shutdown':
      await adapter.shutdown();
      return {};
    default:
      throw new MethodNotFound(method);
  }
}

/** One input line → the reply object (null for blank lines, notifications and responses). */
export async function handleLine(adapter, line) {
  if (!line.trim()) return null;
  let msg;
  try { msg = JSON.parse(line); } catch (e) { console.error(`pushdouble driver: not JSON: ${e.message}`); return rpcError(null, PARSE_ERROR, `Parse error: ${e.message}`); }
  if (!msg || typeof msg !== 'object' || Array.isArray(msg) || typeof msg.method !== 'string') {
    if (msg && typeof msg === 'object' && !('method' in msg) && ('result' in msg || 'error' in msg)) return null;
    return rpcError(msg?.id, INVALID_REQUEST, 'Invalid Request: expected an object with a method');
  }
  const notification = !('id' in msg);
  let reply;
  try {
    reply = { jsonrpc: '2.0', id: msg.id, result: await call(adapter, msg.method, msg.params) };
  } catch (e) {
    if (e instanceof MethodNotFound) reply = rpcError(msg.id, METHOD_NOT_FOUND, `Method not found: ${msg.method}`);
    else if (e instanceof InvalidParams) reply = rpcError(msg.id, INVALID_PARAMS, `Invalid params: ${e.message}`);
    else { console.error(`pushdouble driver: ${msg.method} failed:`, e); reply = rpcError(msg.id, SERVER_ERROR, String(e?.message ?? e)); }
  }
  return notification ? null : reply;
}

/**
 * Runs `adapter` as a driver-protocol sender until shutdown (or the end of input). Resolves once
 * the loop ends; with `exit` (default true) the process then exits, so open connections and
 * timers cannot keep it alive past shutdown. With `redirect` (default true) and
 * $PUSHDOUBLE_HOST_MAP set, the in-process host redirect is started first.
 */
export async function run(adapter, { input = process.stdin, exit = true, redirect = true } = {}) {
  if (redirect && redirectFromEnvironment()) console.error(`pushdouble driver: host redirect active: ${process.env.PUSHDOUBLE_HOST_MAP}`);
  const protocolWrite = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr);
  const write = (text) => new Promise((resolve) => protocolWrite(text, resolve));
  const lines = createInterface({ input, crlfDelay: Infinity });
  for await (const line of lines) {
    const reply = await handleLine(adapter, line);
    if (reply) {
      let text;
      try { text = JSON.stringify(reply); } catch (e) { text = JSON.stringify(rpcError(reply.id, SERVER_ERROR, `the handler's result is not JSON: ${e.message}`)); }
      await write(text + '\n');
    }
    if (reply?.result && JSON.parse(line).method === 'shutdown') break;
  }
  lines.close();
  if (exit) process.exit(0);
}
