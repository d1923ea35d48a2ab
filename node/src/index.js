// PushDouble for Node.js (no dependencies): run the offline push-provider double in tests,
// drive it through its admin API, trust its test CA in-process, and reach it through its
// CONNECT proxy from node:http2. The driver kit for conform adapters is `pushdouble/driver`,
// the node:test helpers `pushdouble/node-test`.
export { AdminClient, AdminError, Exchange, DEVICE_STATES } from './admin.js';
export { BinaryNotFound, findBinary, isPythonConsoleScript } from './binary.js';
export { PushDouble, ServerStartError, REAL_HOSTS } from './server.js';
export { caList, fetchDispatcher, trustCA } from './trust.js';
export { connectHttp2, connectTunnel, proxyFor, bypassesProxy } from './tunnel.js';
export const VERSION = '0.1.0';
export { redirectHosts, redirectFromEnvironment, hostMapFromProviders, parseHostMap } from './redirect.js';
