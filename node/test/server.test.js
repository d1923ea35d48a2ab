// PushDouble's life cycle with the real binary: start, stop, a crashed test process, a bad
// start, connecting to a running instance, the binary lookup.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync, chmodSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { BINARY, expoPush } from './support.js';
import { BinaryNotFound, PushDouble, ServerStartError, findBinary } from '../src/index.js';

const alive = (pid) => { try { process.kill(pid, 0); return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8')); } catch { return false; } };
const waitUntil = async (what, ms) => { const end = Date.now() + ms; while (!what() && Date.now() < end) await new Promise((r) => setTimeout(r, 25)); return what(); };

test('start, serve, stop: files removed, exit status 0', async () => {
  const pd = await PushDouble.start({ options: { expo: { receiptDelaySeconds: 0 } } });
  assert.ok(pd.running);
  assert.ok(pd.command('F').includes('--exit-with-parent'));
  const caFile = pd.caFile;
  assert.ok(existsSync(caFile));
  assert.equal(await pd.stop(), 0);
  assert.equal(pd.running, false);
  assert.ok(!existsSync(caFile), 'serve removes its credential directory');
  assert.ok(!existsSync(pd.dir), 'the kit removes its work directory');
  assert.equal(await pd.stop(), 0, 'a second stop is harmless');
});

test('a test process killed with SIGKILL leaves no serve behind', async () => {
  const script = `
    import { PushDouble } from ${JSON.stringify(new URL('../src/index.js', import.meta.url).href)};
    const pd = await PushDouble.start();
    console.log(JSON.stringify({ pid: pd.pid, endpoints: pd.dir + '/endpoints.json', ca: pd.caFile }));
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(String(d))));
  const { pid, endpoints, ca } = JSON.parse(line);
  assert.ok(alive(pid) && existsSync(endpoints));
  child.kill('SIGKILL');
  assert.ok(await waitUntil(() => !alive(pid), 5000), `serve ${pid} still running 5 s after its parent was killed`);
  assert.ok(!existsSync(endpoints), 'the stopped serve removed its endpoints file');
  assert.ok(!existsSync(ca), 'and its credential files');
  const env = spawnSync(BINARY, ['env', '--endpoints-file', endpoints], { encoding: 'utf8' });
  assert.equal(env.status, 1);
  assert.match(env.stderr, /cannot read endpoints file/);
});

test('a bad start is a ServerStartError with serve\'s stderr', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pd-node-bad-'));
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, '{"id":"b","devices":[{"id":"d","provider":"apns","token":5}]}');
  await assert.rejects(PushDouble.start({ scenarios: [bad] }),
    (e) => e instanceof ServerStartError && /exited with status 1/.test(e.message) && /token: expected string/.test(e.message));
});

test('connect() to a running instance: listeners from /endpoints, the CA from a file; stop leaves it running', async () => {
  const owner = await PushDouble.start();
  try {
    const pd = await PushDouble.connect(owner.adminUrl, { caFile: owner.caFile });
    assert.equal(pd.url('expo'), owner.url('expo'));
    assert.equal(pd.ca, owner.ca);
    const d = await pd.dispatcher();
    const r = await expoPush({ url: (n) => pd.url(n), environment: owner.environment }, 'ExponentPushToken[c1]', {}, { dispatcher: d });
    assert.equal(r.status, 200);
    assert.equal((await pd.admin.history({ provider: 'expo' })).length, 1);
    await pd.stop();
    assert.equal((await owner.admin.health()).status, 'ok');
  } finally { await owner.stop(); }
});

test('binary lookup: $PUSHDOUBLE_BIN naming the Python console script is refused', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pd-node-bin-'));
  const script = join(dir, 'pushdouble');
  writeFileSync(script, '#!/usr/bin/python3\nimport sys\nfrom pushdouble.binary import main\nsys.exit(main())\n');
  chmodSync(script, 0o755);
  const saved = process.env.PUSHDOUBLE_BIN;
  try {
    process.env.PUSHDOUBLE_BIN = script;
    assert.throws(() => findBinary(), (e) => e instanceof BinaryNotFound && /Python package's pushdouble command, not the binary/.test(e.message));
    process.env.PUSHDOUBLE_BIN = join(dir, 'missing');
    assert.throws(() => findBinary(), /does not exist or is not executable/);
    assert.equal(findBinary(saved), resolve(saved), 'an explicit path wins');
  } finally { process.env.PUSHDOUBLE_BIN = saved; }
});

test('binary lookup: the binary of a wheel python3 imports, when nothing is on PATH', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pd-node-wheel-'));
  const pkg = join(dir, 'pushdouble');
  mkdirSync(pkg);
  writeFileSync(join(pkg, '__init__.py'), '');
  writeFileSync(join(pkg, 'binary.py'), `def find_binary():\n    return ${JSON.stringify(BINARY)}\n`);
  const saved = { PATH: process.env.PATH, PYTHONPATH: process.env.PYTHONPATH, PUSHDOUBLE_BIN: process.env.PUSHDOUBLE_BIN };
  try {
    delete process.env.PUSHDOUBLE_BIN;
    // only the interpreter's own directory (not a version manager's shim, which needs more of PATH)
    process.env.PATH = dirname(spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).stdout.trim());
    process.env.PYTHONPATH = dir;
    assert.equal(findBinary(), BINARY);
    process.env.PYTHONPATH = join(dir, 'nothing');
    assert.throws(() => findBinary(), /python3 imports no pushdouble package/);
  } finally { for (const [k, v] of Object.entries(saved)) { if (v === undefined) delete process.env[k]; else process.env[k] = v; } }
});

test('the exit status of a serve ended by a signal is 128 + its number', async () => {
  const pd = await PushDouble.start({ stopGrace: 200 });
  process.kill(pd.pid, 'SIGKILL');
  assert.equal(await pd.stop(), 137);
});
