// Type declarations of pushdouble/driver (src/driver.js).
export type Outcome = 'sent' | 'pending' | 'dead' | 'rejected' | 'failed' | 'skipped' | 'aborted';
export interface Result { device: string; outcome: Outcome; reason?: string; providerMessageId?: string }
export interface Device { id: string; provider: string; token?: string; environment?: string; topic?: string; registeredAt?: string; [k: string]: any }
export interface Target { id: string; provider: string; topic?: string; condition?: string }
export type Notification = Record<string, any>;

export declare const SENT: 'sent';
export declare const PENDING: 'pending';
export declare const DEAD: 'dead';
export declare const REJECTED: 'rejected';
export declare const FAILED: 'failed';
export declare const SKIPPED: 'skipped';
export declare const ABORTED: 'aborted';
export declare const OUTCOMES: readonly Outcome[];
export declare const FEATURE_REGISTERED_AT: 'registeredAt';
export declare const FEATURE_REGISTER: 'register';
export declare const PARSE_ERROR: -32700;
export declare const INVALID_REQUEST: -32600;
export declare const METHOD_NOT_FOUND: -32601;
export declare const INVALID_PARAMS: -32602;
export declare const SERVER_ERROR: -32000;

export declare function result(device: Device | Target | string, outcome: Outcome, reason?: string | null, messageId?: string | null): Result;
export declare function sent(device: Device | Target | string, messageId?: string | null, reason?: string | null): Result;
export declare function pending(device: Device | Target | string, messageId?: string | null, reason?: string | null): Result;
export declare function dead(device: Device | Target | string, reason: string): Result;
export declare function rejected(device: Device | Target | string, reason?: string): Result;
export declare function failed(device: Device | Target | string, reason?: string): Result;
export declare function skipped(device: Device | Target | string, reason?: string): Result;
export declare function aborted(device: Device | Target | string, reason: string): Result;
export declare function outcomeOf(error: unknown, table: Map<Function, Outcome> | [Function, Outcome][], fallback?: Outcome): Outcome;

/** Tokens a provider called dead; revived by a later registeredAt or a register call. */
export declare class DeadTokens {
  constructor(clock?: () => number);
  has(token: string): boolean;
  skip(device: Device): Result | null;
  note(device: Device, entry: Result): Result;
  revive(devices: Device[]): void;
}

/** Base class of an adapter. */
export declare class Adapter {
  name: string;
  version: string;
  providers: string[];
  features: string[];
  fields: Record<string, string[]> | null;
  targets: string[];
  params: Record<string, any> | null;
  initialize(config: Record<string, any>): void | Record<string, any> | Promise<void | Record<string, any>>;
  send(notification: Notification, devices: Device[], targets: Target[]): Result[] | Promise<Result[]>;
  settle(): Result[] | Promise<Result[]>;
  register(devices: Device[]): void | Record<string, any> | Promise<void | Record<string, any>>;
  shutdown(): void | Promise<void>;
  supportsRegister(): boolean;
  initializeResult(): Record<string, any>;
}

export declare function handleLine(adapter: Adapter, line: string): Promise<Record<string, any> | null>;

/** The providers' real host names mapped to the fakes of initialize's params.providers. */
export declare function hostMapFromProviders(providers: Record<string, any>): Record<string, [string, number]>;
/** In-process redirect of TLS connections to mapped host:port pairs; returns the function that stops it. */
export declare function redirectHosts(map: Record<string, string | [string, number]> | Map<string, [string, number]> | string, options?: { ca?: string | string[] }): () => void;
export declare function run(adapter: Adapter, options?: { input?: NodeJS.ReadableStream; exit?: boolean; redirect?: boolean }): Promise<void>;
