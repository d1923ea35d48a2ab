import Foundation

/// curl with `-s -w '\n%{http_code}'`: returns (status code, body, curl exit status).
public struct Curl {
    public var code: Int
    public var body: String
    public var exit: Int32
    public var stderr: String
    public var headers: String
    public var seconds: Double

    public static func call(_ method: String, _ url: String, body: String? = nil, headers: [String] = [], extra: [String] = [],
                     timeout: Double = 10) throws -> Curl {
        let headerFile = FileManager.default.temporaryDirectory.appendingPathComponent("pd-curl-h-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: headerFile) }
        var args = ["curl", "-sS", "-X", method, "-D", headerFile, "-w", "\n%{http_code}", "--max-time", String(timeout)]
        for h in headers { args += ["-H", h] }
        if let b = body { args += ["--data-binary", b, "-H", "content-type: application/json"] }
        args += extra
        args.append(url)
        let r = try runCommand(args, timeout: timeout + 5)
        var lines = r.stdout.components(separatedBy: "\n")
        let code = Int(lines.popLast() ?? "") ?? 0
        let h = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
        return Curl(code: code, body: lines.joined(separator: "\n"), exit: r.status, stderr: r.stderr, headers: h, seconds: r.seconds)
    }

    public func header(_ name: String) -> String? {
        for line in headers.components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].lowercased() == name.lowercased() {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    public var json: Any? { try? JSONSerialization.jsonObject(with: Data(body.utf8)) }
}
