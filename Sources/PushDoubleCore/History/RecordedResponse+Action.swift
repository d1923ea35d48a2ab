import PushDoubleTransport

/// Rendering of response actions for the history (additive; the contract type is unchanged).
extension RecordedResponse {
    /// What the history records for an action.
    public init(_ action: ResponseAction) {
        self = RecordedResponse.recorded(action)
    }

    static func recorded(_ action: ResponseAction) -> RecordedResponse {
        func fromResponse(_ kind: String, _ r: HTTPResponse) -> RecordedResponse {
            RecordedResponse(action: kind, status: r.status, headers: r.headers.fields.map { [$0.name, $0.value] },
                             body: r.body.isEmpty ? nil : String(decoding: r.body, as: UTF8.self))
        }
        switch action {
        case .respond(let r): return fromResponse("respond", r)
        case .delayed(let s, let then):
            var inner = recorded(then)
            let innerKind = inner.action
            inner.action = "delayed"
            inner.delaySeconds = s + (inner.delaySeconds ?? 0)
            inner.detail = "then " + innerKind + (inner.detail.map { " (" + $0 + ")" } ?? "")
            return inner
        case .heldUntilGoAway(let s, let then):
            var inner = recorded(then)
            inner.detail = "held until a GOAWAY (at most \(s) s)" + (inner.detail.map { "; " + $0 } ?? "")
            return inner
        case .resetStream(let code): return RecordedResponse(action: "reset", status: nil, detail: "RST_STREAM \(code.name)")
        case .goAway(let last, let code, let debug, let then):
            var out = then.map { recorded($0) } ?? RecordedResponse(action: "goaway", status: nil)
            let lastText: String
            switch last {
            case .beforeThisStream: lastText = "before-this-stream"
            case .thisStream: lastText = "this-stream"
            case .highestSeen: lastText = "highest-seen"
            case .explicit(let n): lastText = String(n)
            }
            var d = "GOAWAY last=\(lastText) \(code.name)"
            if !debug.isEmpty { d += " debug=" + String(decoding: debug, as: UTF8.self) }
            if then != nil { d += "; then " + out.action + (out.detail.map { " (" + $0 + ")" } ?? "") }
            out.action = "goaway"
            out.detail = d
            return out
        case .dropConnection: return RecordedResponse(action: "drop", status: nil, detail: "connection dropped")
        case .stall: return RecordedResponse(action: "stall", status: nil, detail: "never answered")
        case .dribble(let r, let size, let interval):
            var out = fromResponse("dribble", r)
            out.detail = "body in \(size)-byte pieces every \(interval) s"
            return out
        case .truncate(let r, let n):
            var out = fromResponse("truncate", r)
            out.detail = "connection dropped after \(n) body bytes"
            return out
        case .stream(let r, _): return fromResponse("stream", r)
        }
    }
}
