// The real-host route: node:http2 through the double's CONNECT proxy to api.push.apple.com,
// NO_PROXY for the loopback URLs, and in-process trust of the test CA for fetch.
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { after, before, test } from 'node:test';
import { PushDouble, bypassesProxy, connectHttp2, proxyFor } from '../src/index.js';
import { apnsPostWithoutJwt, expoPush } from './support.js';

let pd;
before(async () => { pd = await PushDouble.start(); });
after(async () => { await pd.stop(); });

test('NO_PROXY: names, suffixes, ports, *', () => {
  const no = '127.0.0.1,localhost,::1,.internal.example,push.example:8443';
  assert.equal(bypassesProxy('https://127.0.0.1:4000', no), true);
  assert.equal(bypassesProxy('https://[::1]:4000', no), true);
  assert.equal(bypassesProxy('https://a.internal.example', no), true);
  assert.equal(bypassesProxy('https://push.example:8443', no), true);
  assert.equal(bypassesProxy('https://push.example', no), false);
  assert.equal(bypassesProxy('https://api.push.apple.com', no), false);
  assert.equal(bypassesProxy('https://anything', '*'), true);
  const env = { HTTPS_PROXY: 'http://127.0.0.1:1', NO_PROXY: no };
  assert.equal(proxyFor('https://api.push.apple.com', env), 'http://127.0.0.1:1');
  assert.equal(proxyFor('https://127.0.0.1:4000/token', env), null, 'the loopback token URL skips the proxy');
  assert.equal(proxyFor('https://api.push.apple.com', {}), null);
});

test('node:http2 to https://api.push.apple.com through the CONNECT proxy reaches the APNs fake', async () => {
  const session = await connectHttp2('https://api.push.apple.com', { proxy: pd.url('proxy'), ...pd.tlsOptions() });
  assert.equal(await apnsPostWithoutJwt(session, pd.environment.APNS_TOPIC, 'cd'.repeat(32), 'via the tunnel'), 403);
  const [x] = await pd.admin.waitFor(1, { provider: 'apns' });
  assert.equal(x.environment, 'production');
  assert.equal(x.reason, 'MissingProviderToken');
});

test('trust(): fetch trusts the test CA until stop (restore); before it, fetch refuses the certificate', async () => {
  const untrusted = (e) => e.cause?.code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE';
  await assert.rejects(expoPush(pd, 'ExponentPushToken[t1]'), untrusted);
  const t = await pd.trust();
  assert.equal((await expoPush(pd, 'ExponentPushToken[t1]')).status, 200);
  t.restore();
  await assert.rejects(expoPush(pd, 'ExponentPushToken[t1]'), untrusted);
});

test('fetch through the CONNECT proxy: dispatcher({ proxy }) to https://exp.host; NO_PROXY keeps loopback direct', async () => {
  await pd.admin.reset();
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${pd.environment.EXPO_ACCESS_TOKEN}` };
  const viaProxy = await pd.dispatcher({ proxy: pd.url('proxy') });
  const r = await fetch('https://exp.host/--/api/v2/push/send', { method: 'POST', headers, body: '{"to":"ExponentPushToken[p1]"}', dispatcher: viaProxy });
  assert.equal(r.status, 200);
  const saved = { HTTPS_PROXY: process.env.HTTPS_PROXY, NO_PROXY: process.env.NO_PROXY };
  Object.assign(process.env, { HTTPS_PROXY: pd.url('proxy'), NO_PROXY: '127.0.0.1,localhost,::1' });
  try {
    const fromEnv = await pd.dispatcher({ proxy: 'env' });
    assert.equal((await fetch('https://exp.host/--/api/v2/push/send', { method: 'POST', headers, body: '{"to":"ExponentPushToken[p2]"}', dispatcher: fromEnv })).status, 200);
    assert.equal((await fetch(pd.url('expo') + '/--/api/v2/push/send', { method: 'POST', headers, body: '{"to":"ExponentPushToken[p3]"}', dispatcher: fromEnv })).status, 200);
  } finally { for (const [k, v] of Object.entries(saved)) { if (v === undefined) delete process.env[k]; else process.env[k] = v; } }
  assert.equal((await pd.admin.history({ provider: 'expo' })).length, 3);
});

test('trust(): node:http2 with no CA option trusts the test CA too, until restore', async () => {
  // Untrusted either way the server presents its chain: the leaf alone, or with the test CA.
  const untrusted = (e) => ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN'].includes(e.code);
  const connect = () => new Promise((resolve, reject) => {
    const s = http2.connect(pd.url('apns-production'));
    s.once('connect', () => { s.close(); resolve('connected'); });
    s.once('error', reject);
  });
  await assert.rejects(connect(), untrusted);
  const t = await pd.trust();
  assert.equal(await connect(), 'connected');
  t.restore();
  await assert.rejects(connect(), untrusted);
});
