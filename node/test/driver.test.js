// The driver kit: outcome helpers, outcomeOf, DeadTokens with registeredAt, and the JSON-RPC
// loop of a real adapter process (stdout kept for protocol lines).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { Adapter, DeadTokens, FEATURE_REGISTERED_AT, dead, failed, handleLine, outcomeOf, result, sent, skipped } from '../src/driver.js';

test('outcome helpers', () => {
  assert.deepEqual(sent({ id: 'd1' }, 'm1'), { device: 'd1', outcome: 'sent', providerMessageId: 'm1' });
  assert.deepEqual(dead('d2', 'Unregistered'), { device: 'd2', outcome: 'dead', reason: 'Unregistered' });
  assert.deepEqual(failed('d3'), { device: 'd3', outcome: 'failed' });
  assert.throws(() => result('d', 'lost'), RangeError);
});

test('outcomeOf: the most specific class of the error wins', () => {
  class LibError extends Error {}
  class Unregistered extends LibError {}
  class Quota extends LibError {}
  const table = [[LibError, 'failed'], [Unregistered, 'dead']];
  assert.equal(outcomeOf(new Unregistered(), table), 'dead');
  assert.equal(outcomeOf(new Quota(), table), 'failed');
  assert.equal(outcomeOf(new TypeError(), table, 'rejected'), 'rejected');
  assert.equal(outcomeOf(new Unregistered(), new Map(table)), 'dead');
});

test('DeadTokens: skip known dead tokens, revive on a later registeredAt or register', () => {
  let now = Date.parse('2026-12-01T13:00:00.000Z');
  const memory = new DeadTokens(() => now);
  const d = { id: 'd1', token: 't1' };
  assert.equal(memory.skip(d), null);
  memory.note(d, dead(d, 'Unregistered'));
  memory.note({ id: 'd2', token: 't2' }, sent('d2'));
  assert.ok(memory.has('t1') && !memory.has('t2'));
  assert.deepEqual(memory.skip(d), skipped(d, 'known dead: Unregistered'));
  assert.ok(memory.skip({ ...d, registeredAt: '2026-12-01T12:59:59.000Z' }), 'an older registration changes nothing');
  now += 1000;
  assert.equal(memory.skip({ ...d, registeredAt: '2026-12-01T13:00:00.500Z' }), null, 'a later registration revives it');
  assert.ok(!memory.has('t1'));
  memory.note(d, dead(d, 'Unregistered'));
  memory.revive([d]);
  assert.equal(memory.skip(d), null);
});

test('handleLine: JSON-RPC errors', async () => {
  const a = new (class extends Adapter { send() { throw new Error('boom'); } })();
  assert.equal((await handleLine(a, 'not json')).error.code, -32700);
  assert.equal((await handleLine(a, '[1]')).error.code, -32600);
  assert.equal((await handleLine(a, '{"jsonrpc":"2.0","id":1,"method":"nope"}')).error.code, -32601);
  assert.equal((await handleLine(a, '{"jsonrpc":"2.0","id":2,"method":"register","params":{"devices":[]}}')).error.code, -32601);
  assert.deepEqual((await handleLine(a, '{"jsonrpc":"2.0","id":3,"method":"send","params":{}}')).error, { code: -32000, message: 'boom' });
  assert.equal(await handleLine(a, '{"jsonrpc":"2.0","method":"send"}'), null, 'a notification gets no reply');
  assert.equal(await handleLine(a, '   '), null);
});

test('a real adapter process: initialize, send, register, settle, shutdown; console.log goes to stderr', async () => {
  const script = `
    import { Adapter, run, sent, FEATURE_REGISTERED_AT } from ${JSON.stringify(new URL('../src/driver.js', import.meta.url).href)};
    class A extends Adapter {
      name = 'probe'; version = '2'; providers = ['apns']; features = [FEATURE_REGISTERED_AT];
      async initialize(config) { console.log('noise on stdout'); return { topic: config.apns.topic }; }
      async send(n, devices) { return devices.map((d) => sent(d, n.title)); }
      register(devices) { this.registered = devices.length; }
    }
    run(new A());`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const call = async (id, method, params) => {
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    return JSON.parse((await lines.next()).value);
  };
  const init = await call(1, 'initialize', { protocolVersion: 1, providers: { apns: { topic: 'com.example' } } });
  assert.deepEqual(init.result, { name: 'probe', version: '2', providers: ['apns'], features: [FEATURE_REGISTERED_AT, 'register'], topic: 'com.example' });
  const send = await call(2, 'send', { notification: { title: 'm' }, devices: [{ id: 'd1', token: 'x' }] });
  assert.deepEqual(send.result, { results: [{ device: 'd1', outcome: 'sent', providerMessageId: 'm' }] });
  assert.deepEqual((await call(3, 'register', { devices: [{ id: 'd1' }] })).result, {});
  assert.deepEqual((await call(4, 'settle')).result, { results: [] });
  assert.deepEqual((await call(5, 'shutdown')).result, {});
  const code = await new Promise((r) => child.on('exit', r));
  assert.equal(code, 0);
  assert.match(stderr, /noise on stdout/);
});
