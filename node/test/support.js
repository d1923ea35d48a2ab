// Shared by the kit's tests: the pushdouble binary under test ($PUSHDOUBLE_BIN, else the
// checkout's debug build) and small raw clients.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BINARY = process.env.PUSHDOUBLE_BIN ?? join(ROOT, '.build', 'debug', 'pushdouble');
if (!existsSync(BINARY)) throw new Error(`no pushdouble binary at ${BINARY}: swift build, or set PUSHDOUBLE_BIN`);
process.env.PUSHDOUBLE_BIN = BINARY;

/** One Expo push through fetch (the process must trust the test CA). */
export async function expoPush(pd, to, extra = {}, init = {}) {
  const r = await fetch(pd.url('expo') + '/--/api/v2/push/send', {
    method: 'POST', ...init,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${pd.environment.EXPO_ACCESS_TOKEN}` },
    body: JSON.stringify({ to, body: 'hello', ...extra }),
  });
  return { status: r.status, json: await r.json() };
}

/** One APNs POST without a JWT on an open node:http2 session; resolves to the status (the fake: 403 MissingProviderToken). Closes the session. */
export async function apnsPostWithoutJwt(session, topic, token, text) {
  try {
    return await new Promise((resolve, reject) => {
      const req = session.request({ ':method': 'POST', ':path': '/3/device/' + token, 'apns-topic': topic });
      req.on('response', (h) => resolve(h[':status']));
      req.on('error', reject);
      req.end(JSON.stringify({ aps: { alert: text } }));
    });
  } finally { session.close(); }
}
