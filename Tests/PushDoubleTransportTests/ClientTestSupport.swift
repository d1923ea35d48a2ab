#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest
import PushDoubleHPACK
import PushDoubleTestSupport
@testable import PushDoubleTransport
@testable import PushDoubleClient

/// Test fixtures for the HTTP client: a throw-away PKI made with the `openssl` CLI,
/// external servers (nghttpd, nginx, python) on free loopback ports, and scripted
/// in-process servers that play exact HTTP/2 or HTTP/1.1 byte sequences.
enum ClientTestPKI {
    struct Files {
        let dir: String
        let caPEMPath: String
        let caPEM: String
        let serverCertPath: String
        let serverKeyPath: String
        /// A second, unrelated CA: trusting only it must fail verification.
        let otherCAPEM: String
    }

    static let files: Files = make()

    @discardableResult
    static func run(_ args: [String], in dir: String) -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = args
        p.currentDirectoryURL = URL(fileURLWithPath: dir)
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return -1 }
        // Poll rather than waitUntilExit, which can hang when called off the main thread.
        let deadline = Date().addingTimeInterval(30)
        while p.isRunning && Date() < deadline { usleep(5_000) }
        return p.isRunning ? -1 : p.terminationStatus
    }

    private static func make() -> Files {
        let dir = NSTemporaryDirectory() + "pd-client-pki-\(getpid())"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for name in ["ca", "other"] {
            run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                 "-keyout", "\(name).key", "-out", "\(name).pem", "-days", "2", "-subj", "/CN=PushDouble \(name) test CA",
                 "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"], in: dir)
        }
        run(["openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
             "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"], in: dir)
        try? "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n"
            .write(toFile: dir + "/ext.cnf", atomically: true, encoding: .utf8)
        run(["openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
             "-out", "server.pem", "-days", "2", "-extfile", "ext.cnf"], in: dir)
        return Files(dir: dir, caPEMPath: dir + "/ca.pem",
                     caPEM: (try? String(contentsOfFile: dir + "/ca.pem", encoding: .utf8)) ?? "",
                     serverCertPath: dir + "/server.pem", serverKeyPath: dir + "/server.key",
                     otherCAPEM: (try? String(contentsOfFile: dir + "/other.pem", encoding: .utf8)) ?? "")
    }
}

/// A free TCP port on 127.0.0.1 (bound then released; good enough for tests).
func clientTestFreePort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = 0
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
    _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
    return Int(UInt16(bigEndian: addr.sin_port))
}

/// Whether something accepts TCP connections on 127.0.0.1:port.
func clientTestPortOpen(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = UInt16(port).bigEndian
    return withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    } == 0
}

/// An external server process on a loopback port, stopped by `stop()` (or deinit).
final class ClientTestServerProcess {
    let process = Process()
    let port: Int

    init(_ args: [String], port: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        self.port = port
        if let tool = args.first { try requireTool(tool) }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = args
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while !clientTestPortOpen(port) {
            if Date() > deadline || !process.isRunning {
                stop()
                XCTFail("\(args.first ?? "server") did not start listening on \(port)", file: file, line: line)
                throw HTTPClientError.connectFailed("test server did not start")
            }
            usleep(20_000)
        }
    }

    /// SIGKILL, not SIGTERM: a child spawned from a dispatch worker thread inherits its
    /// blocked signal mask, so nghttpd would never see SIGTERM.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(10_000) }
    }

    deinit { stop() }
}

/// Starts nghttpd serving `docroot` (TLS with the test PKI unless `tls` is false).
func startNghttpd(docroot: String, tls: Bool = true, extra: [String] = []) throws -> ClientTestServerProcess {
    let port = clientTestFreePort()
    var args = ["nghttpd", "-a", "127.0.0.1", "-d", docroot] + extra
    if tls {
        args += [String(port), ClientTestPKI.files.serverKeyPath, ClientTestPKI.files.serverCertPath]
    } else {
        args += ["--no-tls", String(port)]
    }
    return try ClientTestServerProcess(args, port: port)
}

/// A temporary directory with files for the servers to serve.
func makeClientTestDocroot(files: [String: [UInt8]]) -> String {
    let dir = NSTemporaryDirectory() + "pd-client-docroot-\(UUID().uuidString)"
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    for (name, bytes) in files {
        _ = FileManager.default.createFile(atPath: dir + "/" + name, contents: Data(bytes))
    }
    return dir
}

/// Deterministic pseudo-random bytes.
func clientTestBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var x = seed | 1
    return (0..<count).map { _ in
        x ^= x << 13; x ^= x >> 7; x ^= x << 17
        return UInt8(truncatingIfNeeded: x)
    }
}

// MARK: Scripted servers

/// A one-connection TCP server on a thread: the script gets the accepted socket and
/// plays bytes exactly as a test wants (blocking I/O with a receive timeout).
final class ScriptedServer: @unchecked Sendable {
    let port: Int
    private let listenFD: Int32
    private let done = DispatchSemaphore(value: 0)
    private let failures = ScriptFailures()

    init(script: @escaping @Sendable (ScriptedSocket) throws -> Void) {
        let listenFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listenFD = listenFD
        var one: Int32 = 1
        setsockopt(listenFD, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listenFD, $0, len) } }
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listenFD, $0, &len) } }
        listen(listenFD, 8)
        port = Int(UInt16(bigEndian: addr.sin_port))
        let fd = listenFD
        let done = self.done
        let failures = self.failures
        let thread = Thread {
            let conn = accept(fd, nil, nil)
            if conn >= 0 {
                var tv = timeval(tv_sec: 5, tv_usec: 0)
                setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                let s = ScriptedSocket(fd: conn)
                do { try script(s) } catch { failures.add("script: \(error)") }
                s.close()
            }
            done.signal()
        }
        thread.start()
    }

    /// Waits for the script to end and reports its failures to XCTest.
    func finish(file: StaticString = #filePath, line: UInt = #line) {
        if done.wait(timeout: .now() + 20) == .timedOut { XCTFail("scripted server did not finish", file: file, line: line) }
        for f in failures.all { XCTFail(f, file: file, line: line) }
        close(listenFD)
    }
}

import Synchronization

/// Failures collected on a script thread, reported on the test thread.
final class ScriptFailures: Sendable {
    private let list = Mutex<[String]>([])
    func add(_ s: String) { list.withLock { $0.append(s) } }
    var all: [String] { list.withLock { $0 } }
}

struct ScriptError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// The server end of a scripted connection, with HTTP/2 helpers.
final class ScriptedSocket: @unchecked Sendable {
    let fd: Int32
    private var closed = false
    var decoder = HTTP2FrameDecoder(expectClientPreface: true)
    var hpackDecoder = HPACKDecoder()
    var hpackEncoder = HPACKEncoder()
    let frameEncoder = HTTP2FrameEncoder(maxFrameSize: 16384)
    /// Every frame read so far (to assert e.g. that no PRIORITY was ever sent).
    var received: [HTTP2Frame] = []
    var rawIn: [UInt8] = []

    init(fd: Int32) { self.fd = fd }

    func close() {
        if !closed { closed = true; Glibc.close(fd) }
    }

    func write(_ bytes: [UInt8]) {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            off += n
        }
    }

    func write(_ frame: HTTP2Frame) { write(frameEncoder.encode(frame)) }

    /// Reads raw bytes (nil at EOF or timeout).
    func readSome() -> [UInt8]? {
        var buf = [UInt8](repeating: 0, count: 65536)
        let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return n > 0 ? Array(buf[0..<n]) : nil
    }

    /// The next HTTP/2 frame from the client (throws at EOF/timeout).
    func readFrame() throws -> HTTP2Frame {
        while true {
            if let f = try decoder.nextFrame() {
                received.append(f)
                return f
            }
            guard let bytes = readSome() else { throw ScriptError("EOF or timeout waiting for a frame") }
            decoder.append(contentsOf: bytes)
        }
    }

    /// Reads frames until one matches; others are handled (SETTINGS acked, etc.) or kept.
    func readFrame(where match: (HTTP2Frame) -> Bool) throws -> HTTP2Frame {
        while true {
            let f = try readFrame()
            if match(f) { return f }
        }
    }

    /// Reads the next HEADERS frame and decodes its (single-frame) header block.
    func readRequestHeaders() throws -> (streamID: UInt32, fields: [HeaderField], endStream: Bool) {
        let f = try readFrame { if case .headers = $0.payload { return true } else { return false } }
        guard case .headers(let h) = f.payload else { throw ScriptError("not HEADERS") }
        return (f.streamID, try hpackDecoder.decode(h.fragment), f.endStream)
    }

    /// Server preface: SETTINGS, then reads the client's preface SETTINGS and ACKs it.
    func handshake(settings: [HTTP2Setting] = []) throws {
        write(.settings(settings))
        let s = try readFrame { if case .settings = $0.payload, !$0.isAck { return true } else { return false } }
        _ = s
        write(HTTP2Frame.settingsAck)
    }

    func respond(streamID: UInt32, status: Int = 200, headers: [(String, String)] = [], body: [UInt8] = []) {
        var block: [UInt8] = []
        hpackEncoder.encode([(":status", String(status))] + headers, into: &block)
        write(.headers(streamID: streamID, fragment: block, endStream: body.isEmpty))
        if !body.isEmpty { write(.data(streamID: streamID, body, endStream: true)) }
    }

    /// Every frame that arrives within `seconds` (then the 5 s timeout is restored).
    func frames(for seconds: Double) -> [HTTP2Frame] {
        var got: [HTTP2Frame] = []
        let end = Date().addingTimeInterval(seconds)
        while true {
            let left = end.timeIntervalSinceNow
            if left <= 0 { break }
            var tv = timeval(tv_sec: Int(left), tv_usec: Int((left - Double(Int(left))) * 1e6) + 1)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            guard let f = try? readFrame() else { break }
            got.append(f)
        }
        var tv = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        return got
    }

    /// Reads until the client closes the connection; returns the frames seen meanwhile.
    func readUntilEOF() -> [HTTP2Frame] {
        var got: [HTTP2Frame] = []
        while let f = try? readFrame() { got.append(f) }
        return got
    }

    private var h1Buffer: [UInt8] = []

    /// Reads one HTTP/1.1 request (head + Content-Length body).
    func readHTTP1Request() throws -> (head: String, body: [UInt8]) {
        func headEnd() -> Int? {
            guard h1Buffer.count >= 4 else { return nil }
            for i in 0...(h1Buffer.count - 4) where h1Buffer[i] == 13 && h1Buffer[i + 1] == 10 && h1Buffer[i + 2] == 13 && h1Buffer[i + 3] == 10 {
                return i
            }
            return nil
        }
        while headEnd() == nil {
            guard let more = readSome() else { throw ScriptError("EOF before a request head") }
            h1Buffer += more
        }
        let end = headEnd()!
        let head = String(decoding: h1Buffer[0..<end], as: UTF8.self)
        h1Buffer.removeFirst(end + 4)
        var length = 0
        for line in head.components(separatedBy: "\r\n") where line.lowercased().hasPrefix("content-length:") {
            length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        while h1Buffer.count < length {
            guard let more = readSome() else { throw ScriptError("EOF inside a request body") }
            h1Buffer += more
        }
        let body = Array(h1Buffer[0..<length])
        h1Buffer.removeFirst(length)
        return (head, body)
    }

    func write(_ text: String) { write(Array(text.utf8)) }

    var sawPriority: Bool {
        received.contains { if case .priority = $0.payload { return true }; return $0.headersPriority != nil }
    }
}

extension HTTP2Frame {
    var headersPriority: HTTP2PriorityData? {
        if case .headers(let h) = payload { return h.priority }
        return nil
    }
}

/// Runs `body` and returns its typed error, failing if it succeeds.
func expectClientError<T>(_ body: () async throws(HTTPClientError) -> T, file: StaticString = #filePath,
                          line: UInt = #line) async -> HTTPClientError? {
    do {
        let v = try await body()
        XCTFail("expected an HTTPClientError, got \(v)", file: file, line: line)
        return nil
    } catch {
        return error
    }
}
