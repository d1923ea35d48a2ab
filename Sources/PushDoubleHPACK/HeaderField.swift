/// One decoded or to-be-encoded header field: a name, a value and the never-index flag.
///
/// `neverIndex` mirrors HPACK's "literal header field never indexed" (RFC 7541 §6.2.3):
/// on decode it tells that the peer marked the field sensitive; on encode it makes the
/// encoder (and any intermediary re-encoding it) keep the value out of every table.
public struct HeaderField: Sendable, Equatable {
    public var name: String
    public var value: String
    public var neverIndex: Bool

    public init(name: String, value: String, neverIndex: Bool = false) {
        self.name = name
        self.value = value
        self.neverIndex = neverIndex
    }
}
