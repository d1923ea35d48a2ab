import Foundation
import PushDoubleCore

/// Why a driver call did not produce a usable reply. Each case becomes a failing verdict
/// of the case with this text and the sender's stderr.
public enum DriverFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// No reply within the deadline.
    case noReply(method: String, seconds: Double)
    /// The sender exited (or closed stdout) before replying.
    case crashed(method: String, status: String?)
    /// The sender wrote something on stdout that is not a JSON-RPC message.
    case garbage(method: String, line: String)
    /// The sender answered with a JSON-RPC error object.
    case rpcError(method: String, code: Int64, message: String)
    /// The reply's result does not have the shape the protocol requires.
    case badResult(method: String, problem: String)
    /// The sender stopped reading its stdin.
    case notReading(method: String)

    public var description: String {
        switch self {
        case let .noReply(m, s): return "no reply to \(m) within \(Self.format(s)) s"
        case let .crashed(m, st): return "sender exited before replying to \(m) (\(st ?? "stdout closed"))"
        case let .garbage(m, l): return "sender wrote a line that is not a JSON-RPC message while answering \(m): \(Self.excerpt(l))"
        case let .rpcError(m, c, msg): return "sender answered \(m) with error \(c): \(msg)"
        case let .badResult(m, p): return "malformed \(m) result: \(p)"
        case let .notReading(m): return "sender does not read its stdin (while sending \(m))"
        }
    }

    static func format(_ s: Double) -> String { s == s.rounded() ? String(Int(s)) : String(format: "%.1f", s) }
    static func excerpt(_ s: String) -> String {
        let t = s.count > 200 ? String(s.prefix(200)) + "…" : s
        return "\"" + t.replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

/// A JSON-RPC 2.0 client over a ``SenderProcess``: one request at a time, one deadline per reply.
///
/// Lines without an `id` (notifications from the sender) and blank lines are ignored;
/// replies to earlier ids (after a deadline passed) are skipped.
public final class DriverClient: @unchecked Sendable {
    public let process: SenderProcess
    /// Seconds allowed for each reply.
    public var timeout: Double
    private var nextID: Int64 = 1
    private let encoder: JSONEncoder = {
        let e = JSONEncoder(); e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]; return e
    }()

    public init(process: SenderProcess, timeout: Double) {
        self.process = process; self.timeout = timeout
    }

    /// Sends one request and waits for its result.
    public func call(_ method: String, params: JSONValue?) -> Result<JSONValue, DriverFailure> {
        let id = nextID
        nextID += 1
        var members: [(String, JSONValue)] = [("jsonrpc", .string("2.0")), ("id", .int(id)), ("method", .string(method))]
        if let p = params { members.append(("params", p)) }
        let line: String
        do { line = String(decoding: try encoder.encode(JSONValue.object(members)), as: UTF8.self) }
        catch { return .failure(.badResult(method: method, problem: "cannot encode request: \(error)")) }
        let deadline = Date().addingTimeInterval(timeout)
        if !process.writeLine(line, deadline: deadline) {
            // A dead sender: report its exit rather than the write error.
            if case .closed(let st) = process.nextLine(deadline: Date().addingTimeInterval(0.5)) {
                return .failure(.crashed(method: method, status: st))
            }
            return .failure(.notReading(method: method))
        }
        while true {
            switch process.nextLine(deadline: deadline) {
            case .timeout: return .failure(.noReply(method: method, seconds: timeout))
            case .closed(let st): return .failure(.crashed(method: method, status: st))
            case .overlong(let prefix): return .failure(.garbage(method: method, line: prefix))
            case .line(let text):
                if text.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
                guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)),
                      case .object = value else {
                    return .failure(.garbage(method: method, line: text))
                }
                guard let rid = value["id"], rid != .null else { continue } // a notification
                guard rid.intValue == id, case .int = rid else {
                    if case .int(let r) = rid, r < id { continue } // late reply to an earlier call
                    return .failure(.badResult(method: method, problem: "reply id \(rid.compactJSON) does not match the request id \(id)"))
                }
                if let err = value["error"], err != .null {
                    return .failure(.rpcError(method: method, code: err["code"]?.intValue ?? 0,
                                              message: err["message"]?.stringValue ?? "(no message)"))
                }
                guard let result = value["result"] else {
                    return .failure(.badResult(method: method, problem: "reply has neither result nor error"))
                }
                return .success(result)
            }
        }
    }

    /// `initialize`: returns the sender's identity.
    public func initialize(_ config: SenderConfiguration) -> Result<SenderIdentity, DriverFailure> {
        call(DriverProtocol.initialize, params: config.initializeParams).flatMap { r in
            guard let name = r["name"]?.stringValue else {
                return .failure(.badResult(method: DriverProtocol.initialize, problem: "missing \"name\""))
            }
            guard let providers = r["providers"]?.arrayValue else {
                return .failure(.badResult(method: DriverProtocol.initialize, problem: "missing \"providers\" array"))
            }
            let version = r["version"]?.stringValue ?? r["version"]?.compactJSON ?? ""
            var targets: [String]?
            if let t = r["targets"], !t.isNull {
                guard let list = t.arrayValue else {
                    return .failure(.badResult(method: DriverProtocol.initialize, problem: "\"targets\" must be an array of strings"))
                }
                targets = list.compactMap(\.stringValue)
            }
            var features: [String]?
            if let f = r["features"], !f.isNull {
                guard let list = f.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                    return .failure(.badResult(method: DriverProtocol.initialize, problem: "\"features\" must be an array of strings"))
                }
                features = list.compactMap(\.stringValue)
            }
            var fields: [String: [String]]?
            if let f = r["fields"], !f.isNull {
                switch NotificationField.declaration(f) {
                case .success(let d): fields = d
                case .failure(let e): return .failure(.badResult(method: DriverProtocol.initialize, problem: e.problem))
                }
            }
            var coarse: [String]?
            if let o = r["outcomes"], !o.isNull {
                switch SenderIdentity.coarseOutcomes(o, providers: providers.compactMap(\.stringValue)) {
                case .success(let c): coarse = c
                case .failure(let e): return .failure(.badResult(method: DriverProtocol.initialize, problem: e.problem))
                }
            }
            return .success(SenderIdentity(name: name, version: version, providers: providers.compactMap(\.stringValue), targets: targets,
                                           features: features, fields: fields, coarseOutcomes: coarse))
        }
    }

    /// `send` or `settle`: returns the per-device results.
    public func results(_ method: String, params: JSONValue?) -> Result<[DeviceResult], DriverFailure> {
        call(method, params: params).flatMap { Self.decodeResults(method, $0) }
    }

    static func decodeResults(_ method: String, _ r: JSONValue) -> Result<[DeviceResult], DriverFailure> {
        guard let list = r["results"]?.arrayValue else {
            return .failure(.badResult(method: method, problem: "missing \"results\" array"))
        }
        var out: [DeviceResult] = []
        for (i, item) in list.enumerated() {
            guard let device = item["device"]?.stringValue else {
                return .failure(.badResult(method: method, problem: "results[\(i)] has no \"device\""))
            }
            guard let o = item["outcome"]?.stringValue, let outcome = DeliveryOutcome(rawValue: o) else {
                let got = item["outcome"]?.compactJSON ?? "nothing"
                return .failure(.badResult(method: method, problem: "results[\(i)].outcome must be one of "
                    + DeliveryOutcome.allCases.map(\.rawValue).joined(separator: "|") + ", got \(got)"))
            }
            out.append(DeviceResult(device: device, outcome: outcome, reason: item["reason"]?.stringValue,
                                    providerMessageId: item["providerMessageId"]?.stringValue))
        }
        return .success(out)
    }

    /// `shutdown`, then waits for the exit; kills the sender if it lingers.
    public func shutdown(grace: Double = 2) -> DriverFailure? {
        let saved = timeout
        timeout = min(timeout, 5)
        defer { timeout = saved }
        let r = call(DriverProtocol.shutdown, params: nil)
        process.terminate(grace: grace)
        if case .failure(let f) = r, case .crashed = f { return nil } // exiting without a reply is fine
        if case .failure(let f) = r { return f }
        return nil
    }
}
