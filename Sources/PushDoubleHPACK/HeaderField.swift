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

/// Where ``HPACKDecoder/decode(_:into:)-([UInt8],_)`` puts each decoded field, in block order:
/// an HTTP/2 request head builds itself from them without a field list in between.
public protocol HPACKFieldSink {
    mutating func field(name: consuming String, value: consuming String, neverIndex: Bool)
}

/// The plain list (``HPACKDecoder/decode(_:)-([UInt8])``).
extension Array: HPACKFieldSink where Element == HeaderField {
    public mutating func field(name: consuming String, value: consuming String, neverIndex: Bool) {
        append(HeaderField(name: name, value: value, neverIndex: neverIndex))
    }
}
