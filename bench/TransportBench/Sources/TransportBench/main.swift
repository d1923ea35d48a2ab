// Minimal server for bench/transport.sh:
//   TransportBench <cert.pem> <key.pem> <tlsPort> <cleartextPort> [loops] [reusePort|roundRobin]
// TLS listener (ALPN h2, http/1.1) and a cleartext listener (HTTP/1.1 + h2c), both
// answering every request with an empty 200 (a single HEADERS frame on HTTP/2).
import Foundation
import PushDoubleTransport

struct Minimal: Responder {
    func respond(to request: HTTPRequest, context: RequestContext) -> ResponseAction {
        .respond(HTTPResponse(status: 200, headers: ["apns-id": "bench"], framing: .headersOnly))
    }
}

let args = CommandLine.arguments
guard args.count >= 5, let tlsPort = Int(args[3]), let plainPort = Int(args[4]) else {
    FileHandle.standardError.write(Data("usage: TransportBench cert.pem key.pem tlsPort cleartextPort [loops]\n".utf8))
    exit(2)
}
let cert = try String(contentsOfFile: args[1], encoding: .utf8)
let key = try String(contentsOfFile: args[2], encoding: .utf8)
let loops = args.count > 5 ? Int(args[5]) : nil
let strategy: AcceptStrategy = args.count > 6 && args[6] == "roundRobin" ? .roundRobin : .reusePort
let server = HTTPServer(eventLoopCount: loops, acceptStrategy: strategy)
var limits = ServerLimits()
limits.maxConnections = 10_000
let bound = try server.start([
    ListenerConfiguration(name: "tls", port: tlsPort,
                          tls: TLSServerConfiguration(certificateChainPEM: cert, privateKeyPEM: key, alpn: ["h2", "http/1.1"]),
                          limits: limits, responder: Minimal()),
    ListenerConfiguration(name: "plain", port: plainPort, limits: limits, responder: Minimal()),
])
print("listening", bound.map { "\($0.name)=\($0.port)" }.joined(separator: " "))
fflush(nil)
while true { sleep(3600) }
