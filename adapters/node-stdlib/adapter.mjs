// The stdlib Node sender (examples/node/stdlib-sender) under `pushdouble conform`, on the Node
// driver kit. In a project with the kit installed the imports are 'pushdouble/driver' and your
// own sender module.
import { readFileSync } from 'node:fs';
import { Adapter, DeadTokens, FEATURE_REGISTERED_AT, PENDING, run, result } from '../../node/src/driver.js';
import { caList, fetchDispatcher } from '../../node/src/trust.js';
import { connectHttp2 } from '../../node/src/tunnel.js';
import { ApnsClient, ExpoClient, FcmClient, WebPushClient } from '../../examples/node/stdlib-sender/src/index.js';

class StdlibSender extends Adapter {
  name = 'node-stdlib-sender';
  version = '0.1.0';
  providers = ['apns', 'fcm', 'expo', 'webpush'];
  features = [FEATURE_REGISTERED_AT];
  targets = ['fcm.topic', 'fcm.condition'];
  dead = new DeadTokens();
  tickets = new Map();  // Expo ticket id → device, until its receipt is read

  async initialize(config) {
    // The test CA comes with each provider's config; a real deployment trusts the system roots.
    // HTTPS_PROXY (conform --real-hosts) is honoured as the application would in production:
    // node:http2 through a CONNECT tunnel, fetch through a tunnelling dispatcher, NO_PROXY for loopback.
    if (config.apns) {
      const a = config.apns;
      this.apns = new ApnsClient({ url: a.url, sandboxUrl: a.sandboxUrl, keyFile: a.keyFile, keyId: a.keyId, teamId: a.teamId,
        topic: a.topic, tls: { ca: caList(readFileSync(a.caFile, 'utf8')) }, connect: connectHttp2 });
    }
    if (config.fcm) {
      const f = config.fcm;
      const dispatcher = await fetchDispatcher(readFileSync(f.caFile, 'utf8'), { proxy: 'env' });
      this.fcm = new FcmClient({ url: f.url, serviceAccountFile: f.serviceAccountFile, projectId: f.projectId, tokenUrl: f.tokenUrl,
        fetchOptions: { dispatcher } });
    }
    if (config.expo) {
      const e = config.expo;
      const dispatcher = await fetchDispatcher(readFileSync(e.caFile ?? process.env.PUSHDOUBLE_CA_FILE, 'utf8'), { proxy: 'env' });
      this.expo = new ExpoClient({ url: e.url, accessToken: e.accessToken, fetchOptions: { dispatcher } });
    }
    if (config.webpush) {
      const w = config.webpush;
      const dispatcher = await fetchDispatcher(readFileSync(w.caFile, 'utf8'), { proxy: 'env' });
      this.webpush = new WebPushClient({ vapidPrivateKeyFile: w.vapidPrivateKeyFile, vapidPublicKey: w.vapidPublicKey, subject: w.subject,
        fetchOptions: { dispatcher } });
    }
  }

  async send(notification, devices, targets) {
    const expo = this.sendExpo(notification, devices.filter((d) => d.provider === 'expo'));
    const one = async (device) => {
      if (device.provider === 'expo') return (await expo).get(device);
      const known = this.dead.skip(device);
      if (known) return known;
      const client = { apns: this.apns, fcm: this.fcm, webpush: this.webpush }[device.provider];
      const target = device.provider === 'fcm' ? { token: device.token } : device.provider === 'webpush' ? device.subscription : device;
      const r = await client.send(notification, target);
      return this.dead.note(device, result(device, r.outcome, r.reason, r.apnsId ?? r.name));
    };
    const toTarget = async (t) => {
      const r = await this.fcm.send(notification, t.topic !== undefined ? { topic: t.topic.replace(/^\/topics\//, '') } : { condition: t.condition });
      return result(t, r.outcome, r.reason, r.name);
    };
    return Promise.all([...devices.map(one), ...targets.map(toTarget)]);
  }

  /** Expo: one batch for the devices not known dead; a Map device → result (tickets kept for settle). */
  async sendExpo(notification, devices) {
    const out = new Map();
    const live = devices.filter((d) => { const known = this.dead.skip(d); if (known) out.set(d, known); return !known; });
    if (!live.length) return out;
    const results = await this.expo.send(notification, live.map((d) => d.token));
    live.forEach((d, i) => {
      const r = results[i];
      if (r.outcome === PENDING) this.tickets.set(r.ticketId, d);
      out.set(d, this.dead.note(d, result(d, r.outcome, r.reason, r.ticketId)));
    });
    return out;
  }

  /** Expo receipts for the tickets still open; a ticket without a receipt yet stays open. */
  async settle() {
    if (!this.expo || !this.tickets.size) return [];
    const receipts = await this.expo.receipts([...this.tickets.keys()]);
    return Object.entries(receipts).filter(([id]) => this.tickets.has(id)).map(([id, r]) => {
      const device = this.tickets.get(id);
      this.tickets.delete(id);
      return this.dead.note(device, result(device, r.outcome, r.reason, id));
    });
  }

  shutdown() { this.apns?.close(); }
}

run(new StdlibSender());
