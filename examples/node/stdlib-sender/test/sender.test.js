// The sender's own tests against PushDouble: the set-up is the first five lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { usePushDouble } from 'pushdouble/node-test';
import { ApnsClient, ExpoClient, FcmClient, WebPushClient } from '../src/index.js';
const pd = usePushDouble();

const TOKEN = 'a1'.repeat(32);
const apns = () => new ApnsClient({
  url: process.env.APNS_URL, sandboxUrl: process.env.APNS_SANDBOX_URL, keyFile: process.env.APNS_KEY_FILE,
  keyId: process.env.APNS_KEY_ID, teamId: process.env.APNS_TEAM_ID, topic: process.env.APNS_TOPIC, tls: pd.tlsOptions(),
});
const fcm = () => new FcmClient({ url: process.env.FCM_URL, serviceAccountFile: process.env.FCM_SERVICE_ACCOUNT_FILE, tokenUrl: process.env.GOOGLE_OAUTH_TOKEN_URL });

test('APNs: an alert reaches the device, signed with one ES256 JWT', async () => {
  const client = apns();
  try {
    assert.equal((await client.send({ title: 'Hi', body: 'there', data: { k: 'v' } }, { token: TOKEN })).outcome, 'sent');
    assert.equal((await client.send({ body: 'again' }, { token: TOKEN })).outcome, 'sent');
  } finally { client.close(); }
  const [first, second] = await pd.admin.waitFor(2, { provider: 'apns' });
  assert.equal(first.status, 200);
  assert.deepEqual(first.apns.payload, { k: 'v', aps: { alert: { title: 'Hi', body: 'there' } } });
  assert.equal(first.requestHeaders.authorization, second.requestHeaders.authorization, 'one JWT for both');
});

test('APNs: 410 Unregistered is dead; 503 with Retry-After is retried after the wait', async () => {
  await pd.admin.registerDevice('gone', 'apns', 'b2'.repeat(32), { state: 'unregistered' });
  await pd.admin.failNext('apns', { token: TOKEN, reason: 'ServiceUnavailable', retryAfter: 1 });
  const client = apns();
  try {
    assert.deepEqual(await client.send({ body: 'x' }, { token: 'b2'.repeat(32) }), { outcome: 'dead', reason: 'Unregistered' });
    const started = Date.now();
    assert.equal((await client.send({ body: 'y' }, { token: TOKEN })).outcome, 'sent');
    assert.ok(Date.now() - started >= 1000, 'waited for Retry-After');
  } finally { client.close(); }
  assert.deepEqual((await pd.admin.history({ token: TOKEN })).map((x) => x.status), [503, 200]);
});

test('FCM: OAuth token minted once, messages sent, UNREGISTERED is dead', async () => {
  await pd.admin.registerDevice('old', 'fcm', 'fcm-token-gone', { state: 'unregistered' });
  const client = fcm();
  assert.equal((await client.send({ title: 'T', data: { n: 1 } }, { token: 'fcm-token-1' })).outcome, 'sent');
  assert.equal((await client.send({ title: 'T' }, { topic: 'news' })).outcome, 'sent');
  assert.deepEqual(await client.send({ title: 'T' }, { token: 'fcm-token-gone' }), { outcome: 'dead', reason: 'UNREGISTERED' });
  assert.equal((await pd.admin.history({ endpoint: 'oauth.token' })).length, 1);
  const [send] = await pd.admin.history({ endpoint: 'fcm.send', limit: 3 });
  assert.deepEqual(send.fcm.data, { n: '1' }, 'data values sent as strings');
});

test('Expo: tickets pending, receipts sent; DeviceNotRegistered is dead', async () => {
  await pd.admin.registerDevice('gone', 'expo', 'ExponentPushToken[gone]', { state: 'unregistered' });
  const client = new ExpoClient({ url: process.env.EXPO_URL, accessToken: process.env.EXPO_ACCESS_TOKEN });
  const [ok, gone] = await client.send({ title: 'T', body: 'B' }, ['ExponentPushToken[ok]', 'ExponentPushToken[gone]']);
  assert.equal(ok.outcome, 'pending');
  assert.deepEqual(gone, { outcome: 'dead', reason: 'DeviceNotRegistered' });
  assert.deepEqual(await client.receipts([ok.ticketId]), { [ok.ticketId]: { outcome: 'sent' } });
  const [send] = await pd.admin.history({ endpoint: 'expo.send' });
  assert.equal(send.requestHeaders.authorization, `Bearer ${process.env.EXPO_ACCESS_TOKEN}`);
});

test('Web Push: the browser decrypts what was sent (aes128gcm, VAPID)', async () => {
  const subscription = await pd.admin.createSubscription({ id: 's1' });
  const client = new WebPushClient({ vapidPrivateKeyFile: process.env.VAPID_PRIVATE_KEY_FILE, vapidPublicKey: process.env.VAPID_PUBLIC_KEY, subject: process.env.VAPID_SUBJECT });
  assert.deepEqual(await client.send({ title: 'Hi', body: 'there', ttlSeconds: 60 }, subscription), { outcome: 'sent' });
  assert.deepEqual((await pd.admin.receivedTexts('s1')).map((t) => JSON.parse(t)), [{ title: 'Hi', body: 'there' }]);
});
