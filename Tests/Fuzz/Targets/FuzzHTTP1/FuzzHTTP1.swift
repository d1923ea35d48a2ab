import FuzzSupport
@testable import PushDoubleTransport

/// HTTP/1.1 request parser (RFC 9112) fed one connection's bytes, driven the way
/// `HTTP1ServerConnection` drives it (unconsumed bytes are kept and offered again with
/// the next read; `takeEnd()` before each parse).
///
/// Input: an option byte (head and body limits), a read-size byte (0: one read; n: reads
/// of n bytes), then the raw byte stream.
/// Invariants: the requests parsed (heads, whole bodies, trailers) and the error that
/// ends the connection do not depend on how the stream was split into reads; a body is
/// never longer than its Content-Length or the body limit; the parser always makes
/// progress or asks for more bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP1(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let options = input.byte()
    let readSize = Int(input.byte())
    let stream = input.rest()
    let maxHeadSize = options & 1 != 0 ? 64 : 8192
    let maxBodySize = options & 2 != 0 ? 16 : 1 << 20

    var whole = Connection(maxHeadSize: maxHeadSize, maxBodySize: maxBodySize)
    whole.receive(stream)
    var split = Connection(maxHeadSize: maxHeadSize, maxBodySize: maxBodySize)
    let step = readSize == 0 ? max(stream.count, 1) : readSize
    var offset = 0
    while offset < stream.count {
        let n = min(step, stream.count - offset)
        split.receive(UnsafeRawBufferPointer(rebasing: stream[offset..<(offset + n)]))
        offset += n
    }
    fuzzCheck(whole.events == split.events, "reads of \(readSize) bytes changed the result:\n\(whole.events)\nvs\n\(split.events)")
    for case .request(let head, let body, _) in whole.events {
        fuzzCheck(body.count <= maxBodySize, "body of \(body.count) bytes over the limit \(maxBodySize)")
        if !head.chunked, let cl = head.contentLength { fuzzCheck(body.count == cl, "body of \(body.count) bytes, Content-Length \(cl)") }
        if !head.hasBody { fuzzCheck(body.isEmpty, "body on a request without one") }
    }
    return 0
}

/// What the parser produced for one connection: complete requests, then maybe the error.
private enum ConnectionEvent: Equatable {
    case request(HTTP1RequestHead, body: [UInt8], trailers: HTTPHeaders)
    case failure(HTTP1ParseError)
}

/// The server connection's input loop without the I/O.
private struct Connection {
    var parser: HTTP1RequestParser
    var stash: [UInt8] = []
    var current: (head: HTTP1RequestHead, body: [UInt8])?
    var events: [ConnectionEvent] = []
    var failed = false

    init(maxHeadSize: Int, maxBodySize: Int) {
        parser = HTTP1RequestParser(maxHeadSize: maxHeadSize, maxBodySize: maxBodySize)
    }

    mutating func receive(_ bytes: UnsafeRawBufferPointer) {
        guard !failed else { return }
        stash += bytes
        let buffered = stash
        let used = buffered.withUnsafeBytes { process($0) }
        stash.removeFirst(min(used, stash.count))
    }

    private mutating func process(_ buf: UnsafeRawBufferPointer) -> Int {
        var offset = 0
        while offset < buf.count || parser.pendingEnd {
            let result: (consumed: Int, event: HTTP1RequestParser.Event?)
            if parser.takeEnd() {
                result = (0, .end(trailers: HTTPHeaders()))
            } else {
                do {
                    result = try parser.parse(UnsafeRawBufferPointer(rebasing: buf[offset...]))
                } catch {
                    events.append(.failure(error))
                    failed = true
                    return buf.count
                }
            }
            fuzzCheck(result.consumed <= buf.count - offset, "consumed \(result.consumed) of \(buf.count - offset) bytes")
            if result.consumed == 0 && result.event == nil { return offset }
            offset += result.consumed
            guard let event = result.event else { continue }
            switch event {
            case .head(let head):
                fuzzCheck(current == nil, "a head inside a request")
                current = (head, [])
                if !head.hasBody { finish(trailers: HTTPHeaders()) }
            case .body(let chunk):
                fuzzCheck(current != nil, "a body outside a request")
                current?.body += chunk
            case .end(let trailers):
                finish(trailers: trailers)
            }
        }
        return offset
    }

    private mutating func finish(trailers: HTTPHeaders) {
        guard let cur = current else { fuzzCheck(false, "an end outside a request"); return }
        current = nil
        events.append(.request(cur.head, body: cur.body, trailers: trailers))
    }
}
