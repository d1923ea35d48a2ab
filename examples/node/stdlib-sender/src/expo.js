// The Expo push service over fetch: messages in requests of at most 100 recipients, tickets
// matched to recipients by position, receipts fetched later in requests of at most 1000 ids.
import { Backoff, retryAfterSeconds, sleep } from './retry.js';

const SEND_CHUNK = 100;
const RECEIPT_CHUNK = 1000;
const MESSAGE_LIMIT = 4096;

/** The Expo message for a provider-neutral notification (without `to`). */
export function expoMessage(n) {
  const m = {};
  for (const [from, to] of [['title', 'title'], ['subtitle', 'subtitle'], ['body', 'body'], ['data', 'data'], ['badge', 'badge'],
    ['channelId', 'channelId'], ['category', 'categoryId']]) if (n[from] !== undefined) m[to] = n[from];
  if (n.sound !== undefined) m.sound = n.sound;
  if (n.ttlSeconds !== undefined) m.ttl = n.ttlSeconds;
  if (n.priority) m.priority = n.priority === 'high' ? 'high' : 'normal';
  if (n.contentAvailable) m._contentAvailable = true;
  return m;
}

/** An Expo client: send() → one {outcome, reason?, ticketId?} per token; receipts(ids) → {id: {outcome, reason?}}. */
export class ExpoClient {
  constructor({ url = 'https://exp.host', accessToken, fetchOptions = {}, backoff = new Backoff() }) {
    this.base = url.replace(/\/$/, '');
    Object.assign(this, { accessToken, fetchOptions, backoff });
  }

  async post(path, body) {
    const headers = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.accessToken) headers.authorization = `Bearer ${this.accessToken}`;
    let last = null;
    for (let attempt = 1; ; attempt++) {
      let status = 0, json = null, retryAfter = null;
      try {
        const r = await fetch(this.base + path, { method: 'POST', headers, body: JSON.stringify(body), ...this.fetchOptions });
        status = r.status;
        retryAfter = r.headers.get('retry-after');
        json = await r.json().catch(() => null);
      } catch (e) { last = { error: e.cause?.code ?? e.message }; }
      if (status === 200 && !json?.errors) return { data: json?.data };
      if (status) last = { error: json?.errors?.[0]?.code ?? String(status) };
      const transient = !status || status === 429 || status >= 500;
      if (!transient || attempt >= this.backoff.attempts) return last;
      await sleep(this.backoff.delayMs(attempt, retryAfterSeconds(retryAfter)));
    }
  }

  /** Sends `notification` to every token, in chunks; one result per token, in order. Tokens
   * whose ticket says MessageRateExceeded are sent again after a backoff. */
  async send(notification, tokens) {
    const message = expoMessage(notification);
    if (Buffer.byteLength(JSON.stringify(message)) > MESSAGE_LIMIT) return tokens.map(() => ({ outcome: 'rejected', reason: 'MessageTooBig' }));
    const out = new Array(tokens.length);
    let todo = tokens.map((_, i) => i);
    for (let attempt = 1; todo.length; attempt++) {
      const again = [];
      for (let i = 0; i < todo.length; i += SEND_CHUNK) {
        const chunk = todo.slice(i, i + SEND_CHUNK);
        const r = await this.post('/--/api/v2/push/send', chunk.map((k) => ({ to: tokens[k], ...message })));
        const tickets = Array.isArray(r.data) && r.data.length === chunk.length ? r.data : null;
        chunk.forEach((k, j) => {
          out[k] = tickets ? ticketResult(tickets[j]) : { outcome: 'failed', reason: r.error ?? 'wrong number of tickets' };
          if (out[k].reason === 'MessageRateExceeded') again.push(k);
        });
      }
      if (!again.length || attempt >= this.backoff.attempts) break;
      await sleep(this.backoff.delayMs(attempt));
      todo = again;
    }
    return out;
  }

  /** The receipts of `ids`, in chunks: {id: {outcome, reason?}} for the ids Expo answered. */
  async receipts(ids) {
    const out = {};
    for (let i = 0; i < ids.length; i += RECEIPT_CHUNK) {
      const r = await this.post('/--/api/v2/push/getReceipts', { ids: ids.slice(i, i + RECEIPT_CHUNK) });
      for (const [id, receipt] of Object.entries(r.data ?? {})) out[id] = receiptResult(receipt);
    }
    return out;
  }
}

const ERROR_OUTCOME = { DeviceNotRegistered: 'dead', MessageTooBig: 'rejected', MessageRateExceeded: 'failed' };

function ticketResult(t) {
  if (t?.status === 'ok') return { outcome: 'pending', ticketId: t.id };
  const reason = t?.details?.error ?? 'error';
  return { outcome: ERROR_OUTCOME[reason] ?? 'failed', reason };
}

function receiptResult(r) {
  if (r?.status === 'ok') return { outcome: 'sent' };
  const reason = r?.details?.error ?? 'error';
  return { outcome: ERROR_OUTCOME[reason] ?? 'failed', reason };
}
