import PushDoubleTransport

/// The bytes a stored exchange is charged against the history's byte cap
/// (``HistoryStore/maxBytes``): one estimate, made once when the exchange is stored.
///
/// What is counted: the packed buffer (every string and body of the request and the plain
/// response, ``PackedFields``), the pooled strings the record added to the ``StringPool``,
/// a fixed cost for the record object and its ring slot, and the decoded structures it keeps
/// beside the buffer (per-recipient outcomes of a batch, an eagerly decoded notification, a
/// non-plain answer's body, the room its annotations will take). The estimates follow Swift's
/// layout on 64-bit Linux (a heap object has a 16-byte header; a `String` of more than 15
/// UTF-8 bytes has its own allocation; malloc rounds up to 16 bytes), so the sum tracks the
/// process's resident memory for the history within a small factor (measured:
/// `bench/history-memory.sh`, docs/core.md "History").
enum HistoryFootprint {
    /// The record object (`RecordBox`: ~190 bytes of fields + header), its buffer's
    /// array header, the ring slot and malloc's rounding.
    static let perRecord = 320
    /// What an annotation adds per recipient once it is written (an Expo receipt fetched
    /// later: ticket id, receipt object, fetch time, count), charged up front.
    static let perAnnotatedRecipient = 320

    /// A string's heap cost: inline up to 15 bytes, else an allocation of header + bytes.
    @inline(__always) static func string(_ s: String?) -> Int {
        guard let s else { return 0 }
        let n = s.utf8.count
        return n <= 15 ? 0 : 32 + n
    }

    /// An estimate of a decoded JSON value's heap cost (enum payload boxes, arrays, strings).
    static func json(_ v: JSONValue?) -> Int {
        guard let v else { return 0 }
        switch v {
        case .null, .bool, .int, .double: return 0
        case .string(let s): return string(s)
        case .array(let a): return 32 + a.count * 16 + a.reduce(0) { $0 + json($1) }
        case .object(let o): return 32 + o.count * 32 + o.reduce(0) { $0 + string($1.0) + json($1.1) }
        }
    }

    static func recipients(_ r: [RecipientOutcome]?, annotatable: Bool) -> Int {
        guard let r else { return 0 }
        var n = 32
        for o in r {
            n += 72 + string(o.token) + string(o.deviceID) + string(o.reason) + json(o.detail)
            if annotatable { n += perAnnotatedRecipient }
        }
        return n
    }

    /// A response kept as a value (an answer a fault rule shaped): its body and headers.
    static func action(_ a: ResponseAction?) -> Int {
        guard let a else { return 0 }
        func response(_ r: HTTPResponse) -> Int {
            64 + r.body.count + r.headers.fields.reduce(0) { $0 + 32 + string($1.name) + string($1.value) }
        }
        switch a {
        case .respond(let r), .dribble(let r, _, _), .truncate(let r, _), .stream(let r, _): return response(r)
        case .delayed(_, let then), .heldUntilGoAway(_, let then): return 32 + action(then)
        case .goAway(_, _, let debug, let then): return 64 + debug.count + action(then)
        case .resetStream, .dropConnection, .stall: return 0
        }
    }

    /// A full ``Exchange`` stored as is (``HistoryStore/append(_:)-(Exchange)``, tests and
    /// in-process callers): its bodies and strings, at the cost of a record.
    static func exchange(_ e: Exchange) -> Int {
        var n = perRecord + 1024
        n += (e.request.body?.utf8.count ?? 0) + (e.request.bodyBase64?.utf8.count ?? 0) + (e.response.body?.utf8.count ?? 0)
        for h in e.request.headers + e.response.headers { n += 32 + h.reduce(0) { $0 + string($1) } }
        n += json(e.notification) + recipients(e.recipients, annotatable: false)
        return n
    }
}
