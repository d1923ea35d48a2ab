// Trusting the double's test CA inside the running process. NODE_EXTRA_CA_CERTS is read only
// when Node starts, so a test that starts the double itself must hand the CA to each client:
// fetch (through an undici dispatcher), https (the global agent) and node:http2 (an option).
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { connectTunnel, proxyFor } from './tunnel.js';
import { trustByDefault } from './redirect.js';

const DISPATCHER = Symbol.for('undici.globalDispatcher.1');

/** The CA list a client needs: the system roots and the test CA (PEM text or array of PEM). */
export function caList(pem) {
  return [...tls.rootCertificates, ...(Array.isArray(pem) ? pem : [pem])];
}

/** The Agent class of Node's built-in fetch (undici), found through its global dispatcher (no
 * npm package: Node does not export it). The dispatcher is created when fetch is first used. */
async function undiciAgentClass() {
  if (!globalThis[DISPATCHER]) {
    try { await fetch('data:,'); } catch { /* only to load fetch's internals */ }
  }
  const ctor = globalThis[DISPATCHER]?.constructor;
  if (typeof ctor !== 'function') throw new Error('cannot find the dispatcher class of this Node\'s fetch');
  return ctor;
}

/**
 * An undici dispatcher trusting `pem` for `fetch(url, { dispatcher })`. With `proxy: 'env'`
 * (HTTPS_PROXY / NO_PROXY, read per origin) or a proxy URL, HTTPS origins the proxy applies to
 * are reached through a CONNECT tunnel (Node 20's fetch reads no proxy variables).
 */
export async function fetchDispatcher(pem, { proxy = null, ...connect } = {}) {
  const Agent = await undiciAgentClass();
  const options = { ca: caList(pem), ...connect };
  if (!proxy) return new Agent({ connect: options });
  return new Agent({ connect: tunnelConnector(options, proxy) });
}

/** undici's connect function: a TLS socket to the origin, inside a CONNECT tunnel when a proxy applies. */
function tunnelConnector(options, proxy) {
  return ({ hostname, host, protocol, port, servername }, callback) => {
    const origin = `${protocol}//${host}`;
    const via = protocol === 'https:' ? (proxy === 'env' ? proxyFor(origin) : proxy) : null;
    const name = hostname.replace(/^\[|\]$/g, '');
    const tlsOptions = { ...options, servername: servername || name, ALPNProtocols: ['http/1.1'] };
    const done = (socket, ready = 'secureConnect') => {
      let called = false;
      const once = (err) => { if (!called) { called = true; err ? callback(err) : callback(null, socket); } };
      socket.once(ready, () => once()).once('error', once);
    };
    if (protocol !== 'https:') { done(net.connect({ host: name, port: Number(port) || 80 }), 'connect'); return; }
    if (!via) { done(tls.connect({ ...tlsOptions, host: name, port: Number(port) || 443 })); return; }
    connectTunnel(via, name, Number(port) || 443).then((raw) => done(tls.connect({ ...tlsOptions, socket: raw })), callback);
  };
}

/**
 * Trusts `pem` process-wide until `restore()`: fetch (global dispatcher), https.globalAgent, and
 * every other TLS connection that names no CA of its own — node:http2 has no global setting, so
 * tls.connect supplies it (redirect.js's trustByDefault).
 */
export async function trustCA(pem) {
  const previous = { dispatcher: globalThis[DISPATCHER], ca: https.globalAgent.options.ca };
  const dispatcher = await fetchDispatcher(pem);
  globalThis[DISPATCHER] = dispatcher;
  https.globalAgent.options.ca = caList(pem);
  const untrust = trustByDefault(caList(pem));
  const handle = {
    dispatcher,
    restored: false,
    restore() {
      if (handle.restored) return;
      handle.restored = true;
      untrust();
      if (globalThis[DISPATCHER] === dispatcher) globalThis[DISPATCHER] = previous.dispatcher;
      https.globalAgent.options.ca = previous.ca;
      dispatcher.close?.().catch?.(() => {});
    },
  };
  return handle;
}
