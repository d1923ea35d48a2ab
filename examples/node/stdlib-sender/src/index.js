// A push sender on Node's standard library: APNs over node:http2 with an ES256 provider token,
// FCM HTTP v1 over fetch with a service account's OAuth token. An application would call
// ApnsClient#send / FcmClient#send; adapters/node-stdlib/ runs it under pushdouble conform.
export { ApnsClient, ApnsToken, apnsRequest } from './apns.js';
export { FcmClient, GoogleAccessToken, fcmMessage } from './fcm.js';
export { Backoff, retryAfterSeconds } from './retry.js';
