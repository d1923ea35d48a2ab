import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `pushdouble probe [--port N] [--timeout SECONDS]`: a container health check that needs no
/// shell or curl in the image: `GET /health` from the admin API on loopback over plain HTTP/1.1;
/// exit 0 on a 200 answer, 1 otherwise (refused, timed out, another status), 2 usage error.
enum ProbeCommand: ConsoleCommand {
    static let name = "probe"
    static let summary = "Health check of a running serve: GET /health on the loopback admin port (for a container's HEALTHCHECK)."

    static var options: [OptionSpec] { [
        OptionSpec("--port", value: "N", help: "admin port (default 8720)"),
        OptionSpec("--timeout", value: "SECONDS", help: "give up after SECONDS (default 2)"),
        OptionSpec.help,
    ] }

    static var help: CommandHelp {
        CommandHelp(usage: "pushdouble probe [--port N] [--timeout SECONDS]",
                    summary: "Asks a running pushdouble serve for GET /health on 127.0.0.1 and exits 0 when it answers 200.",
                    options: options, footer: "exit status: 0 healthy, 1 not (refused, timed out, other status), 2 usage error")
    }

    static func run(parsed: ParsedOptions, out: Console, err: Console) -> Int32 {
        let port: Int, timeout: Double
        do {
            port = try parsed.number("--port", expected: "a port number", { Int($0).flatMap { (1...65535).contains($0) ? $0 : nil } }) ?? 8720
            timeout = try parsed.number("--timeout", expected: "a positive number of seconds", { Double($0).flatMap { $0 > 0 ? $0 : nil } }) ?? 2
        } catch {
            err.write(CLIError.message(error, command: name))
            return CLIError.exitStatus
        }
        switch statusLine(port: port, timeout: timeout) {
        case .success(let line) where line.hasPrefix("HTTP/1.1 200") || line.hasPrefix("HTTP/1.0 200"):
            out.line("healthy: \(line)")
            return 0
        case .success(let line):
            err.line("pushdouble probe: 127.0.0.1:\(port) answered \(line)")
            return 1
        case .failure(let problem):
            err.line("pushdouble probe: 127.0.0.1:\(port): \(problem.message)")
            return 1
        }
    }

    struct Problem: Error { let message: String }

    /// The status line of `GET /health` on 127.0.0.1:`port`.
    static func statusLine(port: Int, timeout: Double) -> Result<String, Problem> {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return .failure(Problem(message: "socket: errno \(errno)")) }
        defer { close(fd) }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = UInt16(port).bigEndian
        a.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let rc = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard rc == 0 else { return .failure(Problem(message: "cannot connect (\(String(cString: strerror(errno))))")) }
        let request = Array("GET /health HTTP/1.1\r\nhost: 127.0.0.1:\(port)\r\nconnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
            return .failure(Problem(message: "cannot send the request"))
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while !received.contains(0x0a), received.count < 4096 {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            received += buffer[0..<n]
        }
        guard let end = received.firstIndex(of: 0x0a) else { return .failure(Problem(message: "no answer within \(timeout) s")) }
        return .success(String(decoding: received[..<end], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
