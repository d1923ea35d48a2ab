import PushDoubleJSON

/// A typed view of the history entries of one provider endpoint (an APNs push, an FCM send, …),
/// read from the entry's raw `notification` JSON and answer, which stay available. Each provider
/// declares its own in its module (docs/swift.md "History").
public protocol ExchangeView: Sendable {
    /// The provider and endpoint id (``Exchange/endpoint``) of the entries this view reads.
    static var provider: ProviderID { get }
    static var endpoint: String { get }
    /// The history entry itself (transport, request, response, decision, raw JSON).
    var exchange: Exchange { get }
    /// The view of `exchange`, which is one of ``provider``'s ``endpoint`` entries.
    init(viewing exchange: Exchange)
}

extension ExchangeView {
    /// The view of `exchange`, nil when it is not one of this view's entries.
    public init?(_ exchange: Exchange) {
        guard exchange.provider == Self.provider, exchange.endpoint == Self.endpoint else { return nil }
        self.init(viewing: exchange)
    }

    /// The entry's `notification` as recorded.
    public var raw: JSONValue? { exchange.notification }
    /// The answer's status (nil when a fault dropped the request).
    public var status: Int? { exchange.response.status }
}

extension HistoryStore {
    /// Every entry of `view`'s provider endpoint, oldest first, as that view.
    public func entries<V: ExchangeView>(_ view: V.Type) -> [V] {
        query(HistoryQuery(provider: V.provider, endpoint: V.endpoint)).map(V.init(viewing:))
    }
}
