// APNs over node:http2 with token-based authentication (an ES256 JWT), standard library only.
import crypto from 'node:crypto';
import http2 from 'node:http2';
import { readFileSync } from 'node:fs';
import { Backoff, retryAfterSeconds, sleep } from './retry.js';

const b64url = (data) => Buffer.from(data).toString('base64url');

/**
 * The provider token: ES256 over `{alg, kid}.{iss, iat}`. JOSE wants the raw r‖s signature (64
 * bytes), not DER: `dsaEncoding: 'ieee-p1363'`. Reused for 50 minutes (APNs refuses a new one
 * more often than every 20 minutes and an older one than 60).
 */
export class ApnsToken {
  constructor({ key, keyId, teamId, lifetime = 50 * 60 }) {
    this.key = crypto.createPrivateKey(key);
    Object.assign(this, { keyId, teamId, lifetime, jwt: null, issuedAt: 0 });
  }
  current(now = Date.now() / 1000) {
    if (!this.jwt || now - this.issuedAt >= this.lifetime) this.renew(now);
    return this.jwt;
  }
  renew(now = Date.now() / 1000) {
    this.issuedAt = Math.floor(now);
    const input = `${b64url(JSON.stringify({ alg: 'ES256', kid: this.keyId }))}.${b64url(JSON.stringify({ iss: this.teamId, iat: this.issuedAt }))}`;
    const signature = crypto.sign('sha256', Buffer.from(input), { key: this.key, dsaEncoding: 'ieee-p1363' });
    this.jwt = `${input}.${b64url(signature)}`;
    return this.jwt;
  }
}

const PERMANENT_DEAD = new Set(['BadDeviceToken', 'DeviceTokenNotForTopic', 'Unregistered', 'ExpiredToken']);
const TOPIC_SUFFIX = { voip: '.voip', complication: '.complication', fileprovider: '.pushkit.fileprovider', location: '.location-query', liveactivity: '.push-type.liveactivity', pushtotalk: '.voip-ptt' };

/** The APNs request for a provider-neutral notification: {headers, body} or {error} when it cannot be sent. */
export function apnsRequest(n, { topic }) {
  const alert = Object.fromEntries(['title', 'subtitle', 'body'].filter((k) => n[k] !== undefined).map((k) => [k, n[k]]));
  const aps = {};
  if (Object.keys(alert).length) aps.alert = alert;
  if (n.sound !== undefined) aps.sound = n.sound;
  if (n.badge !== undefined) aps.badge = n.badge;
  if (n.threadId !== undefined) aps['thread-id'] = n.threadId;
  if (n.category !== undefined) aps.category = n.category;
  if (n.contentAvailable) aps['content-available'] = 1;
  const background = !n.pushType && n.contentAvailable && !aps.alert && aps.sound === undefined && aps.badge === undefined;
  const pushType = n.pushType ?? (background ? 'background' : 'alert');
  const headers = {
    'apns-push-type': pushType,
    'apns-topic': topic + (TOPIC_SUFFIX[pushType] ?? ''),
    'apns-priority': background || n.priority === 'normal' ? '5' : '10',
    'apns-id': crypto.randomUUID(),
  };
  if (n.ttlSeconds !== undefined) headers['apns-expiration'] = String(n.ttlSeconds === 0 ? 0 : Math.floor(Date.now() / 1000) + n.ttlSeconds);
  if (n.collapseKey !== undefined) {
    if (Buffer.byteLength(n.collapseKey) > 64) return { error: 'collapse id longer than 64 bytes' };
    headers['apns-collapse-id'] = n.collapseKey;
  }
  const body = JSON.stringify({ ...(n.data ?? {}), aps });
  const limit = pushType === 'voip' ? 5120 : 4096;
  if (Buffer.byteLength(body) > limit) return { error: `payload of ${Buffer.byteLength(body)} bytes is over ${limit}` };
  return { headers, body };
}

/**
 * An APNs client: one HTTP/2 connection per host (reopened after a GOAWAY or a close), one JWT
 * for the team, retries with backoff for 429/5xx and refused streams.
 * send() resolves to {outcome: sent|dead|rejected|failed, reason?, apnsId?}.
 */
export class ApnsClient {
  /** `connect(base, tls)` opens a session (default http2.connect; e.g. a CONNECT tunnel for a proxy). */
  constructor({ url, sandboxUrl, key, keyFile, keyId, teamId, topic, tls = {}, backoff = new Backoff(), timeout = 15_000, connect }) {
    this.hosts = { production: url, sandbox: sandboxUrl ?? url };
    this.token = new ApnsToken({ key: key ?? readFileSync(keyFile), keyId, teamId });
    this.connect = connect ?? (async (base, options) => http2.connect(base, options));
    Object.assign(this, { topic, tls, backoff, timeout, sessions: new Map() });
  }

  /** The live session to `base` (a promise shared by concurrent callers), opened when needed. */
  session(base) {
    const known = this.sessions.get(base);
    if (known) return known;
    const opening = this.connect(base, this.tls).then((s) => {
      const forget = () => this.sessions.get(base) === opening && this.sessions.delete(base);
      s.on('error', forget);  // a request fails with it; the next one reconnects
      s.on('goaway', forget);
      s.on('close', forget);
      if (s.closed || s.destroyed) forget();
      return s;
    }, (e) => { this.sessions.delete(base); throw e; });
    this.sessions.set(base, opening);
    return opening;
  }

  /** One request: {status, reason, apnsId, retryAfter} or {error} when the stream failed. */
  async request(base, token, headers, body) {
    let session;
    try { session = await this.session(base); } catch (e) { return { error: e.code ?? e.message }; }
    return new Promise((resolve) => {
      let req;
      try {
        req = session.request({ ':method': 'POST', ':path': `/3/device/${token}`, authorization: `bearer ${this.token.current()}`, ...headers });
      } catch (e) { this.sessions.delete(base); resolve({ error: e.message }); return; }
      req.setTimeout(this.timeout, () => req.close(http2.constants.NGHTTP2_CANCEL));
      let status = 0, apnsId = null, retryAfter = null;
      const chunks = [];
      req.on('response', (h) => { status = h[':status']; apnsId = h['apns-id'] ?? null; retryAfter = h['retry-after'] ?? null; });
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        let reason = null;
        try { reason = JSON.parse(Buffer.concat(chunks).toString() || '{}').reason ?? null; } catch { /* not JSON */ }
        resolve(status ? { status, reason, apnsId, retryAfter } : { error: 'no response' });
      });
      // A refused stream (more streams than the server allows yet) was not processed: say so.
      req.on('error', (e) => resolve({ error: e.code ?? e.message, refused: req.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM }));
      req.end(body);
    });
  }

  async send(notification, device) {
    const built = apnsRequest(notification, { topic: device.topic ?? this.topic });
    if (built.error) return { outcome: 'rejected', reason: built.error };
    const base = this.hosts[device.environment === 'sandbox' ? 'sandbox' : 'production'];
    let refreshed = false, refusals = 0;
    let last = null;
    for (let attempt = 1; ; attempt++) {
      const r = await this.request(base, device.token, built.headers, built.body);
      last = r;
      if (r.refused && ++refusals <= 10) { attempt--; await sleep(20 * refusals); continue; }  // not an attempt: never processed
      if (r.status === 200) return { outcome: 'sent', apnsId: r.apnsId ?? built.headers['apns-id'] };
      if (r.status === 410 || PERMANENT_DEAD.has(r.reason)) return { outcome: 'dead', reason: r.reason ?? String(r.status) };
      if (r.status === 403 && r.reason === 'ExpiredProviderToken' && !refreshed) {
        refreshed = true;
        this.token.renew();
        attempt--;
        continue;
      }
      const transient = r.error || r.status === 429 || r.status >= 500;
      if (!transient) return { outcome: 'rejected', reason: r.reason ?? String(r.status) };
      if (attempt >= this.backoff.attempts) break;
      await sleep(this.backoff.delayMs(attempt, retryAfterSeconds(r.retryAfter)));
    }
    return { outcome: 'failed', reason: last.reason ?? last.error ?? String(last.status) };
  }

  close() { for (const s of this.sessions.values()) s.then((x) => x.close(), () => {}); this.sessions.clear(); }
}
