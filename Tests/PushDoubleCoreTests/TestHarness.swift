import Foundation
import XCTest
import PushDoubleCore
import PushDoubleTransport

/// A connection for calling a Responder directly (no sockets).
final class TestConnection: ConnectionControl {
    let info: ConnectionInfo
    var version: HTTPVersion = .http2
    var storage: AnyObject? = nil
    var settingsUpdates: [UInt32?] = []
    var closedWith: (HTTP2ErrorCode, [UInt8])? = nil
    init(id: UInt64 = 1) {
        info = ConnectionInfo(id: id, listener: "test", peer: "127.0.0.1:5000", localPort: 8721, tls: nil, acceptedAt: Date())
    }
    func updateSettings(maxConcurrentStreams: UInt32?) { settingsUpdates.append(maxConcurrentStreams) }
    func closeGracefully(errorCode: HTTP2ErrorCode, debugData: [UInt8]) { closedWith = (errorCode, debugData) }
}

/// Builds requests and drives a responder in-process.
final class Harness {
    let connection = TestConnection()
    var stream: UInt32 = 1

    func request(_ path: String, method: String = "POST", headers: [(String, String)] = [("authorization", "ok")],
                 body: String = "") -> HTTPRequest {
        let now = Date()
        let info = RequestInfo(connection: connection.info, streamID: stream, version: .http2, headReceivedAt: now, bodyReceivedAt: now)
        stream += 2
        return HTTPRequest(method: method, path: path, scheme: "https", authority: "localhost", headers: HTTPHeaders(headers),
                           body: Array(body.utf8), info: info)
    }

    func send(_ responder: any Responder, _ path: String, method: String = "POST",
              headers: [(String, String)] = [("authorization", "ok")], body: String = "") -> ResponseAction {
        responder.respond(to: request(path, method: method, headers: headers, body: body), context: RequestContext(connection: connection))
    }
}

extension ResponseAction {
    /// The status of a plain response, nil otherwise.
    var status: Int? { if case .respond(let r) = self { return r.status }; return nil }
    var response: HTTPResponse? { if case .respond(let r) = self { return r }; return nil }
    var bodyText: String? { response.map { String(decoding: $0.body, as: UTF8.self) } }
}

func XCTAssertStatus(_ action: ResponseAction, _ status: Int, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(action.status, status, "action was \(action)", file: file, line: line)
}
