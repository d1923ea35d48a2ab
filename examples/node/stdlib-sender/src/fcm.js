// FCM HTTP v1 with fetch and the OAuth 2.0 JWT-bearer flow (a service account), standard library only.
import crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Backoff, retryAfterSeconds, sleep } from './retry.js';

const b64url = (data) => Buffer.from(data).toString('base64url');
const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';

/**
 * Access tokens for a service account: an RS256 assertion {iss, scope, aud, iat, exp} exchanged
 * at the token URL (grant type urn:ietf:params:oauth:grant-type:jwt-bearer), cached until a
 * minute before it expires, one request at a time.
 */
export class GoogleAccessToken {
  constructor({ serviceAccount, tokenUrl, fetchOptions = {} }) {
    this.account = serviceAccount;
    this.tokenUrl = tokenUrl ?? serviceAccount.token_uri;
    Object.assign(this, { fetchOptions, token: null, expiresAt: 0, inflight: null });
  }
  assertion(now = Math.floor(Date.now() / 1000)) {
    const header = { alg: 'RS256', typ: 'JWT', kid: this.account.private_key_id };
    const claims = { iss: this.account.client_email, scope: SCOPE, aud: this.tokenUrl, iat: now, exp: now + 3600 };
    const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
    return `${input}.${b64url(crypto.sign('sha256', Buffer.from(input), this.account.private_key))}`;
  }
  async get() {
    if (this.token && Date.now() < this.expiresAt - 60_000) return this.token;
    this.inflight ??= this.mint().finally(() => { this.inflight = null; });
    return this.inflight;
  }
  invalidate(token) { if (this.token === token) this.token = null; }
  async mint() {
    const body = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: this.assertion() });
    const r = await fetch(this.tokenUrl, { method: 'POST', body, ...this.fetchOptions });
    const json = await r.json().catch(() => ({}));
    if (!r.ok || !json.access_token) {
      const e = new Error(`token request: ${r.status} ${json.error ?? ''} ${json.error_description ?? ''}`.trim());
      e.name = 'TokenError';  // a refused credential: no blind retry
      e.transient = r.status === 429 || r.status >= 500;
      throw e;
    }
    this.token = json.access_token;
    this.expiresAt = Date.now() + (json.expires_in ?? 3600) * 1000;
    return this.token;
  }
}

const RESERVED = /^(from|message_type|google|gcm)/;

/** The v1 message for a provider-neutral notification and a target ({token} | {topic} | {condition}): {message} or {error}. */
export function fcmMessage(n, target) {
  const message = { ...target };
  const notification = Object.fromEntries([['title', n.title], ['body', n.body], ['image', n.imageUrl]].filter(([, v]) => v !== undefined));
  if (Object.keys(notification).length) message.notification = notification;
  if (n.data) {
    const bad = Object.keys(n.data).find((k) => RESERVED.test(k));
    if (bad) return { error: `reserved data key ${bad}` };
    message.data = Object.fromEntries(Object.entries(n.data).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  }
  const android = {};
  if (n.priority) android.priority = n.priority === 'high' ? 'HIGH' : 'NORMAL';
  if (n.ttlSeconds !== undefined) {
    if (n.ttlSeconds < 0 || n.ttlSeconds > 2_419_200) return { error: `ttl ${n.ttlSeconds}s out of range` };
    android.ttl = `${n.ttlSeconds}s`;
  }
  if (n.collapseKey !== undefined) android.collapse_key = n.collapseKey;
  const an = Object.fromEntries([['channel_id', n.channelId], ['sound', n.sound], ['tag', undefined], ['click_action', n.link]].filter(([, v]) => v !== undefined));
  if (Object.keys(an).length) android.notification = an;
  if (Object.keys(android).length) message.android = android;
  if (n.contentAvailable) {
    // Apple devices: content-available, and a background push when nothing is shown.
    const background = !n.title && !n.body && n.sound === undefined && n.badge === undefined;
    message.apns = { payload: { aps: { 'content-available': 1 } } };
    if (background) message.apns.headers = { 'apns-priority': '5', 'apns-push-type': 'background' };
  }
  const size = Buffer.byteLength(JSON.stringify(message));
  const limit = target.topic !== undefined || target.condition !== undefined ? 2048 : 4096;
  if (size > limit) return { error: `message of ${size} bytes is over ${limit}` };
  return { message };
}

function fcmErrorCode(json) {
  const err = json?.error;
  for (const d of err?.details ?? []) if (d?.errorCode) return d.errorCode;
  return err?.status ?? null;
}

/**
 * An FCM v1 client. send() resolves to {outcome: sent|dead|rejected|failed, reason?, name?}.
 * fetchOptions (e.g. {dispatcher}) go to every fetch.
 */
export class FcmClient {
  constructor({ url = 'https://fcm.googleapis.com', serviceAccountFile, serviceAccount, projectId, tokenUrl, fetchOptions = {}, backoff = new Backoff() }) {
    const account = serviceAccount ?? JSON.parse(readFileSync(serviceAccountFile, 'utf8'));
    this.auth = new GoogleAccessToken({ serviceAccount: account, tokenUrl, fetchOptions });
    this.endpoint = `${url.replace(/\/$/, '')}/v1/projects/${projectId ?? account.project_id}/messages:send`;
    Object.assign(this, { fetchOptions, backoff });
  }

  async send(notification, target) {
    const built = fcmMessage(notification, target);
    if (built.error) return { outcome: 'rejected', reason: built.error };
    const body = JSON.stringify({ message: built.message });
    let reminted = false;
    let last = null;
    for (let attempt = 1; ; attempt++) {
      let status = 0, json = null, retryAfter = null, error = null, token = null;
      try {
        token = await this.auth.get();
        const r = await fetch(this.endpoint, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body, ...this.fetchOptions });
        status = r.status;
        retryAfter = r.headers.get('retry-after');
        json = await r.json().catch(() => null);
      } catch (e) {
        if (e.name === 'TokenError' && !e.transient) return { outcome: 'rejected', reason: e.message };
        error = e.cause?.code ?? e.message;
      }
      const code = fcmErrorCode(json);
      last = { status, code, error };
      if (status === 200) return { outcome: 'sent', name: json?.name };
      if (status === 404 || code === 'UNREGISTERED' || code === 'SENDER_ID_MISMATCH') return { outcome: 'dead', reason: code ?? String(status) };
      if (status === 401 && !json?.error?.details?.some((d) => d?.errorCode) && !reminted) {
        reminted = true;  // the access token was refused: mint a new one, once
        this.auth.invalidate(token);
        attempt--;
        continue;
      }
      const transient = (error && !status) || status === 429 || status >= 500;
      if (!transient) return { outcome: 'rejected', reason: code ?? error ?? String(status) };
      if (attempt >= this.backoff.attempts) break;
      await sleep(this.backoff.delayMs(attempt, retryAfterSeconds(retryAfter)));
    }
    return { outcome: 'failed', reason: last.code ?? last.error ?? String(last.status) };
  }
}
