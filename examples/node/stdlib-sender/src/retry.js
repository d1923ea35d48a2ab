// Retries shared by the providers: exponential backoff with full jitter, capped, and
// Retry-After (delta-seconds or an HTTP-date) honoured when it asks for longer.

/** Seconds a Retry-After value asks for (null when absent or unreadable). */
export function retryAfterSeconds(value, now = Date.now()) {
  if (value === undefined || value === null || value === '') return null;
  const text = String(value).trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);  // IMF-fixdate, RFC 850 and asctime forms
  return Number.isNaN(at) ? null : Math.max(0, (at - now) / 1000);
}

/** The retry policy: `attempts` in all, delays base·2^n with full jitter, at most `cap` seconds. */
export class Backoff {
  constructor({ attempts = 4, base = 0.25, cap = 8, maxRetryAfter = 30 } = {}) {
    Object.assign(this, { attempts, base, cap, maxRetryAfter });
  }
  /** Milliseconds to wait before attempt `n + 1` (n ≥ 1 attempts done), given a Retry-After (seconds) or null. */
  delayMs(n, retryAfter = null) {
    const exp = Math.min(this.cap, this.base * 2 ** (n - 1));
    const jittered = exp / 2 + Math.random() * (exp / 2);
    const wanted = retryAfter === null ? jittered : Math.max(jittered, Math.min(retryAfter, this.maxRetryAfter));
    return Math.round(wanted * 1000);
  }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
