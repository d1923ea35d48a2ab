/// Every check of the Expo core, with the docs/expo.md section it comes from. Request-level
/// refusals carry theirs in ``ExpoRequestError/rule``; per-recipient ones in
/// ``ExpoRecipient/verdict``. docs/expo.md has the table.
public enum ExpoRule: String, Sendable, Equatable, Hashable, CaseIterable {
    // MARK: Transport-free request checks
    /// Enhanced push security: `Authorization: Bearer <valid token>` (§1 "Auth" [A]) → `UNAUTHORIZED`.
    case accessToken
    /// `Content-Encoding` other than none / `identity` / `gzip` (§1 [A]) — and `deflate`,
    /// accepted by default (ours: docs/expo.md names only gzip) → `API_ERROR`.
    case contentEncoding
    /// The gzip body does not decompress (§1 [A] gzip) → `API_ERROR` (text ours).
    case compressedBody
    /// The body, decompressed or plain, is over the configured bound (a bomb) → `API_ERROR` (text ours).
    case bodyTooLarge
    /// The body is not JSON (§2) → `API_ERROR` (text ours).
    case bodyNotJSON

    // MARK: Send body (§2)
    /// Neither a message object nor an array of them → `API_ERROR` `"value" must be of type object.` (§3.2 [O]).
    case bodyShape
    /// A message field of the wrong type or value (§2 table) → `API_ERROR`, Joi-style text (§3.2).
    case fieldType
    /// A message without `to` (§2: required) → `API_ERROR`.
    case missingTo
    /// A field §2 does not list (accepted by default) → `API_ERROR`.
    case unknownField
    /// More than 100 recipients (§1 [A], text §3.2 [O]) → `PUSH_TOO_MANY_NOTIFICATIONS`.
    case tooManyRecipients
    /// Recipients of more than one project (§1 [A], text and `details` §3.2 [O]) → `PUSH_TOO_MANY_EXPERIENCE_IDS`.
    case oneProject

    /// 600 notifications / s / project (§1 [A]) → `TOO_MANY_REQUESTS`, 429 (``ExpoRateLimiter``,
    /// which the caller runs once the request's project is known).
    case rateLimit

    // MARK: Per recipient
    /// `to` is not a push token of §5 → error ticket (`DeviceNotRegistered`, the §3.1 shape).
    case tokenFormat
    /// The message payload is over 4096 bytes (§1 [A]) → `MessageTooBig` receipt (default) or ticket.
    case messageSize

    // MARK: getReceipts (§4)
    /// `{"ids":[string…]}` (§4) → `API_ERROR`.
    case receiptsBodyShape
    /// More than 1000 ids (§1 [A]) → `PUSH_TOO_MANY_RECEIPTS`.
    case tooManyReceiptIDs
}
