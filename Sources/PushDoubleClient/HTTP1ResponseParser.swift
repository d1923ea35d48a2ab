import Foundation
import PushDoubleTransport

/// Incremental HTTP/1.1 response parser for the client (RFC 9112): status line, header
/// fields, then a body delimited by Content-Length, chunked coding or connection close.
///
/// Bytes in, one response out at a time. 1xx interim responses are skipped. Limits: head
/// ≤ 64 KiB, chunk-size line ≤ 1 KiB; violations are protocol errors.
struct HTTP1ResponseParser {
    struct Head {
        var status: Int
        var headers: HTTPHeaders
        var http10: Bool
    }

    enum Result {
        case needMore
        case complete(status: Int, headers: HTTPHeaders, body: [UInt8], keepAlive: Bool)
    }

    private enum State {
        case head
        case fixed(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case untilClose
    }

    static let maxHeadSize = 64 * 1024

    private var buffer: [UInt8] = []
    private var state: State = .head
    private var head: Head?
    private var body: [UInt8] = []
    /// Set by the connection before each response: HEAD responses have no body.
    var requestWasHEAD = false

    /// Whether a response is being read (bytes at EOF then mean "truncated" unless the
    /// body runs until close).
    var inResponse: Bool { head != nil || !buffer.isEmpty }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes.bindMemory(to: UInt8.self))
    }

    /// The connection reached EOF: completes a body delimited by close.
    mutating func finishAtEOF() -> (status: Int, headers: HTTPHeaders, body: [UInt8])? {
        if case .untilClose = state, let h = head {
            body.append(contentsOf: buffer)
            buffer.removeAll()
            let result = (h.status, h.headers, body)
            reset()
            return result
        }
        return nil
    }

    private mutating func reset() {
        state = .head
        head = nil
        body = []
    }

    /// Parses what is buffered; call again after `.complete` for pipelined data.
    mutating func next() throws(HTTPClientError) -> Result {
        while true {
            switch state {
            case .head:
                guard let end = findHeadEnd() else {
                    if buffer.count > Self.maxHeadSize { throw .protocolError("response head exceeds \(Self.maxHeadSize) bytes") }
                    return .needMore
                }
                let h = try Self.parseHead(buffer[0..<end])
                buffer.removeFirst(end + 4)
                if h.status >= 100 && h.status < 200 { continue }  // interim response
                head = h
                body = []
                let te = h.headers.values(name: "transfer-encoding").joined(separator: ",").lowercased()
                if requestWasHEAD || h.status == 204 || h.status == 304 {
                    state = .fixed(remaining: 0)
                } else if te.contains("chunked") {
                    state = .chunkSize
                } else if let cl = h.headers.first(name: "content-length") {
                    guard let n = Int(cl.trimmingCharacters(in: .whitespaces)), n >= 0 else {
                        throw .protocolError("invalid Content-Length '\(cl)'")
                    }
                    state = .fixed(remaining: n)
                    body.reserveCapacity(min(n, 1 << 24))
                } else {
                    state = .untilClose
                }
            case .fixed(let remaining):
                let left = takeBody(remaining)
                if left > 0 {
                    state = .fixed(remaining: left)
                    return .needMore
                }
                return complete()
            case .chunkSize:
                guard let lineEnd = findCRLF(from: 0) else {
                    if buffer.count > 1024 { throw .protocolError("chunk size line too long") }
                    return .needMore
                }
                let line = String(decoding: buffer[0..<lineEnd], as: UTF8.self)
                buffer.removeFirst(lineEnd + 2)
                let sizeText = line.split(separator: ";", maxSplits: 1).first.map(String.init)?
                    .trimmingCharacters(in: .whitespaces) ?? ""
                guard let size = Int(sizeText, radix: 16), size >= 0, size < 1 << 40 else {
                    throw .protocolError("invalid chunk size '\(line)'")
                }
                state = size == 0 ? .trailers : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let left = takeBody(remaining)
                if left > 0 {
                    state = .chunkData(remaining: left)
                    return .needMore
                }
                state = .chunkDataEnd
            case .chunkDataEnd:
                guard buffer.count >= 2 else { return .needMore }
                guard buffer[0] == 13 && buffer[1] == 10 else { throw .protocolError("missing CRLF after chunk data") }
                buffer.removeFirst(2)
                state = .chunkSize
            case .trailers:
                guard let lineEnd = findCRLF(from: 0) else {
                    if buffer.count > Self.maxHeadSize { throw .protocolError("trailer section too large") }
                    return .needMore
                }
                if lineEnd == 0 {
                    buffer.removeFirst(2)
                    return complete()
                }
                let line = String(decoding: buffer[0..<lineEnd], as: UTF8.self)
                buffer.removeFirst(lineEnd + 2)
                if let colon = line.firstIndex(of: ":") {
                    head?.headers.add(name: String(line[..<colon]),
                                      value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
                }
            case .untilClose:
                body.append(contentsOf: buffer)
                buffer.removeAll(keepingCapacity: true)
                return .needMore
            }
        }
    }

    /// Moves up to `remaining` buffered bytes into the body; returns how many are still missing.
    private mutating func takeBody(_ remaining: Int) -> Int {
        let n = min(remaining, buffer.count)
        body.append(contentsOf: buffer[0..<n])
        buffer.removeFirst(n)
        return remaining - n
    }

    private mutating func complete() -> Result {
        let h = head!
        let connection = h.headers.values(name: "connection").joined(separator: ",").lowercased()
        let keepAlive = h.http10 ? connection.contains("keep-alive") : !connection.contains("close")
        let result = Result.complete(status: h.status, headers: h.headers, body: body, keepAlive: keepAlive)
        reset()
        return result
    }

    private func findHeadEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for i in 0...(buffer.count - 4)
        where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
            return i
        }
        return nil
    }

    private func findCRLF(from start: Int) -> Int? {
        guard buffer.count >= start + 2 else { return nil }
        for i in start..<(buffer.count - 1) where buffer[i] == 13 && buffer[i + 1] == 10 { return i }
        return nil
    }

    static func parseHead(_ bytes: ArraySlice<UInt8>) throws(HTTPClientError) -> Head {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        guard !lines.isEmpty else { throw .protocolError("empty response head") }
        let statusLine = lines.removeFirst()
        // status-line = HTTP-version SP status-code SP [ reason-phrase ]
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]), (100...999).contains(status) else {
            throw .protocolError("invalid status line '\(statusLine.prefix(80))'")
        }
        var headers = HTTPHeaders()
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw .protocolError("invalid header line '\(line.prefix(80))'") }
            headers.add(name: String(line[..<colon]),
                        value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return Head(status: status, headers: headers, http10: parts[0] == "HTTP/1.0")
    }
}
