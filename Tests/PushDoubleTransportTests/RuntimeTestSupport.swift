import Foundation
import XCTest
import PushDoubleTestSupport
import Synchronization
@testable import PushDoubleTransport
#if canImport(Glibc)
import Glibc
#endif

/// A responder built from a closure, recording completions.
final class ClosureResponder: Responder {
    let body: @Sendable (HTTPRequest, RequestContext) -> ResponseAction
    let completions = Locked<[(RequestInfo, ResponseOutcome)]>([])
    let requests = Locked<[HTTPRequest]>([])
    init(_ body: @escaping @Sendable (HTTPRequest, RequestContext) -> ResponseAction) { self.body = body }
    func respond(to request: HTTPRequest, context: RequestContext) -> ResponseAction {
        requests.withLock { $0.append(request) }
        return body(request, context)
    }
    func responseCompleted(for request: RequestInfo, outcome: ResponseOutcome) {
        completions.withLock { $0.append((request, outcome)) }
    }
    var recorded: [HTTPRequest] { requests.withLock { $0 } }
}

/// Echo: 200 with "method path body-length" plus the body.
func echoResponder() -> ClosureResponder {
    ClosureResponder { req, _ in
        .respond(HTTPResponse(status: 200, contentType: "text/plain", body: "\(req.method) \(req.path) \(req.body.count)\n" + String(decoding: req.body, as: UTF8.self)))
    }
}

/// A blocking TCP client for raw-protocol tests.
final class RawClient {
    let fd: Int32
    init(port: Int, host: String = "127.0.0.1") throws {
        fd = socket(AF_INET, 1 /* SOCK_STREAM */, 0)
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, host, &a.sin_addr)
        let rc = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        if rc != 0 { Glibc.close(fd); throw PosixError(call: "connect", errno: errno) }
        var tv = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }
    deinit { Glibc.close(fd) }

    func send(_ s: String) { send(Array(s.utf8)) }
    @discardableResult
    func send(_ b: [UInt8]) -> Bool {
        b.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == b.count
    }

    /// Reads until the peer closes, `until` appears, or the timeout.
    func read(until marker: String? = nil, timeout: Double = 5) -> String {
        var data = [UInt8]()
        let deadline = Date().addingTimeInterval(timeout)
        var buf = [UInt8](repeating: 0, count: 65536)
        while Date() < deadline {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let pr = poll(&pfd, 1, 100)
            if pr <= 0 { continue }
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            data.append(contentsOf: buf[0..<n])
            if let m = marker, String(decoding: data, as: UTF8.self).contains(m) { break }
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// True when the peer has closed (EOF or reset) within the timeout.
    func waitClosed(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var buf = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, 50) <= 0 { continue }
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return true }
        }
        return false
    }
}

/// A self-signed certificate for "localhost" made with the openssl CLI in a temp dir.
struct TestCertificate {
    let dir: URL
    let certPEM: String
    let keyPEM: String
    var certPath: String { dir.appendingPathComponent("cert.pem").path }

    static func make() throws -> TestCertificate {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pd-runtime-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let r = try runCommand(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                         "-keyout", dir.appendingPathComponent("key.pem").path, "-out", dir.appendingPathComponent("cert.pem").path,
                         "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,DNS:api.push.test,IP:127.0.0.1"])
        guard r.status == 0 else { throw NSError(domain: "openssl", code: Int(r.status), userInfo: [NSLocalizedDescriptionKey: r.stderr]) }
        return TestCertificate(dir: dir,
                               certPEM: try String(contentsOf: dir.appendingPathComponent("cert.pem"), encoding: .utf8),
                               keyPEM: try String(contentsOf: dir.appendingPathComponent("key.pem"), encoding: .utf8))
    }
}

/// Starts a server with one listener; stops it at the end of the test.
func startServer(_ test: XCTestCase, loops: Int = 2, configure: (inout ListenerConfiguration) -> Void = { _ in },
                 responder: any Responder) throws -> (HTTPServer, Int) {
    let server = HTTPServer(eventLoopCount: loops)
    var cfg = ListenerConfiguration(name: "test", port: 0, responder: responder)
    configure(&cfg)
    let bound = try server.start([cfg])
    test.addTeardownBlock { server.stop(timeout: 0.5) }
    return (server, bound[0].port)
}
