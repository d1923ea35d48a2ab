// The in-process host redirect: https, node:http2 and fetch to the providers' real host names
// reach the double (SNI and certificate checks on the real names), and stop when restored.
import assert from 'node:assert/strict';
import https from 'node:https';
import http2 from 'node:http2';
import tls from 'node:tls';
import { after, before, test } from 'node:test';
import { PushDouble, hostMapFromProviders, parseHostMap, redirectHosts } from '../src/index.js';
import './support.js';

let pd;
before(async () => { pd = await PushDouble.start({ proxy: false }); await pd.trust(); });
after(async () => { await pd.stop(); });

test('host maps: parsed from JSON, built from initialize params', () => {
  assert.deepEqual([...parseHostMap('{"exp.host:443":"127.0.0.1:9"}')], [['exp.host:443', ['127.0.0.1', 9]]]);
  const m = hostMapFromProviders({ apns: { url: 'https://127.0.0.1:4001', sandboxUrl: 'https://127.0.0.1:4002' }, fcm: { url: 'https://127.0.0.1:4003' } });
  assert.deepEqual(m['api.push.apple.com:443'], ['127.0.0.1', 4001]);
  assert.deepEqual(m['api.development.push.apple.com:2197'], ['127.0.0.1', 4002]);
  assert.deepEqual(m['fcm.googleapis.com:443'], ['127.0.0.1', 4003]);
  assert.equal(m['exp.host:443'], undefined);
});

test('https, node:http2 and fetch to the real hosts reach the fakes; restore ends it', async () => {
  const before = tls.connect;
  const restore = pd.redirect();
  try {
    const expo = await new Promise((resolve, reject) => {
      const req = https.request('https://exp.host/--/api/v2/push/send', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${pd.environment.EXPO_ACCESS_TOKEN}` } }, (res) => {
        res.resume(); res.on('end', () => resolve(res.statusCode));
      });
      req.on('error', reject);
      req.end(JSON.stringify({ to: 'ExponentPushToken[r1]', body: 'via https' }));
    });
    assert.equal(expo, 200);
    const session = http2.connect('https://api.sandbox.push.apple.com');  // no CA option: the redirect's
    const apns = await new Promise((resolve, reject) => {
      const req = session.request({ ':method': 'POST', ':path': '/3/device/' + 'ef'.repeat(32), 'apns-topic': 'com.example.pushdouble' });
      req.on('response', (h) => resolve(h[':status']));
      req.on('error', reject);
      req.end('{"aps":{}}');
    });
    session.close();
    assert.equal(apns, 403);
    const fcm = await fetch('https://fcm.googleapis.com/v1/projects/pushdouble-test/messages:send', { method: 'POST', body: '{}' });
    assert.equal(fcm.status, 401);
  } finally { restore(); }
  assert.equal(tls.connect, before, 'tls.connect is the original again');
  const seen = (await pd.admin.history()).map((x) => `${x.provider} ${x.environment ?? ''}`.trim());
  assert.deepEqual(seen, ['expo', 'apns sandbox', 'fcm']);
});

test('unmapped hosts and nested maps: the newest map wins, others connect as usual', async () => {
  const outer = redirectHosts({ 'exp.host:443': ['127.0.0.1', 9] });
  const inner = redirectHosts({ 'exp.host:443': pd.hostMap()['exp.host:443'] });
  try {
    const r = await fetch('https://exp.host/--/api/v2/push/send', {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${pd.environment.EXPO_ACCESS_TOKEN}` }, body: '{"to":"ExponentPushToken[r2]"}',
    });
    assert.equal(r.status, 200);
  } finally { inner(); outer(); }
});
