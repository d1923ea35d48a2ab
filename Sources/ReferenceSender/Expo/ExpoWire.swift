import PushDoubleInflate
import PushDoubleClient
import PushDoubleTransport
import Synchronization

/// The `providers.expo` member of `initialize`, each field falling back to its
/// environment variable: `url` (`EXPO_URL`, then `EXPO_BASE_URL`), `accessToken`
/// (`EXPO_ACCESS_TOKEN`), `caFile` (`PUSHDOUBLE_CA_FILE`, then `SSL_CERT_FILE`).
struct ExpoConfiguration: Sendable, Equatable {
    var url: String
    var accessToken: String?
    var caFile: String?

    /// Nil when neither the params nor the environment configure Expo.
    init?(_ p: ProviderParameters) throws(DriverError) {
        guard let url = try p.string("url", "EXPO_URL", "EXPO_BASE_URL") else {
            if p.given { throw .invalidParams("providers.expo.url (or EXPO_URL) is required") }
            return nil
        }
        self.url = url
        accessToken = try p.string("accessToken", "EXPO_ACCESS_TOKEN")
        caFile = try p.caFile()
    }
}

/// The Expo push service's figures the sender keeps to (docs/expo.md §1, §6.1).
enum Expo {
    static let sendPath = "/--/api/v2/push/send"
    static let receiptsPath = "/--/api/v2/push/getReceipts"
    /// Recipients per send request (§1).
    static let maxRecipients = 100
    /// Ids per getReceipts request (§1).
    static let maxReceiptIDs = 1000
    /// Bytes of one message (the compact JSON without `to`, as the fake measures it, §1).
    static let maxMessageBytes = 4096
    /// Bodies longer than this are gzipped, as the Node SDK does (§6.1).
    static let gzipThreshold = 1024
    /// The request-level code of a request mixing projects (§1, §3.2): split it by project.
    static let mixedProjectsCode = "PUSH_TOO_MANY_EXPERIENCE_IDS"
}

/// gzip (RFC 1952) of a body with DEFLATE *stored* blocks (RFC 1951 §3.2.4): valid gzip any
/// inflater decodes, without a compressor (the project has none: PushDoubleInflate only
/// decodes). The CRC-32 is PushDoubleInflate's.
enum ExpoGzip {
    static func encode(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF]
        out.reserveCapacity(data.count + data.count / 65_535 * 5 + 23)
        var offset = 0
        repeat {
            let n = min(65_535, data.count - offset)
            let final = offset + n == data.count
            out.append(final ? 0x01 : 0x00)
            out += [UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += data[offset..<offset + n]
            offset += n
        } while offset < data.count
        let crc = CRC32.checksum(data)
        let size = UInt32(truncatingIfNeeded: data.count)
        for v in [crc, size] { for s in stride(from: 0, to: 32, by: 8) { out.append(UInt8((v >> UInt32(s)) & 0xFF)) } }
        return out
    }
}

/// One HTTP/2 connection to the push service, reopened when it breaks. Thread-safe.
final class ExpoConnection: Sendable {
    let endpoint: HTTPSEndpoint
    let caFile: String?
    private let current = Mutex<HTTPClientConnection?>(nil)

    init(endpoint: HTTPSEndpoint, caFile: String?) { self.endpoint = endpoint; self.caFile = caFile }

    /// What one POST got: a response, or a transport failure in words.
    enum Reply: Sendable {
        case response(status: Int, headers: HTTPHeaders, body: [UInt8])
        case failure(String)
    }

    func post(_ path: String, json: JSON, accessToken: String?, gzip: Bool) async -> Reply {
        let client: HTTPClientConnection
        if let c = current.withLock({ $0 }), c.isUsable {
            client = c
        } else {
            let config = HTTPClientConfiguration(caFile: caFile, alpn: ["h2"], connectTimeout: 5, requestTimeout: 10)
            do {
                client = try await HTTPClientConnection.connect(host: endpoint.host, port: endpoint.port, tls: true, configuration: config)
            } catch {
                return .failure("connect to \(endpoint.authority): \(error)")
            }
            current.withLock { $0 = client }
            Log.info("expo: connection to \(endpoint.authority) open")
        }
        var headers = HTTPHeaders()
        headers.add(name: "accept", value: "application/json")
        headers.add(name: "accept-encoding", value: "gzip, deflate")
        headers.add(name: "content-type", value: "application/json")
        headers.add(name: "user-agent", value: "\(DriverServer.name)/\(DriverServer.version)")
        if let accessToken { headers.add(name: "authorization", value: "Bearer " + accessToken) }
        var body = json.bytes
        if gzip && body.count > Expo.gzipThreshold {
            body = ExpoGzip.encode(body)
            headers.add(name: "content-encoding", value: "gzip")
        }
        do {
            let r = try await client.send(HTTPClientRequest(method: "POST", path: path, authority: endpoint.authority, headers: headers, body: body))
            return .response(status: r.status, headers: r.headers, body: r.body)
        } catch {
            return .failure("\(error)")
        }
    }

    func close() { current.withLock { $0?.close(); $0 = nil } }
}
