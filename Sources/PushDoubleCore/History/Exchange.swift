import Foundation
import PushDoubleTransport

/// One request/response exchange as a fake saw it: the unit of the history.
///
/// Everything a check or a user needs to judge a sender is here: transport facts
/// (connection, stream, TLS), the request as received, the decoded identity and
/// notification, the response as sent and which stage decided it.
public struct Exchange: Sendable, Codable {
    /// Position in the history, 1-based, increasing; never reused (even when the cap drops old ones).
    public var seq: UInt64
    public var provider: ProviderID
    /// Stable endpoint id from the fake ("apns.push", ...).
    public var endpoint: String
    public var transport: RequestInfo
    public var request: RecordedRequest
    public var token: String?
    public var topic: String?
    public var environment: String?
    /// The registered device id the token resolved to, if any.
    public var deviceID: String?
    public var auth: AuthIdentity?
    public var notification: JSONValue?
    public var response: RecordedResponse
    public var decidedBy: Decision
    /// When the request was complete and when the answer was decided.
    public var receivedAt: Date
    public var respondedAt: Date
    /// One outcome per recipient when the request named several (an Expo batch, in request
    /// order); nil for a single-recipient request (its outcome is the response itself).
    public var recipients: [RecipientOutcome]?
    /// Facts the fake added after answering (an Expo receipt fetched later), by name, in order.
    public var annotations: JSONValue?
    /// true when the request came in cleartext (no TLS: a plaintext-mode double, or a
    /// listener declared without TLS), so nothing about TLS or ALPN was exercised; nil
    /// (absent from the JSON) over TLS. Derived from ``transport``.
    public var plaintext: Bool?

    public init(seq: UInt64, provider: ProviderID, endpoint: String, transport: RequestInfo, request: RecordedRequest,
                token: String?, topic: String?, environment: String?, deviceID: String?, auth: AuthIdentity?,
                notification: JSONValue?, response: RecordedResponse, decidedBy: Decision, receivedAt: Date, respondedAt: Date,
                recipients: [RecipientOutcome]? = nil, annotations: JSONValue? = nil) {
        self.seq = seq; self.provider = provider; self.endpoint = endpoint; self.transport = transport; self.request = request
        self.token = token; self.topic = topic; self.environment = environment; self.deviceID = deviceID; self.auth = auth
        self.notification = notification; self.response = response; self.decidedBy = decidedBy
        self.receivedAt = receivedAt; self.respondedAt = respondedAt
        self.recipients = recipients; self.annotations = annotations
        plaintext = transport.connection.tls == nil ? true : nil
    }
}

/// What a fake answered for one recipient of a multi-recipient request (an Expo ticket):
/// in ``ProviderResponse/recipients`` and, with the registered device filled in, in the history.
public struct RecipientOutcome: Sendable, Codable, Equatable {
    /// The recipient's token as the request named it.
    public var token: String
    /// The registered device the token resolved to, if any (filled in by the core).
    public var deviceID: String?
    /// Whether the provider accepted the message for this recipient.
    public var accepted: Bool
    /// The provider's reason when it did not ("DeviceNotRegistered").
    public var reason: String?
    /// Provider data for this recipient (an Expo ticket: `{"status":"ok","id":"…"}`).
    public var detail: JSONValue?
    public init(token: String, deviceID: String? = nil, accepted: Bool, reason: String? = nil, detail: JSONValue? = nil) {
        self.token = token; self.deviceID = deviceID; self.accepted = accepted; self.reason = reason; self.detail = detail
    }
}

/// A request as received, for the history.
public struct RecordedRequest: Sendable, Codable {
    public var method: String
    public var path: String
    public var scheme: String
    public var authority: String?
    /// Header fields in order, repeats kept, names as received.
    public var headers: [[String]]
    /// The body as UTF-8 text when it is valid UTF-8, else nil (see `bodyBase64`).
    public var body: String?
    public var bodyBase64: String?
    public var bodySize: Int
    public init(_ r: HTTPRequest) {
        method = r.method; path = r.path; scheme = r.scheme; authority = r.authority
        headers = r.headers.fields.map { [$0.name, $0.value] }
        bodySize = r.body.count
        if let s = String(validating: r.body, as: UTF8.self) { body = s; bodyBase64 = nil }
        else { body = nil; bodyBase64 = Data(r.body).base64EncodedString() }
    }
}

/// What was sent back (or done instead), for the history.
public struct RecordedResponse: Sendable, Codable {
    /// "respond", "delayed", "reset", "goaway", "drop", "stall", "dribble", "truncate", "stream".
    public var action: String
    /// HTTP status, when a response (or its head) was sent.
    public var status: Int?
    public var headers: [[String]]
    public var body: String?
    /// Provider reason string for errors.
    public var reason: String?
    /// Free text for non-response actions (e.g. "GOAWAY last=5 NO_ERROR debug=...").
    public var detail: String?
    public var delaySeconds: Double?
    public init(action: String, status: Int?, headers: [[String]] = [], body: String? = nil, reason: String? = nil,
                detail: String? = nil, delaySeconds: Double? = nil) {
        self.action = action; self.status = status; self.headers = headers; self.body = body; self.reason = reason
        self.detail = detail; self.delaySeconds = delaySeconds
    }
}
