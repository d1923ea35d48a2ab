// A push sender on Node's standard library: APNs over node:http2 with an ES256 provider token,
// FCM HTTP v1 over fetch with a service account's OAuth token, Expo over fetch, Web Push with node:crypto. An
// application calls the clients' send methods; adapters/node-stdlib/ runs it under pushdouble conform.
export { ApnsClient, ApnsToken, apnsRequest } from './apns.js';
export { FcmClient, GoogleAccessToken, fcmMessage } from './fcm.js';
export { Backoff, retryAfterSeconds } from './retry.js';
export { ExpoClient, expoMessage } from './expo.js';
export { WebPushClient, encrypt as webPushEncrypt, vapidAuthorization } from './webpush.js';
