import PushDoubleTransport
/// The HTTP/1.1 side of a client connection: one request at a time, the rest queued
/// FIFO, keep-alive unless the server says close.
///
/// A plain value driven under the connection's lock: requests and bytes in, bytes to
/// write and completions out. No I/O.
struct HTTP1ClientSession {
    private var queue = ClientFIFO<ClientPendingRequest>()
    private var current: ClientPendingRequest?
    private var parser = HTTP1ResponseParser()
    private var requestCount: UInt32 = 0
    /// False once the server asked to close or the connection broke.
    private(set) var usable = true
    /// True when the connection should be closed now (after a `Connection: close`
    /// response, a parse error or a timeout of the request in flight).
    private(set) var wantsClose = false

    var isIdle: Bool { current == nil && queue.isEmpty }

    mutating func enqueue(_ p: ClientPendingRequest, out: inout [UInt8], completions: inout [ClientCompletion]) {
        guard usable else {
            completions.append(.response(p.waiter, .failure(.connectionClosed("connection is closing (Connection: close)"))))
            return
        }
        queue.append(p)
        startNext(out: &out)
    }

    private mutating func startNext(out: inout [UInt8]) {
        guard current == nil, usable, let next = queue.popFirst() else { return }
        current = next
        requestCount += 1
        parser.requestWasHEAD = next.request.method == "HEAD"
        Self.serialize(next.request, into: &out)
    }

    static func serialize(_ r: HTTPClientRequest, into out: inout [UInt8]) {
        var head = "\(r.method) \(r.path) HTTP/1.1\r\n"
        if !r.headers.contains(name: "host") { head += "Host: \(r.authority)\r\n" }
        for f in r.headers { head += "\(f.name): \(f.value)\r\n" }
        if !r.headers.contains(name: "content-length") && !r.headers.contains(name: "transfer-encoding")
            && (!r.body.isEmpty || r.method == "POST" || r.method == "PUT") {
            head += "Content-Length: \(r.body.count)\r\n"
        }
        head += "\r\n"
        out.append(contentsOf: head.utf8)
        out.append(contentsOf: r.body)
    }

    mutating func receive(_ bytes: UnsafeRawBufferPointer, out: inout [UInt8], completions: inout [ClientCompletion]) {
        guard current != nil else {
            // Bytes with no request outstanding: the server is confused; stop using it.
            if bytes.count > 0 {
                usable = false
                wantsClose = true
            }
            return
        }
        parser.append(bytes)
        while let cur = current {
            let result: HTTP1ResponseParser.Result
            do {
                result = try parser.next()
            } catch {
                fail(error: error, completions: &completions)
                return
            }
            guard case let .complete(status, headers, body, keepAlive) = result else { return }
            let response = HTTPClientResponse(status: status, headers: headers, body: body, streamID: requestCount,
                                              frames: [], version: .http1_1)
            completions.append(.response(cur.waiter, .success(response)))
            current = nil
            if !keepAlive {
                usable = false
                wantsClose = true
                for p in queue.drain() {
                    completions.append(.response(p.waiter, .failure(.connectionClosed("server closed the connection before this request was sent"))))
                }
                return
            }
            startNext(out: &out)
        }
    }

    /// The server closed the connection (or it broke).
    mutating func connectionLost(_ reason: String, completions: inout [ClientCompletion]) {
        usable = false
        if let cur = current {
            if let done = parser.finishAtEOF() {
                let response = HTTPClientResponse(status: done.status, headers: done.headers, body: done.body,
                                                  streamID: requestCount, frames: [], version: .http1_1)
                completions.append(.response(cur.waiter, .success(response)))
            } else {
                completions.append(.response(cur.waiter, .failure(.connectionClosed(reason))))
            }
            current = nil
        }
        for p in queue.drain() {
            completions.append(.response(p.waiter, .failure(.connectionClosed("\(reason) (request not sent)"))))
        }
    }

    private mutating func fail(error: HTTPClientError, completions: inout [ClientCompletion]) {
        if let cur = current { completions.append(.response(cur.waiter, .failure(error))) }
        current = nil
        usable = false
        wantsClose = true
        for p in queue.drain() {
            completions.append(.response(p.waiter, .failure(.connectionClosed("connection failed before this request was sent: \(error)"))))
        }
    }

    /// Fails requests past their deadline; returns the earliest remaining deadline.
    mutating func checkTimeouts(now: Double, completions: inout [ClientCompletion]) -> Double? {
        if let cur = current, cur.deadline <= now {
            // The response may still arrive; the connection cannot be reused safely.
            fail(error: .timeout, completions: &completions)
            return nil
        }
        // The FIFO is in deadline order (one timeout per connection).
        while let q = queue.first, q.deadline <= now {
            _ = queue.popFirst()
            completions.append(.response(q.waiter, .failure(.timeout)))
        }
        var next = current?.deadline
        if let q = queue.first { next = min(next ?? q.deadline, q.deadline) }
        return next
    }

    /// The client closes the connection.
    mutating func close(completions: inout [ClientCompletion]) {
        connectionLost("closed by the client", completions: &completions)
        wantsClose = true
    }
}
