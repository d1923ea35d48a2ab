// Web Push with node:crypto only: the payload encrypted for the subscription (RFC 8291,
// aes128gcm of RFC 8188: one record), VAPID (RFC 8292: an ES256 JWT with dsaEncoding
// 'ieee-p1363'), TTL / Urgency / Topic headers (RFC 8030 §5), and fetch to the endpoint.
import crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Backoff, retryAfterSeconds, sleep } from './retry.js';

const b64url = (data) => Buffer.from(data).toString('base64url');
const RECORD_SIZE = 4096;
const MAX_PLAINTEXT = 3993;  // 4096 − 86 bytes of header − 16 of tag − 1 delimiter

/** The aes128gcm body for `plaintext` and a subscription's keys ({p256dh, auth}, base64url). */
export function encrypt(plaintext, { p256dh, auth }) {
  const uaPublic = Buffer.from(p256dh, 'base64url');
  const authSecret = Buffer.from(auth, 'base64url');
  const ecdh = crypto.createECDH('prime256v1');
  const asPublic = ecdh.generateKeys();
  const shared = ecdh.computeSecret(uaPublic);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic]);
  const ikm = Buffer.from(crypto.hkdfSync('sha256', shared, authSecret, keyInfo, 32));
  const salt = crypto.randomBytes(16);
  const cek = Buffer.from(crypto.hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(crypto.hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const cipher = crypto.createCipheriv('aes-128-gcm', cek, nonce);
  const body = Buffer.concat([cipher.update(Buffer.concat([Buffer.from(plaintext), Buffer.from([2])])), cipher.final(), cipher.getAuthTag()]);
  const header = Buffer.alloc(21);
  salt.copy(header, 0);
  header.writeUInt32BE(RECORD_SIZE, 16);
  header.writeUInt8(asPublic.length, 20);
  return Buffer.concat([header, asPublic, body]);
}

/** `Authorization: vapid t=<jwt>, k=<public key>` for an endpoint (aud = its origin, exp 12 h ahead). */
export function vapidAuthorization(endpoint, { privateKey, publicKey, subject }, now = Math.floor(Date.now() / 1000)) {
  const input = `${b64url(JSON.stringify({ typ: 'JWT', alg: 'ES256' }))}.${b64url(JSON.stringify({ aud: new URL(endpoint).origin, exp: now + 12 * 3600, sub: subject }))}`;
  const sig = crypto.sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return `vapid t=${input}.${b64url(sig)}, k=${publicKey}`;
}

const DEAD = new Set([404, 410]);

/** A Web Push client: send(notification, subscription) → {outcome, reason?}. */
export class WebPushClient {
  constructor({ vapidPrivateKeyFile, privateKey, vapidPublicKey, subject, fetchOptions = {}, backoff = new Backoff() }) {
    this.vapid = { privateKey: crypto.createPrivateKey(privateKey ?? readFileSync(vapidPrivateKeyFile)), publicKey: vapidPublicKey, subject };
    Object.assign(this, { fetchOptions, backoff });
  }

  async send(n, subscription) {
    const text = JSON.stringify(Object.fromEntries(['title', 'body', 'data'].filter((k) => n[k] !== undefined).map((k) => [k, n[k]])));
    if (Buffer.byteLength(text) > MAX_PLAINTEXT) return { outcome: 'rejected', reason: 'payload too large' };
    const headers = {
      'content-encoding': 'aes128gcm', 'content-type': 'application/octet-stream',
      ttl: String(n.ttlSeconds ?? 2_419_200), urgency: n.priority === 'high' ? 'high' : 'normal',
    };
    if (n.collapseKey !== undefined) {
      // Topic: at most 32 base64url characters; a longer or other key is hashed into one.
      headers.topic = /^[A-Za-z0-9_-]{1,32}$/.test(n.collapseKey) ? n.collapseKey
        : crypto.createHash('sha256').update(n.collapseKey).digest('base64url').slice(0, 32);
    }
    let last = null;
    for (let attempt = 1; ; attempt++) {
      let status = 0, retryAfter = null, error = null;
      try {
        const body = encrypt(text, subscription.keys);  // a fresh salt and key per request
        const r = await fetch(subscription.endpoint, {
          method: 'POST', body, ...this.fetchOptions,
          headers: { ...headers, authorization: vapidAuthorization(subscription.endpoint, this.vapid) },
        });
        status = r.status;
        retryAfter = r.headers.get('retry-after');
        await r.arrayBuffer();
      } catch (e) { error = e.cause?.code ?? e.message; }
      last = { status, error };
      if (status >= 200 && status < 300) return { outcome: 'sent' };
      if (DEAD.has(status)) return { outcome: 'dead', reason: String(status) };
      const transient = !status || status === 429 || status === 406 || status >= 500;
      if (!transient) return { outcome: 'rejected', reason: String(status) };
      if (attempt >= this.backoff.attempts) break;
      await sleep(this.backoff.delayMs(attempt, retryAfterSeconds(retryAfter)));
    }
    return { outcome: 'failed', reason: last.error ?? String(last.status) };
  }
}
