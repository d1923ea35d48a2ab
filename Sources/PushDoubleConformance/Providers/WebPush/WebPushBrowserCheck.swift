import Foundation
import PushDoubleCore

/// `webpush.browser-decrypted`: a message accepted for a subscription a real Firefox made
/// reached that browser and decrypted there: Firefox acknowledged it as delivered (ack code
/// 100, not 101 "decryption error") and its service worker read the text. The browser's
/// decryption is Firefox's own, so an encryption bug of the sender that the fake's decryption
/// would share cannot pass (docs/webpush.md "Browsers over the autopush WebSocket protocol",
/// docs/conformance.md "A real browser as the device"). n/a without such messages.
extension WebPushChecks {
    static let browserDecrypted = CheckDefinition(
        id: "webpush.browser-decrypted",
        title: "Every message accepted for a real browser's subscription reaches it and decrypts there: Firefox acks it as delivered (code 100) and its service worker reads the text",
        reference: "webpush.md §9.1 (ack codes 100/101), RFC 8291 §3–§4 (the user agent decrypts)",
        severity: .must
    ) { ctx in
        perRequest(ctx, filter: { accepted($0) && $0.exchange.annotations?["browser"] != nil },
                   none: "no accepted message for a real browser's subscription",
                   summary: "decrypted by the real browser's service worker",
                   violation: "a message the service accepted did not decrypt in the real browser") { r in
            browserProblem(r.exchange.annotations ?? .null, bodyBytes: r.exchange.request.bodySize)
        }
    }

    /// Why a relayed message did not reach the service worker decrypted (nil: it did), from the
    /// relay's `browser` record and the service worker's `serviceWorker` read.
    static func browserProblem(_ notes: JSONValue, bodyBytes: Int) -> String? {
        let relay = notes["browser"] ?? .null
        let delivery = relay["delivery"]?.stringValue ?? "unknown"
        let code = relay["code"]?.intValue
        switch (delivery, code) {
        case ("acked", 100): break
        case ("acked", 101): return "Firefox could not decrypt it (ack code 101, decryption error)"
        case ("acked", let c): return "Firefox acked it with code \(c.map(String.init) ?? "none") (100 = delivered)"
        case ("nacked", let c): return "the service worker failed on it (nack code \(c.map(String.init) ?? "none"))"
        default: return "not acknowledged by the browser (delivery \(delivery)\(relay["reason"]?.stringValue.map { ": " + $0 } ?? ""))"
        }
        guard let read = notes["serviceWorker"] else { return "acked, but the service worker reported no push event" }
        if bodyBytes > 0, read["text"]?.stringValue == nil { return "the service worker read no data from a message with a body" }
        return nil
    }
}
