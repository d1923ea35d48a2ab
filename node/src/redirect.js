// In-process host redirect for clients with compiled-in provider hosts that ignore HTTPS_PROXY
// (firebase-admin's HTTP/2 sendEach, google-auth-library's token URL, APNs libraries): TLS
// connections to a mapped host:port go to the double's listener instead. Only the address
// changes: the real name stays the TLS server name (SNI) and the name checked against the
// certificate, which the double's test certificate carries; trust its CA as usual.
//
// It wraps tls.connect, which https, node:http2 and fetch (Node's bundled undici) all call
// through the module object at connect time; the same wrapper gives connections that name no CA
// the test CA while trustCA is in force (trustByDefault). Connections made before, or by other processes,
// are not redirected; plain-HTTP connections are not touched.
import tls from 'node:tls';

export const ENV_VAR = 'PUSHDOUBLE_HOST_MAP';

/** Each provider's real host names (by its initialize member) — the same table as the Python kit's. */
const PROVIDER_HOSTS = [
  ['apns', 'url', ['api.push.apple.com:443', 'api.push.apple.com:2197']],
  ['apns', 'sandboxUrl', ['api.sandbox.push.apple.com:443', 'api.sandbox.push.apple.com:2197',
    'api.development.push.apple.com:443', 'api.development.push.apple.com:2197']],
  ['fcm', 'url', ['fcm.googleapis.com:443']],
  ['fcm', 'tokenUrl', ['oauth2.googleapis.com:443']],
  ['expo', 'url', ['exp.host:443']],
  ['webpush', 'url', ['updates.push.services.mozilla.com:443', 'web.push.apple.com:443']],
];

const active = [];  // {map, ca}, newest last (the newest wins)
const defaultCAs = [];  // CA lists for connections that name none (trustCA), newest last
let original = null;

function splitHostPort(text) {
  const m = String(text).trim().match(/^\[?([^\]]+?)\]?:(\d+)$/);
  if (!m) throw new TypeError(`${text}: expected host:port`);
  return [m[1].toLowerCase(), Number(m[2])];
}

/** {"host:port": "ip:port" | [ip, port]} → Map("host:port" → [ip, port]). */
export function parseHostMap(map) {
  const out = new Map();
  for (const [from, to] of Object.entries(typeof map === 'string' ? JSON.parse(map) : map)) {
    const [h, p] = splitHostPort(from);
    out.set(`${h}:${p}`, Array.isArray(to) ? [String(to[0]), Number(to[1])] : splitHostPort(to));
  }
  return out;
}

/** The host map for the fakes named in initialize's params.providers: real names → each fake's address. */
export function hostMapFromProviders(providers = {}) {
  const out = {};
  for (const [provider, member, names] of PROVIDER_HOSTS) {
    const url = providers[provider]?.[member];
    if (!url) continue;
    const u = new URL(url);
    if (!u.port) continue;
    for (const name of names) out[name] = [u.hostname.replace(/^\[|\]$/g, ''), Number(u.port)];
  }
  return out;
}

function target(host, port) {
  const key = `${String(host ?? 'localhost').toLowerCase()}:${Number(port ?? 443)}`;
  for (let i = active.length - 1; i >= 0; i--) if (active[i].map.has(key)) return { to: active[i].map.get(key), ca: active[i].ca };
  return null;
}

function redirectedConnect(...args) {
  // tls.connect(options[, cb]) or tls.connect(port[, host][, options][, cb])
  let options, rest;
  if (args[0] !== null && typeof args[0] === 'object') { options = { ...args[0] }; rest = args.slice(1); } else {
    options = {};
    let i = 0;
    options.port = args[i++];
    if (typeof args[i] === 'string') options.host = args[i++];
    if (args[i] !== null && typeof args[i] === 'object') Object.assign(options, args[i++]);
    rest = args.slice(i);
  }
  const hit = options.socket ? null : target(options.host, options.port);
  const fallbackCA = options.ca || options.secureContext ? null : defaultCAs.at(-1) ?? null;
  if (!hit && !fallbackCA) return original.apply(tls, args);
  if (!hit) return original.call(tls, { ...options, ca: fallbackCA }, ...rest);
  const servername = options.servername ?? options.host;
  const ca = options.ca ?? hit.ca ?? fallbackCA ?? undefined;  // a client's own CA wins; else the redirect's
  return original.call(tls, { ...options, host: hit.to[0], port: hit.to[1], servername, ...(ca ? { ca } : {}) }, ...rest);
}

/** Adds `entry` to `list` with the wrapper installed; returns the function that removes it
 * (and the wrapper, once nothing needs it). */
function hook(list, entry) {
  if (!original) { original = tls.connect; tls.connect = redirectedConnect; }
  list.push(entry);
  return function restore() {
    const i = list.lastIndexOf(entry);
    if (i >= 0) list.splice(i, 1);
    if (!active.length && !defaultCAs.length && original) { tls.connect = original; original = null; }
  };
}

/**
 * Every TLS connection of this process that names no CA (nor a secure context) trusts `ca` (a
 * CA list) until the returned function is called: node:http2, https with its own agent, fetch.
 * Used by trustCA.
 */
export function trustByDefault(ca) {
  return hook(defaultCAs, ca);
}

/**
 * Starts redirecting (a map as parseHostMap takes); returns a function that stops it. With `ca`
 * (a CA list), redirected connections that name no CA of their own trust it: a library that
 * opens node:http2 sessions with no CA option (firebase-admin) then needs nothing else.
 */
export function redirectHosts(map, { ca } = {}) {
  return hook(active, { map: map instanceof Map ? map : parseHostMap(map), ca: ca ?? null });
}

/** redirectHosts($PUSHDOUBLE_HOST_MAP) when it is set; null otherwise. */
export function redirectFromEnvironment(env = process.env) {
  return env[ENV_VAR] ? redirectHosts(env[ENV_VAR]) : null;
}
