// Type declarations of pushdouble/node-test (src/node-test.js).
import type { PushDouble, PushDoubleOptions } from './index.js';

/** Hooks for the calling file or suite: start (or connect) before, fresh state before each test, stop after. */
export declare function usePushDouble(options?: PushDoubleOptions & { trust?: boolean; env?: boolean; adminUrl?: string; ca?: string; caFile?: string }): PushDouble;
