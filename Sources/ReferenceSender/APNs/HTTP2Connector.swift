/// Connects to APNs with PushDoubleTransport's HTTP/2 client.
struct HTTP2APNsConnector: APNsConnector {
    var caFile: String?
    func connect(to endpoint: APNsEndpoint) async -> Result<any APNsConnection, TransportFailure> {
        .failure(.connectFailed("HTTP/2 client not available yet"))
    }
}
