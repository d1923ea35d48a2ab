import Foundation
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleTransport

/// A browser's autopush channel as its device records it (attribute `autopush`).
public struct AutopushChannelRef: Sendable, Equatable {
    /// The user agent that registered it (its UAID when it did).
    public var uaid: String
    /// The channel id the browser chose (a UUID), lower case.
    public var channelID: String

    public init(uaid: String, channelID: String) { self.uaid = uaid; self.channelID = channelID.lowercased() }

    init(json: JSONValue, deviceID: String) throws {
        guard let u = json["uaid"]?.stringValue, let c = json["channelID"]?.stringValue else {
            throw DeviceSchemaError(deviceID: deviceID, field: "autopush", message: "expected {\"uaid\",\"channelID\"} strings")
        }
        self.init(uaid: u, channelID: c)
    }

    var json: JSONValue { ["uaid": .string(uaid), "channelID": .string(channelID)] }

    /// The device id of a browser channel.
    public static func deviceID(channelID: String) -> String { "browser-" + channelID.lowercased() }
}

/// The push service side of real browsers (docs/webpush.md "Browsers over the autopush
/// WebSocket protocol"): user agents by UAID with their open session, channels as devices of
/// provider `webpush` (so a push to one is an ordinary push to a Mozilla-style endpoint), and
/// each agent's messages not yet acknowledged.
///
/// A message accepted for a channel (``relay(body:fields:channel:ttl:now:)``) goes to the
/// agent's open session at once, or waits for its next `hello` while its TTL lasts (TTL 0:
/// dropped when the agent is not connected). Unacknowledged messages are sent again after
/// each `hello`. Every step is added to the application server's history entry as the
/// `browser` annotation.
///
/// Threading: Sendable; one lock over the agents. Sends are queued to a session's loop while
/// the lock is held, so a `hello` answer always precedes the messages sent after it.
public final class AutopushHub: Sendable {
    struct Context: Sendable {
        let devices: DeviceRegistry
        let clock: any DoubleClock
        /// The Web Push listener's URL (endpoints are made on it), nil before it is bound.
        let origin: @Sendable () -> String?
    }

    /// One message for a channel, until acknowledged, nacked, expired or dropped.
    struct Message: Sendable {
        var channelID: String
        var version: String
        var text: String
        var expiresAt: Date
        var outcome: WeakHistoryOutcome?
        var record: [(String, JSONValue)]
        var sends = 0

        mutating func note(_ state: String, _ extra: [(String, JSONValue)] = [], at now: Date) {
            record.removeAll { m in m.0 == "delivery" || extra.contains { $0.0 == m.0 } }
            record.append(("delivery", .string(state)))
            record += extra
            record.removeAll { $0.0 == "at" }
            record.append(("at", .string(WebPushReceivedMessage.timestamp(now))))
            outcome?.annotate("browser", .object(record))
        }
    }

    /// One user agent.
    struct Agent: Sendable {
        var session: WebSocketSession?
        var unacked: [Message] = []
        var lastHello: Date?
    }

    private let context = Locked<Context?>(nil)
    private let agents = Locked<[String: Agent]>([:])
    /// Per channel, the messages sent to the browser (version, exchange) whose service worker
    /// has not yet reported what it read (``serviceWorkerRead(endpoint:text:)``), oldest first.
    /// A message Firefox acks with another code than 100 or nacks never fires a push event
    /// that reports, so it leaves the list then.
    private let awaitingRead = Locked<[String: [(version: String, outcome: WeakHistoryOutcome)]]>([:])
    /// Most messages kept per agent (oldest dropped first).
    static let maxUnacked = 1000

    public init() {}

    /// Binds the hub to a double's devices and the Web Push listener's URL.
    public func attach(devices: DeviceRegistry, clock: any DoubleClock, origin: @escaping @Sendable () -> String?) {
        context.withLock { $0 = Context(devices: devices, clock: clock, origin: origin) }
    }

    var now: Date { context.withLock { $0?.clock.now() } ?? Date() }

    // MARK: the session's requests

    /// `hello`: the agent `uaid` when the hub knows it, else a new UAID; the session replaces
    /// any earlier one of that agent (which is cut). Answers, then sends every unexpired
    /// unacknowledged message.
    func hello(uaid offered: String?, session: WebSocketSession) -> String {
        let now = self.now
        var replaced: WebSocketSession?
        let uaid = agents.withLock { all -> String in
            let uaid: String
            if let offered, all[offered] != nil { uaid = offered } else { uaid = Self.newUAID() }
            var agent = all[uaid] ?? Agent()
            if let old = agent.session, old.connection.id != session.connection.id { replaced = old }
            agent.session = session
            agent.lastHello = now
            session.send(text: AutopushServerMessage.hello(uaid: uaid))
            var kept: [Message] = []
            for var m in agent.unacked {
                if m.expiresAt <= now {
                    m.note("expired", at: now)
                    continue
                }
                m.sends += 1
                if m.sends == 1 { awaitRead(m) }
                session.send(text: m.text)
                m.note("sent", [("sends", .int(Int64(m.sends)))], at: now)
                kept.append(m)
            }
            agent.unacked = kept
            all[uaid] = agent
            return uaid
        }
        replaced?.cut()
        return uaid
    }

    /// `register`: a new channel as a device with a Mozilla-style endpoint (`/wpush/v2/` when
    /// restricted by `key`, else `/wpush/v1/`); the same channel registered again keeps its
    /// endpoint. Returns the answer.
    func register(uaid: String, channelID raw: String, key: String?) -> String {
        let channelID = raw.lowercased()
        guard UUID(uuidString: channelID) != nil else { return AutopushServerMessage.register(channelID: raw, status: 400, endpoint: nil) }
        guard let ctx = context.withLock({ $0 }), let origin = ctx.origin() else {
            return AutopushServerMessage.register(channelID: raw, status: 500, endpoint: nil)
        }
        var applicationServerKey: String? = nil
        if let key {
            guard let bytes = try? Base64URL.decode(key), (try? P256PublicKey(rawRepresentation: bytes)) != nil else {
                return AutopushServerMessage.register(channelID: raw, status: 400, endpoint: nil)
            }
            applicationServerKey = Base64URL.encode(bytes)
        }
        let id = AutopushChannelRef.deviceID(channelID: channelID)
        if let existing = ctx.devices.device(id: id), case .active = existing.state,
           let endpoint = existing.attributes["subscription"]?["endpoint"]?.stringValue {
            return AutopushServerMessage.register(channelID: raw, status: 200, endpoint: WebPushDeviceSchema.resolvedEndpoint(endpoint, origin: origin))
        }
        guard let token = try? WebPushSubscription.randomToken() else {
            return AutopushServerMessage.register(channelID: raw, status: 500, endpoint: nil)
        }
        let endpoint = origin + WebPushService.mozilla.endpointPath(token: token, restricted: applicationServerKey != nil)
        var attributes: [String: JSONValue] = ["subscription": ["endpoint": .string(endpoint), "expirationTime": .null],
                                               "autopush": AutopushChannelRef(uaid: uaid, channelID: channelID).json]
        if let k = applicationServerKey { attributes["applicationServerKey"] = .string(k) }
        do {
            _ = try ctx.devices.upsert(Device(id: id, provider: .webpush, token: token, attributes: attributes))
        } catch {
            return AutopushServerMessage.register(channelID: raw, status: 500, endpoint: nil)
        }
        return AutopushServerMessage.register(channelID: raw, status: 200, endpoint: endpoint)
    }

    /// `unregister`: the channel's device becomes unregistered (a push to it is answered 410),
    /// its waiting messages are dropped. Channels are found by id whichever agent made them.
    func unregister(channelID raw: String) -> String {
        let channelID = raw.lowercased()
        if let ctx = context.withLock({ $0 }), var device = ctx.devices.device(id: AutopushChannelRef.deviceID(channelID: channelID)) {
            device.state = .unregistered(since: ctx.clock.now())
            _ = try? ctx.devices.upsert(device)
        }
        awaitingRead.withLock { $0[channelID] = nil }
        let now = self.now
        agents.withLock { all in
            for uaid in all.keys {
                all[uaid]!.unacked.removeAll { m in
                    guard m.channelID == channelID else { return false }
                    var m = m
                    m.note("dropped", [("reason", "unsubscribed")], at: now)
                    return true
                }
            }
        }
        return AutopushServerMessage.unregister(channelID: raw, status: 200)
    }

    /// `ack`: each update's message is done (code 100 delivered, 101 decryption error, 102 not delivered).
    func ack(_ updates: [AutopushClientMessage.Update], uaid: String) {
        let now = self.now
        agents.withLock { all in
            for u in updates {
                let channel = u.channelID.lowercased()
                for key in [uaid] + all.keys.filter({ $0 != uaid }) {
                    guard let i = all[key]?.unacked.firstIndex(where: { $0.version == u.version && $0.channelID == channel }) else { continue }
                    var m = all[key]!.unacked.remove(at: i)
                    m.note("acked", [("code", .int(Int64(u.code ?? 100)))], at: now)
                    if (u.code ?? 100) != 100 { unawaitRead(m) }
                    break
                }
            }
        }
    }

    /// `nack`: the service worker failed on the message (code 301–303); it is done.
    func nack(version: String, code: Int?, uaid: String) {
        let now = self.now
        agents.withLock { all in
            guard let i = all[uaid]?.unacked.firstIndex(where: { $0.version == version }) else { return }
            var m = all[uaid]!.unacked.remove(at: i)
            m.note("nacked", [("code", code.map { .int(Int64($0)) } ?? .null)], at: now)
            unawaitRead(m)
        }
    }

    /// The session ended: the agent is offline (its messages wait).
    func sessionClosed(uaid: String, session: WebSocketSession) {
        agents.withLock { all in
            if all[uaid]?.session?.connection.id == session.connection.id { all[uaid]!.session = nil }
        }
    }

    // MARK: from the application server's push

    /// The continuation of an accepted push to `channel` (``ProviderResponse/onRecorded``): the
    /// body exactly as received and its encoding fields, to the agent's session or its queue.
    func relay(body: [UInt8], fields: HTTPHeaders, channel: AutopushChannelRef, ttl: Int64, now: Date) -> @Sendable (HistoryOutcome) -> Void {
        let version = UUID().uuidString.lowercased()
        let text = AutopushServerMessage.notification(channelID: channel.channelID, version: version, body: body,
                                                      headers: AutopushServerMessage.encodingHeaders(fields))
        return { [self] outcome in
            var m = Message(channelID: channel.channelID, version: version, text: text, expiresAt: now.addingTimeInterval(Double(ttl)),
                            outcome: outcome.weak,
                            record: [("uaid", .string(channel.uaid)), ("channelID", .string(channel.channelID)), ("version", .string(version))])
            agents.withLock { all in
                var agent = all[channel.uaid] ?? Agent()
                if let session = agent.session {
                    m.sends = 1
                    awaitRead(m)
                    session.send(text: text)
                    m.note("sent", [("sends", 1)], at: now)
                } else if ttl == 0 {
                    m.note("dropped", [("reason", "TTL 0 and the browser is not connected")], at: now)
                    return
                } else {
                    m.note("queued", at: now)
                }
                agent.unacked.append(m)
                if agent.unacked.count > Self.maxUnacked { agent.unacked.removeFirst() }
                all[channel.uaid] = agent
            }
        }
    }

    /// Notes that `m` went to the browser for the first time: the next read its service worker
    /// reports for the channel is this message's.
    private func awaitRead(_ m: Message) {
        guard let outcome = m.outcome else { return }
        awaitingRead.withLock { all in
            all[m.channelID, default: []].append((m.version, outcome))
            if all[m.channelID]!.count > Self.maxUnacked { all[m.channelID]!.removeFirst() }
        }
    }

    /// `m` will not be read (a decryption error, not delivered, the service worker failed).
    private func unawaitRead(_ m: Message) {
        awaitingRead.withLock { all in all[m.channelID]?.removeAll { $0.version == m.version } }
    }

    // MARK: what the browser's service worker read

    /// A service worker reports the text it read from a push (`nil`: the push had no data) for
    /// the subscription `endpoint` (its URL, or only its path): the oldest message sent to that
    /// channel and not yet reported gets the annotation `serviceWorker` =
    /// `{"text","at"}`. Firefox fires the push events of a channel in the order it received
    /// them and only for what it decrypted. False when no message of that channel awaits it.
    public func serviceWorkerRead(endpoint: String, text: String?) -> Bool {
        guard let ctx = context.withLock({ $0 }),
              let token = WebPushEndpointPath.parse(Self.path(of: endpoint))?.token,
              let device = ctx.devices.list(provider: .webpush).first(where: { $0.token == token }),
              let channel = device.attributes["autopush"]?["channelID"]?.stringValue else { return false }
        let outcome = awaitingRead.withLock { all -> WeakHistoryOutcome? in
            guard var list = all[channel], !list.isEmpty else { return nil }
            let first = list.removeFirst()
            all[channel] = list
            return first.outcome
        }
        guard let outcome else { return false }
        outcome.annotate("serviceWorker", ["text": text.map(JSONValue.string) ?? .null,
                                           "at": .string(WebPushReceivedMessage.timestamp(ctx.clock.now()))])
        return true
    }

    /// The path (and query) of an endpoint URL; a path stays as it is.
    public static func path(of endpoint: String) -> String {
        guard let scheme = endpoint.range(of: "://") else { return endpoint }
        let rest = endpoint[scheme.upperBound...]
        return rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/"
    }

    // MARK: control

    /// Ends the agent's session: with close code `code` (4774: do not reconnect), or by
    /// cutting the TCP connection (nil). False when the agent is not connected.
    public func disconnect(uaid: String, code: UInt16?) -> Bool {
        guard let session = agents.withLock({ $0[uaid]?.session }) else { return false }
        if let code { session.close(code: code) } else { session.cut() }
        return true
    }

    /// Every agent: `{"uaid","connected","unacked":[{"channelID","version"}]}`.
    public var agentsJSON: JSONValue {
        agents.withLock { all in
            .array(all.keys.sorted().map { uaid in
                let a = all[uaid]!
                return ["uaid": .string(uaid), "connected": .bool(a.session != nil),
                        "unacked": .array(a.unacked.map { ["channelID": .string($0.channelID), "version": .string($0.version)] })]
            })
        }
    }

    /// A UAID as autopush makes one: a random UUID, 32 lower-case hex digits.
    static func newUAID() -> String { UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased() }
}
