import Foundation
import PushDoubleCore

/// The Expo part of a case's history, read once: every send with its recipients (token,
/// message, ticket) and every getReceipts with the ids it asked for (docs/expo.md
/// §2–§4; the fake's history shapes in docs/expo.md "The fake").
struct ExpoHistory {
    static let provider: ProviderID = "expo"

    /// One recipient of one send request, in ticket order.
    struct Recipient {
        var token: String
        /// The message object it was sent in (with `to` as sent).
        var message: JSONValue
        /// The fake's verdict (nil when the request was refused or answered by a fault rule).
        var outcome: RecipientOutcome?
        var ticketID: String? { outcome?.detail?["id"]?.stringValue }
    }

    struct Send {
        var exchange: Exchange
        var recipients: [Recipient]
        /// Receipts the sender fetched for this send's tickets: ticket id → receipt.
        var served: [String: JSONValue]
    }

    var sends: [Send] = []
    /// getReceipts requests in order with the ids each asked for.
    var fetches: [(exchange: Exchange, ids: [String])] = []

    init(_ history: [Exchange]) {
        for e in history where e.provider == Self.provider {
            switch e.endpoint {
            case "expo.send": sends.append(Send(exchange: e, recipients: Self.recipients(e), served: Self.served(e)))
            case "expo.getReceipts": fetches.append((e, e.notification?["ids"]?.arrayValue?.compactMap(\.stringValue) ?? []))
            default: break
            }
        }
    }

    /// The recipients of a send: `to` of each message, in order, paired with the recorded outcomes.
    static func recipients(_ e: Exchange) -> [Recipient] {
        let messages: [JSONValue]
        switch e.notification {
        case .array(let items)?: messages = items
        case let one?: messages = [one]
        case nil: messages = []
        }
        var out: [Recipient] = []
        for m in messages {
            switch m["to"] {
            case .string(let t)?: out.append(Recipient(token: t, message: m))
            case .array(let items)?: for t in items { if let s = t.stringValue { out.append(Recipient(token: s, message: m)) } }
            default: break
            }
        }
        if let rs = e.recipients, rs.count == out.count {
            for i in out.indices { out[i].outcome = rs[i] }
        } else if e.response.status == 200, let body = e.response.body, let tickets = Self.tickets((try? JSONValue.parse(body))?["data"]),
                  tickets.count == out.count {
            // A fault rule's answer (tickets rendered without the fake's delivery): read them from the body.
            for i in out.indices {
                let t = tickets[i]
                out[i].outcome = RecipientOutcome(token: out[i].token, accepted: t["status"]?.stringValue == "ok",
                                                  reason: t["details"]?["error"]?.stringValue, detail: t)
            }
        }
        if out.isEmpty, let t = e.token { out = [Recipient(token: t, message: .null)] }
        return out
    }

    /// `data` of a send's answer as tickets: the array, or the one ticket object a
    /// single-message body gets (docs/expo.md §3.1).
    static func tickets(_ data: JSONValue?) -> [JSONValue]? {
        switch data {
        case .array(let items)?: return items
        case .object?: return data.map { [$0] }
        default: return nil
        }
    }

    /// The tokens of a send, each once, order ignored: what makes two requests the same request.
    static func tokenSet(_ s: Send) -> Set<String> { Set(s.recipients.map(\.token)) }

    static func served(_ e: Exchange) -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        for (id, v) in e.annotations?["receipts"]?.objectValue ?? [] { if let r = v["receipt"] { out[id] = r } }
        return out
    }

    /// Every ticket id the fake issued in the case.
    var issuedTicketIDs: Set<String> { Set(sends.flatMap { $0.recipients.compactMap(\.ticketID) }) }

    /// The message a recipient was sent, without `to`: what must not change between identical retries.
    static func comparable(_ message: JSONValue) -> String {
        guard case .object(let members) = message else { return message.compactJSON }
        return JSONValue.object(members.filter { $0.0 != "to" }).compactJSON
    }

    /// The compact JSON size of a message without `to` (the fake's 4096-byte measure, docs/expo.md).
    static func payloadBytes(_ message: JSONValue) -> Int { comparable(message).utf8.count }
}
