import Foundation
import XCTest
import PushDoubleCore
import PushDoubleTransport
@testable import PushDoubleExpo

/// A connection for calling the fakes' pipelines directly (no sockets).
final class ExpoTestConnection: ConnectionControl {
    let info = ConnectionInfo(id: 1, listener: "expo", peer: "127.0.0.1:5000", localPort: 8725, tls: nil, acceptedAt: Date())
    var version: HTTPVersion = .http2
    var storage: AnyObject? = nil
    func updateSettings(maxConcurrentStreams: UInt32?) {}
    func closeGracefully(errorCode: HTTP2ErrorCode, debugData: [UInt8]) {}
}

/// One Expo fake in a double on a manual clock, its routes' pipelines, deterministic ticket ids
/// (`T1`, `T2`, …) and the Expo device schema.
final class ExpoHarness {
    let clock = ManualClock()
    let double: DoubleState
    let service: ExpoService
    let send: DoublePipeline
    let receipts: DoublePipeline
    let other: DoublePipeline
    let connection = ExpoTestConnection()
    private var stream: UInt32 = 1

    init(_ configure: (inout ExpoFakeConfiguration) -> Void = { _ in }) {
        var c = ExpoFakeConfiguration()
        configure(&c)
        double = DoubleState(clock: clock)
        let counter = Locked(0)
        service = ExpoService(configuration: c, clock: clock, idGenerator: { "T" + String(counter.withLock { $0 += 1; return $0 }) })
        other = double.pipeline(for: service.fallbackFake)
        send = double.pipeline(for: service.sendFake)
        receipts = double.pipeline(for: service.receiptsFake)
        double.devices.setSchema({ try ExpoModule().validateDevice(&$0) }, for: .expo)
    }

    func request(_ path: String, method: String = "POST", headers: [(String, String)], body: [UInt8]) -> HTTPRequest {
        let now = clock.now()
        let info = RequestInfo(connection: connection.info, streamID: stream, version: .http2, headReceivedAt: now, bodyReceivedAt: now)
        stream += 2
        return HTTPRequest(method: method, path: path, scheme: "https", authority: "exp.host", headers: HTTPHeaders(headers), body: body, info: info)
    }

    /// The plain response of `pipeline` (fails the test for anything else).
    func call(_ pipeline: DoublePipeline, _ path: String, method: String = "POST", headers: [(String, String)], body: [UInt8],
              file: StaticString = #filePath, line: UInt = #line) -> HTTPResponse {
        let action = pipeline.respond(to: request(path, method: method, headers: headers, body: body), context: RequestContext(connection: connection))
        guard case .respond(let r) = action else {
            XCTFail("expected a plain response, got \(action)", file: file, line: line)
            return HTTPResponse(status: 0)
        }
        return r
    }

    var authorization: (String, String) { ("authorization", "Bearer " + service.configuration.accessToken) }

    /// POST /--/api/v2/push/send with the access token (unless `headers` are given).
    func postSend(_ json: String, headers: [(String, String)]? = nil, file: StaticString = #filePath, line: UInt = #line) -> HTTPResponse {
        call(send, ExpoService.sendPath, headers: headers ?? [authorization, ("content-type", "application/json")], body: Array(json.utf8),
             file: file, line: line)
    }

    /// POST /--/api/v2/push/getReceipts for `ids`.
    func postReceipts(_ ids: [String], file: StaticString = #filePath, line: UInt = #line) -> HTTPResponse {
        let body = JSONValue.object([("ids", .array(ids.map { .string($0) }))]).compactJSON
        return call(receipts, ExpoService.receiptsPath, headers: [("content-type", "application/json")], body: Array(body.utf8), file: file, line: line)
    }

    func register(_ json: String) throws {
        try double.devices.register(JSONDecoder().decode(Device.self, from: Data(json.utf8)))
    }
}

extension HTTPResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: JSONValue { (try? JSONValue.parse(body)) ?? .null }
}

extension JSONValue {
    /// The `index`-th element of an array, nil otherwise.
    subscript(index: Int) -> JSONValue? {
        guard case .array(let items) = self, index >= 0, index < items.count else { return nil }
        return items[index]
    }
}
