import PushDoubleClient
import PushDoubleTransport
import Synchronization

/// Opens HTTP/2 connections with PushDoubleTransport's HTTP/2 client (TLS, ALPN `h2`, the test CA).
struct HTTP2PushConnector: PushConnector {
    var caFile: String?
    /// A client certificate (PEM, with its key) presented when the server asks (APNs certificate auth).
    var clientCertificatePEM: String?
    /// Numbers connections for logs.
    private let counter = ConnectionCounter()

    init(caFile: String?, clientCertificatePEM: String? = nil) { self.caFile = caFile; self.clientCertificatePEM = clientCertificatePEM }

    func connect(to endpoint: HTTPSEndpoint) async -> Result<any PushConnection, TransportFailure> {
        // h2 only (APNs has no HTTP/1.1; the others are reached over h2 too). Timeouts stay well inside the runner's 60 s
        // reply deadline even with retries.
        var config = HTTPClientConfiguration(caFile: caFile, alpn: ["h2"], connectTimeout: 5, requestTimeout: 10)
        config.clientCertificatePEM = clientCertificatePEM
        do {
            let c = try await HTTPClientConnection.connect(host: endpoint.host, port: endpoint.port, tls: true, configuration: config)
            let id = counter.next()
            Log.info("connection \(id) to \(endpoint.authority) open (peer MAX_CONCURRENT_STREAMS \(c.peerMaxConcurrentStreams))")
            return .success(HTTP2PushConnection(id: id, client: c))
        } catch {
            return .failure(.connectFailed("connect to \(endpoint.authority): \(error)"))
        }
    }
}

/// Hands out connection numbers. Thread-safe.
final class ConnectionCounter: Sendable {
    private let value = Mutex(0)
    func next() -> Int { value.withLock { $0 += 1; return $0 } }
}

/// One provider connection over `HTTPClientConnection`; maps client errors onto what the
/// retry logic needs to know: processed or not (RFC 9113 §8.7).
final class HTTP2PushConnection: PushConnection {
    let connectionID: Int
    let client: HTTPClientConnection
    private let goAway = Mutex(false)
    private let inFlight = Mutex(0)

    init(id: Int, client: HTTPClientConnection) {
        self.connectionID = id
        self.client = client
    }

    var isUsable: Bool { !receivedGoAway && client.isUsable }
    var receivedGoAway: Bool { goAway.withLock { $0 } }
    var hasSendsInFlight: Bool { inFlight.withLock { $0 > 0 } }

    func send(_ request: WireRequest) async -> AttemptResult {
        inFlight.withLock { $0 += 1 }
        defer { inFlight.withLock { $0 -= 1 } }
        var headers = HTTPHeaders()
        for h in request.headers { headers.add(name: h.name, value: h.value) }
        let req = HTTPClientRequest(method: request.method, path: request.path, authority: request.authority, scheme: "https",
                                    headers: headers, body: request.body)
        do {
            let r = try await client.send(req)
            return .response(WireResponse(status: r.status, headers: r.headers.fields.map { ($0.name, $0.value) }, body: r.body,
                                          afterGoAway: r.afterGoAway))
        } catch {
            switch error {
            case .goAway(let last, let code, let debug):
                goAway.withLock { $0 = true }
                // APNs refuses a certificate for the other environment with a GOAWAY whose
                // debug data is its error body: answered like the 403 of that reason.
                if let refusal = Self.credentialRefusal(debug) { return .response(refusal) }
                return .failure(.notProcessed("GOAWAY last-stream-id \(last) \(code)"))
            case .streamReset(let code) where code == .refusedStream:
                return .failure(.notProcessed("RST_STREAM REFUSED_STREAM"))
            case .streamReset(let code):
                return .failure(.outcomeUnknown("RST_STREAM \(code)"))
            case .connectionClosed:
                return .failure(.outcomeUnknown("connection closed"))
            case .timeout:
                return .failure(.outcomeUnknown("timeout"))
            case .connectFailed(let m), .tls(let m):
                return .failure(.connectFailed(m))
            case .protocolError(let m):
                return .failure(.outcomeUnknown("protocol error: \(m)"))
            }
        }
    }

    func close() async { client.close() }

    /// GOAWAY debug data `{"reason":"BadCertificate…"}`: the connection's credential was refused.
    static func credentialRefusal(_ debug: [UInt8]) -> WireResponse? {
        guard let json = try? JSON.parse(debug), let reason = json["reason"]?.stringValue, reason.hasPrefix("BadCertificate") else { return nil }
        return WireResponse(status: 403, headers: [("content-type", "application/json")], body: debug)
    }
}
