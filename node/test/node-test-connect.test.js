// usePushDouble({ adminUrl }): a double that is already running (here one this file starts;
// in CI a container), attached to, reset per test, left running by the file's after hook.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import './support.js';
import { PushDouble } from '../src/index.js';
import { usePushDouble } from '../src/node-test.js';

const owner = await PushDouble.start();
const pd = usePushDouble({ adminUrl: owner.adminUrl, caFile: owner.caFile, env: false });
after(async () => {
  assert.equal((await owner.admin.health()).status, 'ok', 'the attached instance is still running');
  await owner.stop();
});

test('attached: the CA is trusted and the state is the instance\'s', async () => {
  await owner.admin.registerDevice('x', 'expo', 'ExponentPushToken[c1]');
  const r = await fetch(pd.url('expo') + '/--/api/v2/push/send', {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.environment.EXPO_ACCESS_TOKEN}` },
    body: '{"to":"ExponentPushToken[c1]"}',
  });
  assert.equal(r.status, 200);
  assert.equal(pd.state, 'connected');
  assert.equal((await owner.admin.history()).length, 1);
});

test('attached: each test starts fresh', async () => {
  assert.deepEqual(await owner.admin.history(), []);
  assert.deepEqual(await owner.admin.devices(), []);
});
