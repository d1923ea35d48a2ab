// The driver kit end to end: the example stdlib adapter under `pushdouble conform`, once with
// the fakes' loopback URLs and once with --real-hosts (node:http2 through connectHttp2's
// CONNECT tunnel, fetch through a tunnelling dispatcher, NO_PROXY keeping loopback direct).
// With --real-hosts the sender gets https://api.push.apple.com etc., which do not resolve on an
// offline machine: a pass means the request went through the double's proxy. The whole suite
// with its expected verdicts runs in adapters/run.sh.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { BINARY, ROOT } from './support.js';

const CASES = 'apns.happy-path,apns.unregistered,apns.too-many-requests,fcm.happy-path,fcm.service-unavailable,fcm.topic-send';

for (const realHosts of [false, true]) {
  test(`conform${realHosts ? ' --real-hosts' : ''}: ${CASES} pass`, () => {
    const report = join(mkdtempSync(join(tmpdir(), 'pd-node-conform-')), 'report.json');
    const args = ['conform', '--scenarios', join(ROOT, 'Scenarios'), '--only', CASES, '--json', report,
      '--sender', `node ${join(ROOT, 'adapters/node-stdlib/adapter.mjs')}`, ...(realHosts ? ['--real-hosts'] : [])];
    const run = spawnSync(BINARY, args, { encoding: 'utf8', timeout: 120_000 });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    const cases = JSON.parse(readFileSync(report, 'utf8')).cases;
    assert.deepEqual(cases.map((c) => `${c.id} ${c.verdict}`).sort(), CASES.split(',').map((id) => `${id} pass`).sort());
  });
}
