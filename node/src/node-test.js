// node:test helpers: one double per test file, a fresh state for every test.
import { after, before, beforeEach } from 'node:test';
import { PushDouble } from './server.js';

/**
 * Registers hooks in the calling test file (or suite) and returns the PushDouble handle (usable
 * inside tests): `before` starts the double (or connects to `adminUrl`), trusts its CA for fetch,
 * https and node:http2 (`trust: false` to leave it) and sets the sender environment in process.env (`env:
 * false` to leave it); `beforeEach` forgets history, devices and rules; `after` undoes all of it.
 * Other options are PushDouble's.
 */
export function usePushDouble({ trust = true, env = true, adminUrl, ...options } = {}) {
  let current = adminUrl ? null : new PushDouble(options);
  const handle = new Proxy({}, {
    get(_, k) {
      if (!current) throw new Error('the PushDouble of usePushDouble() is connected in its before hook: use it inside tests');
      const v = current[k];
      return typeof v === 'function' ? v.bind(current) : v;
    },
  });
  let restoreEnv = null;
  before(async () => {
    current = adminUrl ? await PushDouble.connect(adminUrl, options) : await current.start();
    if (trust) await current.trust();
    if (env) restoreEnv = current.applyEnvironment();
  });
  beforeEach(async () => { await current.fresh(); });
  after(async () => {
    restoreEnv?.();
    await current?.stop();
  });
  return handle;
}
