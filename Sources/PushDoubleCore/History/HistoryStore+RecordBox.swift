import Foundation
import Synchronization
import PushDoubleTransport

extension HistoryStore {
    /// A packed record on the heap (see ``PackedFields`` for the byte layout): the ring holds
    /// one reference per exchange.
    final class RecordBox: Sendable {
        let provider: ProviderID
        /// The pool generation the ids in `bytes` refer to.
        let strings: StringPool.ValueStore
        let bytes: [UInt8]
        let connection: SharedConnection
        let auth: SharedAuth?
        let notification: JSONValue?
        let notificationMaker: (@Sendable (HTTPRequest) -> JSONValue?)?
        /// The action when it is not a plain packed response.
        let action: ResponseAction?
        let streamID: UInt32
        let version: HTTPVersion
        let stage: Decision.Stage
        let priorityFramesReceived: Int
        let headReceivedAt: Date, bodyReceivedAt: Date, receivedAt: Date, respondedAt: Date
        /// What finally happened to the answer, if tracked (see ``HistoryOutcome``):
        /// 0 = unknown, else 1 + `ResponseOutcome.Kind` index; and when, in ms since 1970.
        let outcomeKind = Atomic<UInt8>(0)
        let outcomeAtMillis = Atomic<Int64>(0)
        /// Per-recipient outcomes of a multi-recipient request (nil: a single recipient).
        let recipients: [RecipientOutcome]?
        /// Facts a fake added after answering (``HistoryOutcome/annotate(_:_:)``); only records
        /// made annotatable have the table (no allocation on the common path).
        let annotations: Locked<[(String, JSONValue)]>?
        /// The bytes this record is charged against the history's byte cap (``HistoryFootprint``).
        let charge: Int

        convenience init(_ r: borrowing ExchangeRecord, pool: StringPool) {
            self.init(provider: r.provider, endpoint: r.endpoint, request: r.request, token: r.token, topic: r.topic,
                      environment: r.environment, deviceID: r.deviceID, auth: r.auth, notification: r.notification,
                      notificationMaker: r.notificationMaker, action: r.action, reason: r.reason, detail: r.detail,
                      decidedBy: r.decidedBy, receivedAt: r.receivedAt, respondedAt: r.respondedAt, recipients: r.recipients,
                      annotatable: r.annotatable, pool: pool)
        }

        /// An ``ExchangeRecord``'s fields, borrowed: the request path packs what it holds
        /// without assembling (and copying) a record first.
        init(provider: ProviderID, endpoint: borrowing String, request: borrowing HTTPRequest, token: borrowing String?,
             topic: borrowing String?, environment: borrowing String?, deviceID: borrowing String?, auth: borrowing AuthIdentity?,
             notification: borrowing JSONValue?, notificationMaker: (@Sendable (HTTPRequest) -> JSONValue?)?,
             action: borrowing ResponseAction, reason: borrowing String?, detail: borrowing String?, decidedBy: borrowing Decision,
             receivedAt: Date, respondedAt: Date, recipients: borrowing [RecipientOutcome]?, annotatable: Bool, pool: StringPool) {
            self.provider = provider
            self.recipients = copy recipients
            annotations = annotatable ? Locked([]) : nil
            let info = request.info
            streamID = info.streamID; version = info.version; priorityFramesReceived = info.priorityFramesReceived
            headReceivedAt = info.headReceivedAt; bodyReceivedAt = info.bodyReceivedAt
            self.receivedAt = receivedAt; self.respondedAt = respondedAt
            stage = decidedBy.stage
            self.notification = copy notification; self.notificationMaker = notificationMaker
            let packedResponse = Self.packedResponse(of: action)
            self.action = packedResponse == nil ? copy action : nil
            let pooled: Int
            (strings, bytes, connection, self.auth, pooled) = pool.withLock { p in
                p.rotateIfFull()
                p.addedBytes = 0
                let c = p.connection(info.connection)
                let a = auth.map { p.identity($0) }
                var w = PackedFields.Writer(p.scratch)
                Self.pack(endpoint: endpoint, deviceID: deviceID, request: request, token: token, topic: topic, environment: environment,
                          reason: reason, detail: detail, decisionDetail: decidedBy.detail, response: packedResponse, into: &w, &p)
                return (p.store, w.bytes, c, a, p.addedBytes)
            }
            charge = HistoryFootprint.perRecord + bytes.count + pooled + HistoryFootprint.json(self.notification)
                + HistoryFootprint.action(self.action) + HistoryFootprint.recipients(self.recipients, annotatable: annotatable)
        }

        /// The response a record packs in its bytes (a plain answer); any other action is kept as is.
        private static func packedResponse(of action: ResponseAction) -> HTTPResponse? {
            if case .respond(let r) = action { return r }
            return nil
        }

        /// Field order: the filterable fields first, so a query decodes only what it needs.
        /// The path and the response header values are never pooled (new on nearly every
        /// request); everything else is, on its second sighting.
        private static func pack(endpoint: String, deviceID: String?, request q: HTTPRequest, token: String?, topic: String?,
                                 environment: String?, reason: String?, detail: String?, decisionDetail: String?,
                                 response: HTTPResponse?, into w: inout PackedFields.Writer, _ p: inout StringPool.Contents) {
            w.string(endpoint, slot: 0, &p)
            w.string(deviceID, slot: 1, &p)
            w.string(q.path, slot: PackedFields.inlineOnly, &p)
            if let t = token {
                if let n = Self.suffixLength(t, of: q.path) { w.varint(1); w.varint(UInt64(n)) } else { w.varint(2); w.string(t, slot: 3, &p) }
            } else {
                w.varint(0)
            }
            w.string(q.method, slot: 4, &p)
            w.string(q.scheme, slot: 5, &p)
            w.string(q.authority, slot: 6, &p)
            w.string(topic, slot: 7, &p)
            w.string(environment, slot: 8, &p)
            w.string(reason, slot: 9, &p)
            w.string(detail, slot: 10, &p)
            w.string(decisionDetail, slot: 11, &p)
            w.varint(UInt64(q.headers.fields.count))
            for (i, f) in q.headers.fields.enumerated() {
                let slot = i < 16 ? 12 + 2 * i : PackedFields.noSlot
                w.string(f.name, slot: slot, &p)
                w.string(f.value, slot: slot == PackedFields.noSlot ? slot : slot + 1, &p)
            }
            w.data(q.body)
            if let response {
                w.varint(1)
                w.varint(UInt64(response.status))
                switch response.framing {
                case .automatic: w.varint(0)
                case .headersOnly: w.varint(1)
                case .singleDataFrame: w.varint(2)
                case .chunked(let maxChunk): w.varint(3); w.varint(UInt64(max(0, maxChunk)))
                }
                w.varint(UInt64(response.headers.fields.count))
                for (i, f) in response.headers.fields.enumerated() {
                    w.string(f.name, slot: i == 0 ? 44 : (i == 1 ? 45 : PackedFields.noSlot), &p)
                    w.string(f.value, slot: PackedFields.inlineOnly, &p)
                }
                w.data(response.body)
            } else {
                w.varint(0)
            }
        }

        /// The UTF-8 length of `token` when `path` ends with it (the token is then not stored twice).
        private static func suffixLength(_ token: String, of path: String) -> Int? {
            UTF8Bytes.of(token) { tu -> Int? in
                UTF8Bytes.of(path) { pu -> Int? in
                    guard tu.count > 0, tu.count <= pu.count else { return nil }
                    return memcmp(pu.baseAddress! + (pu.count - tu.count), tu.baseAddress!, tu.count) == 0 ? tu.count : nil
                }
            }
        }

        /// Everything unpacked.
        struct Unpacked {
            var endpoint: String, deviceID: String?, path: String, token: String?
            var method: String, scheme: String, authority: String?, topic: String?, environment: String?
            var reason: String?, detail: String?, decisionDetail: String?
            var headers: HTTPHeaders, body: [UInt8], action: ResponseAction
        }

        private func read<R>(_ body: (inout PackedFields.Reader) -> R) -> R {
            bytes.withUnsafeBufferPointer { u in
                var r = PackedFields.Reader(u, pool: strings)
                return body(&r)
            }
        }

        private static func token(_ r: inout PackedFields.Reader, path: String) -> String? {
            switch r.varint() {
            case 1:
                let n = Int(r.varint())
                return String(decoding: path.utf8.suffix(n), as: UTF8.self)
            case 2: return r.string()
            default: return nil
            }
        }

        /// The fields a query filters on.
        var filterFields: (endpoint: String, deviceID: String?, token: String?) {
            read { r in
                let endpoint = r.string() ?? ""
                let device = r.string()
                let path = r.string() ?? ""
                return (endpoint, device, Self.token(&r, path: path))
            }
        }

        var unpacked: Unpacked {
            read { r in
                let endpoint = r.string() ?? "", device = r.string(), path = r.string() ?? ""
                let token = Self.token(&r, path: path)
                let method = r.string() ?? "", scheme = r.string() ?? "", authority = r.string()
                let topic = r.string(), environment = r.string(), reason = r.string(), detail = r.string(), decision = r.string()
                var headers = HTTPHeaders()
                let n = Int(r.varint())
                for _ in 0..<n {
                    let name = r.string() ?? ""
                    headers.add(name: name, value: r.string() ?? "")
                }
                let body = r.data()
                let action: ResponseAction
                if r.varint() == 1 {
                    let status = Int(r.varint())
                    let framing: ResponseFraming
                    switch r.varint() {
                    case 1: framing = .headersOnly
                    case 2: framing = .singleDataFrame
                    case 3: framing = .chunked(maxChunk: Int(r.varint()))
                    default: framing = .automatic
                    }
                    var h = HTTPHeaders()
                    let m = Int(r.varint())
                    for _ in 0..<m {
                        let name = r.string() ?? ""
                        h.add(name: name, value: r.string() ?? "")
                    }
                    action = .respond(HTTPResponse(status: status, headers: h, body: r.data(), framing: framing))
                } else {
                    action = self.action ?? .stall
                }
                return Unpacked(endpoint: endpoint, deviceID: device, path: path, token: token, method: method, scheme: scheme,
                                authority: authority, topic: topic, environment: environment, reason: reason, detail: detail,
                                decisionDetail: decision, headers: headers, body: body, action: action)
            }
        }

        var requestInfo: RequestInfo {
            RequestInfo(connection: connection.info, streamID: streamID, version: version, headReceivedAt: headReceivedAt,
                        bodyReceivedAt: bodyReceivedAt, priorityFramesReceived: priorityFramesReceived)
        }

        /// The record as the request path handed it over.
        var record: ExchangeRecord {
            let u = unpacked
            let request = HTTPRequest(method: u.method, path: u.path, scheme: u.scheme, authority: u.authority, headers: u.headers,
                                      body: u.body, info: requestInfo)
            return ExchangeRecord(provider: provider, endpoint: u.endpoint, request: request, token: u.token, topic: u.topic,
                                  environment: u.environment, deviceID: u.deviceID, auth: auth?.identity, notification: notification,
                                  action: u.action, reason: u.reason, detail: u.detail, decidedBy: Decision(stage, u.decisionDetail),
                                  receivedAt: receivedAt, respondedAt: respondedAt, notificationMaker: notificationMaker, recipients: recipients)
        }

        func exchange(_ seq: UInt64) -> Exchange {
            var e = record.exchange(seq: seq)
            if let notes = annotations?.withLock({ $0 }), !notes.isEmpty { e.annotations = .object(notes) }
            let k = outcomeKind.load(ordering: .acquiring)
            if k > 0 {
                let at = Date(timeIntervalSince1970: Double(outcomeAtMillis.load(ordering: .relaxed)) / 1000)
                let text = "outcome: \(HistoryOutcome.kinds[Int(k) - 1].rawValue) at \(DateFormats.iso8601(at))"
                e.response.detail = e.response.detail.map { $0 + "; " + text } ?? text
            }
            return e
        }

        func summary(_ seq: UInt64) -> ExchangeSummary { withLineFields(seq) { $0.summary() } }

        /// The facts of the exchange's ``ExchangeLine``, read in place: `body` gets inline
        /// strings as bytes of this record (valid only during the call).
        func withLineFields<R>(_ seq: UInt64, _ body: (ExchangeLine.Fields) -> R) -> R {
            read { r in
                let endpoint = r.text() ?? .string("")
                r.skipString()                       // deviceID
                let path = r.text() ?? .string("")
                switch r.varint() { case 1: _ = r.varint(); case 2: r.skipString(); default: break }
                let method = r.text() ?? .string("")
                r.skipString(); r.skipString(); r.skipString(); r.skipString()   // scheme, authority, topic, environment
                let reason = r.text()
                r.skipString()                       // detail
                let decision = r.text()
                let n = Int(r.varint())
                for _ in 0..<(2 * n) { r.skipString() }
                r.skipData()
                var status: Int? = nil
                var kind = "respond"
                if r.varint() == 1 {
                    status = Int(r.varint())
                } else if let a = action {
                    let recorded = RecordedResponse(a)
                    status = recorded.status
                    kind = recorded.action
                }
                return body(ExchangeLine.Fields(seq: seq, receivedAt: receivedAt, provider: provider.rawValue, endpoint: endpoint,
                                                method: method, path: path, status: status, action: .string(kind), reason: reason,
                                                stage: stage, decisionDetail: decision, connectionID: connection.info.id, streamID: streamID))
            }
        }
    }
}
