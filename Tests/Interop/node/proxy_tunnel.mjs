// Node (20: no built-in HTTPS_PROXY support) reaching PushDouble through its CONNECT proxy the
// way Node push libraries tunnel: `http.request({method: 'CONNECT'})` to the proxy, then TLS
// inside the socket with the real host as SNI. Node built-ins only. The CA comes from
// NODE_EXTRA_CA_CERTS (read by Node at start-up: no `ca` option below). Hosts are the real
// ones, as compiled into production senders. Run by
// Tests/PushDoubleAPNsTests/ProxyEcosystemTests.swift:
//
//   NODE_EXTRA_CA_CERTS=$PUSHDOUBLE_CA_FILE node proxy_tunnel.mjs --proxy http://127.0.0.1:8729 \
//     --apns-key AuthKey_PDTESTKEY1.p8 --key-id PDTESTKEY1 --team-id PDTESTTEAM --topic com.example.pushdouble \
//     --expo-token <EXPO_ACCESS_TOKEN>
//
// Checks (one JSON line {"library","version","failures","results"}; exit 1 if one failed):
//   apns_http2       http2.connect('https://api.push.apple.com', {createConnection: tls over the
//                    tunnel, ALPN h2}) → 200 + apns-id; a 3-character token → 400 BadDeviceToken
//   expo_https       https.request to https://exp.host/--/api/v2/push/send with createConnection
//                    over a tunnel (HTTP/1.1, as expo-server-sdk's fetch speaks) → 200, status ok
//   expo_fetch       the built-in fetch() with an undici Agent whose `connect` opens the tunnel
//                    (the Agent class taken from fetch's global dispatcher: Node 20 does not
//                    export undici) → 200, status ok
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import tls from 'node:tls';

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const proxy = new URL(args.proxy);
const results = {};
const failures = [];

async function check(name, fn) {
  try {
    results[name] = await fn();
  } catch (e) {
    failures.push(`${name}: ${e && e.stack ? e.stack.split('\n').slice(0, 3).join(' | ') : e}`);
  }
}

/** A CONNECT tunnel to host:port through the proxy: resolves to the raw socket. */
function tunnel(host, port) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: proxy.hostname, port: proxy.port, method: 'CONNECT', path: `${host}:${port}`,
                               headers: { host: `${host}:${port}` } });
    req.once('connect', (res, socket) => {
      if (res.statusCode !== 200) { socket.destroy(); reject(new Error(`CONNECT ${host}:${port}: ${res.statusCode}`)); return; }
      resolve(socket);
    });
    req.once('error', reject);
    req.end();
  });
}

/** TLS inside a tunnel, the real name as SNI; the CA from NODE_EXTRA_CA_CERTS. */
function tlsOver(socket, servername, alpn) {
  return tls.connect({ socket, servername, ALPNProtocols: alpn });
}

const b64url = (b) => Buffer.from(b).toString('base64url');

function apnsJWT() {
  const input = b64url(JSON.stringify({ alg: 'ES256', kid: args['key-id'] })) + '.' +
    b64url(JSON.stringify({ iss: args['team-id'], iat: Math.floor(Date.now() / 1000) }));
  const key = crypto.createPrivateKey(fs.readFileSync(args['apns-key']));
  const sig = crypto.sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
  return input + '.' + b64url(sig);
}

async function apnsHTTP2() {
  const host = 'api.push.apple.com';
  const socket = await tunnel(host, 443);
  const session = http2.connect(`https://${host}`, { createConnection: () => tlsOver(socket, host, ['h2']) });
  const jwt = apnsJWT();
  function send(token) {
    return new Promise((resolve, reject) => {
      const req = session.request({ ':method': 'POST', ':path': `/3/device/${token}`, authorization: `bearer ${jwt}`,
                                    'apns-topic': args.topic, 'apns-push-type': 'alert' });
      let headers; let body = '';
      req.on('response', (h) => { headers = h; });
      req.setEncoding('utf8');
      req.on('data', (c) => { body += c; });
      req.on('end', () => resolve({ status: headers[':status'], apnsID: headers['apns-id'], body }));
      req.on('error', reject);
      req.end(JSON.stringify({ aps: { alert: 'Node through the proxy' } }));
    });
  }
  try {
    const ok = await send('b2'.repeat(32));
    if (ok.status !== 200 || !ok.apnsID) throw new Error(`success: ${JSON.stringify(ok)}`);
    const bad = await send('abc');
    if (bad.status !== 400 || JSON.parse(bad.body).reason !== 'BadDeviceToken') throw new Error(`bad token: ${JSON.stringify(bad)}`);
    return { status: ok.status, apns_id: ok.apnsID, alpn: session.alpnProtocol, bad_token: { status: bad.status, body: bad.body } };
  } finally {
    session.close();
  }
}

const expoMessage = JSON.stringify([{ to: 'ExponentPushToken[nodeproxy0000000001]', title: 'Node through the proxy' }]);

function expoReply(status, text) {
  const body = JSON.parse(text);
  if (status !== 200 || !Array.isArray(body.data) || body.data[0].status !== 'ok') throw new Error(`${status}: ${text}`);
  return { status, ticket: body.data[0].id };
}

async function expoHTTPS() {
  const socket = await tunnel('exp.host', 443);
  return new Promise((resolve, reject) => {
    const req = https.request({ host: 'exp.host', path: '/--/api/v2/push/send', method: 'POST',
                                headers: { 'content-type': 'application/json', authorization: `Bearer ${args['expo-token']}` },
                                createConnection: () => tlsOver(socket, 'exp.host', ['http/1.1']) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { text += c; });
      res.on('end', () => { try { resolve({ ...expoReply(res.statusCode, text), http: res.httpVersion }); } catch (e) { reject(e); } });
    });
    req.on('error', reject);
    req.end(expoMessage);
  });
}

async function expoFetch() {
  // Node 20 bundles undici for fetch() but exports none of it: a data: fetch creates the global
  // dispatcher, whose class is undici's Agent; its `connect` option supplies the socket.
  await fetch('data:text/plain,');
  const Agent = globalThis[Symbol.for('undici.globalDispatcher.1')].constructor;
  const dispatcher = new Agent({
    connect: (opts, callback) => {
      tunnel(opts.hostname, Number(opts.port) || 443).then((socket) => {
        const t = tlsOver(socket, opts.servername || opts.hostname, ['http/1.1']);
        t.once('secureConnect', () => callback(null, t));
        t.once('error', (e) => callback(e, null));
      }, (e) => callback(e, null));
    },
  });
  try {
    const res = await fetch('https://exp.host/--/api/v2/push/send', {
      method: 'POST', body: expoMessage, dispatcher,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${args['expo-token']}` },
    });
    return expoReply(res.status, await res.text());
  } finally {
    await dispatcher.close();
  }
}

if (args['apns-key']) await check('apns_http2', apnsHTTP2);
if (args['expo-token']) {
  await check('expo_https', expoHTTPS);
  await check('expo_fetch', expoFetch);
}
console.log(JSON.stringify({ library: 'node', version: process.version, failures, results }));
process.exit(failures.length ? 1 : 0);
