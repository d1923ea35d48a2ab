// node:http2 through an HTTP CONNECT proxy (`pushdouble conform --real-hosts` gives senders the
// providers' real URLs and HTTPS_PROXY; Node's http2 has no proxy support of its own).
import http from 'node:http';
import http2 from 'node:http2';
import tls from 'node:tls';

/** Whether `NO_PROXY` (comma-separated host names, `.suffix`, `*`, host:port) exempts `url`. */
export function bypassesProxy(url, noProxy = process.env.NO_PROXY ?? process.env.no_proxy ?? '') {
  const u = new URL(url);
  const host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = u.port || (u.protocol === 'https:' ? '443' : '80');
  for (let entry of noProxy.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)) {
    if (entry === '*') return true;
    let entryPort = null;
    const m = entry.match(/^(.*):(\d+)$/);
    if (m && !entry.includes('::')) { entry = m[1]; entryPort = m[2]; }
    if (entryPort && entryPort !== port) continue;
    entry = entry.replace(/^\*?\./, '.');
    if (host === entry.replace(/^\./, '') || (entry.startsWith('.') && host.endsWith(entry))) return true;
  }
  return false;
}

/** The proxy URL that applies to `url` (HTTPS_PROXY / https_proxy, unless NO_PROXY exempts it), or null. */
export function proxyFor(url, env = process.env) {
  const proxy = env.HTTPS_PROXY ?? env.https_proxy;
  if (!proxy) return null;
  return bypassesProxy(url, env.NO_PROXY ?? env.no_proxy ?? '') ? null : proxy;
}

/** A raw TCP socket to `host:port` through the CONNECT proxy at `proxyUrl`. */
export function connectTunnel(proxyUrl, host, port, { timeout = 10_000 } = {}) {
  const proxy = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: proxy.hostname, port: proxy.port || 80, method: 'CONNECT', path: `${host}:${port}`,
      headers: { host: `${host}:${port}` }, timeout, agent: false,
    });
    req.on('connect', (res, socket) => {
      if (res.statusCode !== 200) { socket.destroy(); reject(new Error(`proxy ${proxyUrl} refused CONNECT ${host}:${port}: ${res.statusCode}`)); return; }
      resolve(socket);
    });
    req.on('timeout', () => req.destroy(new Error(`CONNECT ${host}:${port} via ${proxyUrl}: no answer within ${timeout} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/**
 * http2.connect(authority, options), through the CONNECT proxy when one applies to it
 * (`options.proxy`, else HTTPS_PROXY / NO_PROXY): TLS with ALPN h2 and the real host name as
 * SNI inside the tunnel. Resolves once the session is connected.
 */
export async function connectHttp2(authority, options = {}) {
  const { proxy = proxyFor(authority), ...http2Options } = options;
  const u = new URL(authority);
  const port = Number(u.port || 443);
  let createConnection;
  if (proxy) {
    const raw = await connectTunnel(proxy, u.hostname, port);
    createConnection = () => tls.connect({ ...http2Options, socket: raw, servername: u.hostname, ALPNProtocols: ['h2'] });
  }
  return new Promise((resolve, reject) => {
    const session = http2.connect(authority, { ...http2Options, ...(createConnection ? { createConnection } : {}) });
    session.once('connect', () => { session.off('error', reject); resolve(session); });
    session.once('error', reject);
  });
}
