// The admin client against a real `pushdouble serve`: devices, faults, scenarios, history and
// wait-for, with real traffic (fetch and node:http2 trusting the test CA in-process).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import http2 from 'node:http2';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apnsPostWithoutJwt, expoPush } from './support.js';
import { AdminClient, AdminError, PushDouble } from '../src/index.js';

const TOKEN = 'ExponentPushToken[node-kit-1]';

describe('AdminClient on a real serve', () => {
  let pd;
  before(async () => { pd = await PushDouble.start(); await pd.trust(); });
  after(async () => { assert.equal(await pd.stop(), 0); });

  test('health and endpoints', async () => {
    const h = await pd.admin.health();
    assert.equal(h.status, 'ok');
    assert.deepEqual(h.providers, ['apns', 'expo', 'fcm', 'webpush']);
    const names = (await pd.admin.endpoints()).map((e) => e.name);
    assert.ok(names.includes('admin') && names.includes('apns-production'), names.join());
    assert.equal(pd.adminUrl, pd.environment.PUSHDOUBLE_ADMIN_URL);
    assert.match(pd.ca, /BEGIN CERTIFICATE/);
  });

  test('devices: register, state changes, remove', async () => {
    await pd.admin.reset();
    await pd.admin.registerDevice('d1', 'expo', TOKEN);
    await pd.admin.killDevice('d1');
    assert.equal((await pd.admin.device('d1')).state, 'unregistered');
    assert.deepEqual((await pd.admin.devices('expo')).map((d) => d.id), ['d1']);
    const r = await expoPush(pd, TOKEN);
    assert.equal(r.json.data.details.error, 'DeviceNotRegistered');  // one message in, one ticket object out
    await pd.admin.removeDevice('d1');
    await assert.rejects(pd.admin.device('d1'), (e) => e instanceof AdminError && e.status === 404);
    assert.throws(() => pd.admin.registerDevice('d2', 'expo', TOKEN, { state: 'gone' }), RangeError);
  });

  test('faults: failNext answers, counts and is used up', async () => {
    await pd.admin.reset();
    const rule = await pd.admin.failNext('expo', { count: 2, status: 429, retryAfter: 1 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await expoPush(pd, TOKEN)).status);
    assert.deepEqual(statuses, [429, 429, 200]);
    const status = await pd.admin.fault(rule.rule.id);
    assert.equal(status.fired, 2);
    const sends = await pd.admin.waitFor(3, { provider: 'expo', endpoint: 'expo.send' });
    assert.deepEqual(sends.map((x) => x.status), [429, 429, 200]);
    assert.equal(sends[0].retryAfter, '1');
    assert.equal(sends[0].decidedBy, 'fault');
    assert.match(sends[0].summary(), /^#\d+ expo expo\.send POST \/--\/api\/v2\/push\/send -> 429/);
    await pd.admin.clearFaults();
    assert.deepEqual(await pd.admin.faults(), []);
  });

  test('history: filters, last, clear; waitFor times out listing what came', async () => {
    await pd.admin.reset();
    await expoPush(pd, TOKEN, { title: 'one' });
    const x = await pd.admin.last({ provider: 'expo' });
    assert.equal(x.expo[0].title, 'one');
    assert.equal(x.requestJson.title, 'one');
    assert.ok(x.receivedAt instanceof Date);
    assert.equal((await pd.admin.history({ provider: 'apns' })).length, 0);
    assert.equal((await pd.admin.history({ status: 200 })).length, 1);
    await assert.rejects(pd.admin.waitFor(2, { provider: 'expo', timeout: 200 }),
      (e) => e.name === 'TimeoutError' && /got 1:\n  #\d+ expo expo\.send/.test(e.message));
    await pd.admin.clearHistory();
    assert.equal((await pd.admin.history()).length, 0);
  });

  test('scenarios: load from a file and an object, export', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pd-node-scn-'));
    const file = join(dir, 'gone.json');
    writeFileSync(file, JSON.stringify({ id: 'gone', devices: [{ id: 'g1', provider: 'expo', token: TOKEN, state: 'unregistered' }] }));
    await pd.admin.loadScenario(file);
    assert.equal((await pd.admin.device('g1')).state, 'unregistered');
    await pd.admin.loadScenario({ id: 'more', devices: [{ id: 'g2', provider: 'expo', token: 'ExponentPushToken[g2]' }] }, { merge: true });
    const exported = await pd.admin.exportScenario();
    assert.deepEqual(exported.devices.map((d) => d.id).sort(), ['g1', 'g2']);
    await pd.fresh();
    assert.deepEqual(await pd.admin.devices(), []);
  });

  test('node:http2 to APNs with tlsOptions(): the fake answers (403 without a JWT)', async () => {
    await pd.admin.reset();
    const session = http2.connect(pd.url('apns-production'), pd.tlsOptions());
    assert.equal(await apnsPostWithoutJwt(session, pd.environment.APNS_TOPIC, 'ab'.repeat(32), 'hi'), 403);
    const [x] = await pd.admin.waitFor(1, { provider: 'apns' });
    assert.equal(x.reason, 'MissingProviderToken');
  });

  test('an unreachable admin URL is an AdminError with status 0', async () => {
    await assert.rejects(new AdminClient('http://127.0.0.1:9', { timeout: 2000 }).health(), (e) => e instanceof AdminError && e.status === 0);
  });
});
