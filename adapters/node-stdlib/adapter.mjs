// The stdlib Node sender (examples/node/stdlib-sender) under `pushdouble conform`, on the Node
// driver kit. In a project with the kit installed the imports are 'pushdouble/driver' and your
// own sender module.
import { readFileSync } from 'node:fs';
import { Adapter, DeadTokens, FEATURE_REGISTERED_AT, run, result } from '../../node/src/driver.js';
import { caList, fetchDispatcher } from '../../node/src/trust.js';
import { connectHttp2 } from '../../node/src/tunnel.js';
import { ApnsClient, FcmClient } from '../../examples/node/stdlib-sender/src/index.js';

class StdlibSender extends Adapter {
  name = 'node-stdlib-sender';
  version = '0.1.0';
  providers = ['apns', 'fcm'];
  features = [FEATURE_REGISTERED_AT];
  targets = ['fcm.topic', 'fcm.condition'];
  dead = new DeadTokens();

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
  }

  async send(notification, devices, targets) {
    const one = async (device) => {
      const known = this.dead.skip(device);
      if (known) return known;
      const client = device.provider === 'apns' ? this.apns : this.fcm;
      const target = device.provider === 'fcm' ? { token: device.token } : device;
      const r = await client.send(notification, target);
      return this.dead.note(device, result(device, r.outcome, r.reason, r.apnsId ?? r.name));
    };
    const toTarget = async (t) => {
      const r = await this.fcm.send(notification, t.topic !== undefined ? { topic: t.topic.replace(/^\/topics\//, '') } : { condition: t.condition });
      return result(t, r.outcome, r.reason, r.name);
    };
    return Promise.all([...devices.map(one), ...targets.map(toTarget)]);
  }

  shutdown() { this.apns?.close(); }
}

run(new StdlibSender());
