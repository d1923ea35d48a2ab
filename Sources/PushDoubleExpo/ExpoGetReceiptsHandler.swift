import PushDoubleJSON

/// The logic of `POST /--/api/v2/push/getReceipts` (docs/expo.md §4): `{"ids":[…]}` (plain or gzip,
/// like send: the Node SDK gzips bodies over 1024 characters, §6.1), at most 1000 ids (§1) →
/// HTTP 200 `{"data":{id: receipt, …}}`, unknown, expired and not yet visible ids left out.
public struct ExpoGetReceiptsHandler: Sendable {
    public let store: ExpoReceiptStore
    /// Ids per request (docs/expo.md §1 [A]: 1000).
    public var maxIDs: Int
    public var body: ExpoBodyLimits
    public var statuses: ExpoErrorStatuses

    public init(store: ExpoReceiptStore, maxIDs: Int = 1000, body: ExpoBodyLimits = .init(), statuses: ExpoErrorStatuses = .init()) {
        self.store = store; self.maxIDs = maxIDs; self.body = body; self.statuses = statuses
    }

    /// The ids of a request body, in order.
    ///
    /// Refusals (`API_ERROR`; texts ours, in the Joi style of §3.2): not an object →
    /// `"value" must be of type object.`; no `ids` → `child "ids" fails because ["ids" is required].`;
    /// not an array → `… ["ids" must be an array].`; a non-string item → `child "ids" fails because
    /// ["ids" at position <i> fails because ["<i>" must be a string]].` More than ``maxIDs`` →
    /// `PUSH_TOO_MANY_RECEIPTS`.
    public func ids(body bytes: [UInt8], contentEncoding: String? = nil) throws(ExpoRequestError) -> [String] {
        let root = try ExpoRequestBody.json(bytes, contentEncoding: contentEncoding, limits: body, statuses: statuses)
        guard case .object(let members) = root else {
            throw .apiError(.receiptsBodyShape, "\"value\" must be of type object.", statuses: statuses)
        }
        guard let value = members["ids"], !value.isNull else { throw problem(["ids"], .required) }
        guard case .array(let items) = value else { throw problem(["ids"], .wrongType(expected: "an array")) }
        var ids: [String] = []
        ids.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            guard case .string(let s) = item else { throw problem(["ids", String(i)], .wrongType(expected: "a string")) }
            ids.append(s)
        }
        guard ids.count <= maxIDs else { throw .tooManyReceipts(received: ids.count, limit: maxIDs, statuses: statuses) }
        return ids
    }

    /// The HTTP 200 body for a request body at `now`.
    public func respond(body bytes: [UInt8], contentEncoding: String? = nil, now: Double) throws(ExpoRequestError) -> [UInt8] {
        Self.body(store.receipts(for: try ids(body: bytes, contentEncoding: contentEncoding), now: now))
    }

    /// `{"data":{id: receipt, …}}` in the given order (docs/expo.md §4; the Node SDK requires an object).
    public static func body(_ receipts: [(id: String, receipt: ExpoReceipt)]) -> [UInt8] {
        JSONValue.object([("data", .object(receipts.map { ($0.id, $0.receipt.json) }))]).compactJSONBytes
    }

    func problem(_ path: [String], _ kind: ExpoFieldProblem.Kind) -> ExpoRequestError {
        .apiError(.receiptsBodyShape, ExpoFieldProblem.joiInner(path: path, kind: kind) + ".", statuses: statuses)
    }
}
