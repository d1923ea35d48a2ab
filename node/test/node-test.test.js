// usePushDouble(): one double for the file, a fresh state for every test, the CA trusted and
// the sender environment set. The first five lines are the whole set-up a test file needs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { usePushDouble } from '../src/node-test.js';
const pd = usePushDouble();

test('a send is recorded (the environment and the CA are in place)', async () => {
  const r = await fetch(process.env.EXPO_URL + '/--/api/v2/push/send', {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.EXPO_ACCESS_TOKEN}` },
    body: JSON.stringify({ to: 'ExponentPushToken[nt-1]', title: 'hi' }),
  });
  assert.equal(r.status, 200);
  await pd.admin.registerDevice('x', 'expo', 'ExponentPushToken[nt-2]');
  const [x] = await pd.admin.waitFor(1, { provider: 'expo' });
  assert.equal(x.expo[0].title, 'hi');
});

test('the next test starts fresh: no history, no devices', async () => {
  assert.deepEqual(await pd.admin.history(), []);
  assert.deepEqual(await pd.admin.devices(), []);
  assert.equal(process.env.PUSHDOUBLE_ADMIN_URL, pd.adminUrl);
});
