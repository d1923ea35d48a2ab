import Foundation
import PushDoubleCore

/// `apns.goaway-unprocessed`: after a GOAWAY only the streams above last-stream-id are
/// resent, on a new connection (A5; RFC 9113 §6.8). HTTP/2-specific: stays with APNs
/// until another provider needs it.
enum GoAwayCheck {
    /// The last-stream-id of a GOAWAY record: `last=5`, or the core's symbolic forms
    /// `last=before-this-stream`, `last=this-stream`, `last=highest-seen`.
    static func goAwayLastStream(_ ga: APNsPush, onConnection: [APNsPush]) -> UInt32 {
        let fallback = ga.accepted ? ga.stream : ga.stream &- 1
        guard let d = ga.exchange.response.detail, let r = d.range(of: "last=") else { return fallback }
        let value = d[r.upperBound...].prefix { !$0.isWhitespace && $0 != "," && $0 != ";" }
        switch value {
        case "before-this-stream": return ga.stream &- 1
        case "this-stream": return ga.stream
        case "highest-seen": return onConnection.filter { $0.start <= ga.start }.map(\.stream).max() ?? ga.stream
        default: return UInt32(value) ?? fallback
        }
    }

    static let check = CheckDefinition(
        id: "apns.goaway-unprocessed", title: "After GOAWAY: reconnect and resend only unprocessed streams",
        reference: "A5; RFC 9113 §6.8", severity: .must
    ) { ctx in
        let h = APNsHistory(ctx)
        let goaways = h.pushes.filter { $0.action == "goaway" }
        if goaways.isEmpty { return .notApplicable("the fake sent no GOAWAY") }
        var problems: [Evidence] = []
        for ga in goaways {
            let sameConn = h.pushes.filter { $0.connection == ga.connection }
            let last = goAwayLastStream(ga, onConnection: sameConn)
            // (a) no new stream above last-stream-id opened after the GOAWAY was sent
            for p in sameConn where p.stream > last && p.start > ga.end.addingTimeInterval(0.05) {
                problems.append(Evidence("new stream \(p.stream) opened on connection \(ga.connection) after GOAWAY last=\(last): \(h.describe(p))",
                                         seqs: [ga.seq, p.seq]))
            }
            // (b) processed (accepted) streams of that connection are not sent again in the same step
            for p in sameConn where p.accepted && p.stream <= last {
                if let again = h.pushes.first(where: { $0.step == p.step && $0.device == p.device && $0.start > p.start && $0.connection != p.connection }) {
                    problems.append(Evidence("\(p.device) was processed before the GOAWAY (stream \(p.stream) ≤ \(last)) but resent: \(h.describe(again))",
                                             seqs: [p.seq, again.seq]))
                }
            }
            // (c) unprocessed streams are retried on another connection
            for p in sameConn where !p.accepted && (p.stream > last || p.seq == ga.seq) && !p.neverRetry && !p.requestError {
                let retried = h.pushes.contains { $0.step == p.step && $0.device == p.device && $0.connection != ga.connection && $0.start > p.start }
                if !retried {
                    problems.append(Evidence("\(p.device) on stream \(p.stream) was not processed (GOAWAY last=\(last)) and never resent on a new connection",
                                             seqs: [ga.seq, p.seq]))
                }
            }
        }
        return .judged(problems, held: "\(goaways.count) GOAWAY(s) handled: only unprocessed streams resent",
            violated: "GOAWAY mishandled")
    }
}
