// Type declarations of the pushdouble package (src/index.js).
import type { ClientHttp2Session, SecureClientSessionOptions } from 'node:http2';

export declare const VERSION: string;
export declare const DEVICE_STATES: readonly ['active', 'unregistered', 'expired', 'invalid', 'otherApp', 'rateLimited'];
export type DeviceState = (typeof DEVICE_STATES)[number];
export type Provider = 'apns' | 'fcm' | 'expo' | 'webpush' | (string & {});
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** An admin API request answered with an error status (status 0: no answer). */
export declare class AdminError extends Error {
  method: string;
  url: string;
  status: number;
  body: string;
  error: string | null;
}

/** One recorded exchange: `raw` is the admin API's object, the getters are shortcuts. */
export declare class Exchange {
  constructor(raw: Record<string, any>);
  static from(raw: Record<string, any>): Exchange;
  readonly raw: Record<string, any>;
  readonly seq: number;
  readonly provider: Provider;
  readonly endpoint: string;
  readonly token: string | null;
  readonly deviceId: string | null;
  readonly topic: string | null;
  readonly environment: string | null;
  readonly notification: any;
  readonly auth: Record<string, any>;
  readonly request: Record<string, any>;
  readonly response: Record<string, any>;
  readonly recipients: Record<string, any>[];
  readonly annotations: Record<string, any>;
  readonly status: number | null;
  readonly reason: string | null;
  readonly action: string | null;
  readonly decidedBy: string | null;
  readonly accepted: boolean;
  readonly receivedAt: Date | null;
  readonly method: string | null;
  readonly path: string | null;
  readonly requestHeaders: Record<string, string>;
  readonly responseHeaders: Record<string, string>;
  readonly requestBody: string | null;
  readonly requestJson: any;
  readonly responseBody: string | null;
  readonly responseJson: any;
  readonly retryAfter: string | null;
  readonly apns: Record<string, any> | null;
  readonly fcm: Record<string, any> | null;
  readonly expo: Record<string, any>[] | null;
  readonly webpush: Record<string, any> | null;
  readonly webpushText: string | null;
  summary(): string;
  toJSON(): Record<string, any>;
}

export interface HistoryFilters {
  provider?: Provider;
  device?: string;
  token?: string;
  endpoint?: string;
  since?: string | Date;
  until?: string | Date;
}
export interface MatchOptions {
  id?: string;
  endpoint?: string;
  device?: string;
  token?: string;
  topic?: string;
  environment?: string;
  nth?: number;
  everyNth?: number;
  probability?: number;
  fromSeconds?: number;
  untilSeconds?: number;
}
export interface RespondOptions extends MatchOptions {
  count?: number | null;
  status?: number;
  reason?: string;
  retryAfter?: number | string | { dateIn: number };
  headers?: Record<string, string>;
  body?: string;
  contentType?: string;
}

/** Client of the admin API (docs/admin-openapi.yaml). */
export declare class AdminClient {
  constructor(baseUrl?: string, options?: { timeout?: number });
  baseUrl: string;
  timeout: number;
  request(method: string, path: string, options?: { body?: unknown; query?: Record<string, unknown>; raw?: boolean }): Promise<any>;
  get(path: string, query?: Record<string, unknown>): Promise<any>;
  health(): Promise<Record<string, any>>;
  endpoints(): Promise<Endpoint[]>;
  providers(): Promise<any>;
  setWorld(provider: Provider, world: 'open' | 'closed'): Promise<any>;
  devices(provider?: Provider): Promise<Record<string, any>[]>;
  device(id: string): Promise<Record<string, any>>;
  register(devices: Record<string, any> | Record<string, any>[]): Promise<any>;
  registerDevice(id: string, provider: Provider, token?: string, options?: {
    state?: DeviceState; environment?: string; topic?: string; transitions?: Record<string, any>[]; unregisteredAt?: string; [attribute: string]: any;
  }): Promise<any>;
  putDevice(device: Record<string, any>): Promise<any>;
  setDeviceState(id: string, state: DeviceState, options?: { unregisteredAt?: string }): Promise<any>;
  killDevice(id: string): Promise<any>;
  removeDevice(id: string): Promise<any>;
  clearDevices(provider?: Provider): Promise<any>;
  faults(): Promise<Record<string, any>[]>;
  fault(id: string): Promise<Record<string, any>>;
  addFault(rule: Record<string, any> | Record<string, any>[]): Promise<any>;
  removeFault(id: string): Promise<any>;
  clearFaults(provider?: Provider): Promise<any>;
  failNext(provider: Provider, options?: RespondOptions): Promise<any>;
  respond(provider: Provider, options?: RespondOptions): Promise<any>;
  delay(provider: Provider, seconds: number, options?: MatchOptions & { count?: number; then?: Record<string, any> }): Promise<any>;
  dropConnection(provider: Provider, options?: MatchOptions & { count?: number }): Promise<any>;
  goaway(provider: Provider, options?: MatchOptions & { count?: number; lastStreamId?: string | number; errorCode?: string; debugData?: string; debugJSON?: unknown; then?: Record<string, any> }): Promise<any>;
  resetStream(provider: Provider, options?: MatchOptions & { count?: number; errorCode?: string }): Promise<any>;
  stall(provider: Provider, options?: MatchOptions & { count?: number }): Promise<any>;
  quota(provider: Provider, limit: number, seconds: number, options?: MatchOptions & { per?: string; reason?: string; status?: number }): Promise<any>;
  tokenBucket(provider: Provider, rate: number, burst: number, options?: MatchOptions & { per?: string; reason?: string; status?: number }): Promise<any>;
  historyPage(options?: HistoryFilters & { after?: number | string; limit?: number }): Promise<Record<string, any>>;
  history(options?: HistoryFilters & { after?: number | string; status?: number; limit?: number }): Promise<Exchange[]>;
  last(filters?: HistoryFilters): Promise<Exchange | null>;
  waitFor(count?: number, options?: HistoryFilters & { timeout?: number; interval?: number }): Promise<Exchange[]>;
  clearHistory(provider?: Provider): Promise<any>;
  reset(provider?: Provider): Promise<any>;
  loadScenario(scenario: string | Record<string, any>, options?: { merge?: boolean; name?: string }): Promise<any>;
  exportScenario(): Promise<Record<string, any>>;
  createSubscription(options?: { id?: string; service?: 'mozilla' | 'fcm' | 'apple' | 'wns'; applicationServerKey?: string; endpointOrigin?: string }): Promise<Record<string, any>>;
  subscriptions(): Promise<Record<string, any>[]>;
  subscription(id: string): Promise<Record<string, any>>;
  subscriptionMessages(id: string): Promise<Record<string, any>[]>;
  receivedTexts(id: string): Promise<(string | null)[]>;
  releaseExpoReceipts(ids?: Iterable<string>): Promise<any>;
  revokeFcmTokens(options?: { token?: string; clientEmail?: string }): Promise<{ revoked: number }>;
  fcmAccounts(): Promise<{ clientEmail: string; projects: string[] }[]>;
}

export interface Endpoint { name: string; url: string; host: string; port: number; provider?: string; environment?: string }

export declare class BinaryNotFound extends Error {}
/** options.binary / $PUSHDOUBLE_BIN / `pushdouble` on PATH (the binary or the Python wheel's command). */
export declare function findBinary(explicit?: string): string;
export declare function isPythonConsoleScript(path: string): boolean;

export declare class ServerStartError extends Error {}
export declare const REAL_HOSTS: Readonly<Record<string, string>>;

export interface PushDoubleOptions {
  binary?: string;
  scenarios?: string[];
  quiet?: boolean;
  options?: Record<string, unknown>;
  proxy?: boolean;
  host?: string;
  historyCap?: number;
  historyMaxBytes?: number | string;
  seed?: number;
  extraArgs?: string[];
  startupTimeout?: number;
  stopGrace?: number;
  env?: Record<string, string>;
}

export interface Trust { dispatcher: unknown; restored: boolean; restore(): void }

/** One double: a `pushdouble serve` process of its own, or a running instance (connect). */
export declare class PushDouble {
  constructor(options?: PushDoubleOptions);
  static start(options?: PushDoubleOptions): Promise<PushDouble>;
  static connect(adminUrl?: string, options?: { ca?: string; caFile?: string; environment?: Record<string, string> }): Promise<PushDouble>;
  readonly state: 'idle' | 'running' | 'connected' | 'stopped';
  command(endpointsFile: string): string[];
  start(): Promise<this>;
  stop(): Promise<number | undefined>;
  fresh(): Promise<void>;
  readonly running: boolean;
  readonly pid: number | null;
  readonly environment: Record<string, string>;
  readonly endpoints: Endpoint[];
  endpoint(name: string): Endpoint;
  url(name: string): string;
  readonly adminUrl: string;
  readonly caFile: string | null;
  readonly ca: string;
  readonly admin: AdminClient;
  readonly dir?: string;
  tlsOptions(): { ca: string[] };
  dispatcher(options?: { proxy?: string | 'env' | null }): Promise<unknown>;
  trust(): Promise<Trust>;
  connectHttp2(authority: string, options?: SecureClientSessionOptions & { proxy?: string | null }): Promise<ClientHttp2Session>;
  applyEnvironment(target?: Record<string, string | undefined>): () => void;
  hostMap(): Record<string, [string, number]>;
  redirect(): () => void;
  log(): string;
  stderr(): string;
}

export declare function caList(pem: string | string[]): string[];
/** An undici dispatcher of Node's own fetch trusting `pem`: fetch(url, { dispatcher }). */
export declare function fetchDispatcher(pem: string | string[], options?: { proxy?: string | 'env' | null; [tlsOption: string]: unknown }): Promise<unknown>;
export declare function trustCA(pem: string | string[]): Promise<Trust>;
export declare function bypassesProxy(url: string, noProxy?: string): boolean;
export declare function proxyFor(url: string, env?: Record<string, string | undefined>): string | null;
export declare function connectTunnel(proxyUrl: string, host: string, port: number, options?: { timeout?: number }): Promise<import('node:net').Socket>;
export declare function connectHttp2(authority: string, options?: SecureClientSessionOptions & { proxy?: string | null }): Promise<ClientHttp2Session>;
export declare function redirectHosts(map: Record<string, string | [string, number]> | Map<string, [string, number]> | string, options?: { ca?: string | string[] }): () => void;
export declare function redirectFromEnvironment(env?: Record<string, string | undefined>): (() => void) | null;
export declare function hostMapFromProviders(providers: Record<string, any>): Record<string, [string, number]>;
export declare function parseHostMap(map: Record<string, string | [string, number]> | string): Map<string, [string, number]>;
