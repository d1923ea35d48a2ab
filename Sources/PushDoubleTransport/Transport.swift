/// PushDoubleTransport: event loops, TLS, HTTP/1.1, HTTP/2 (with HPACK from
/// PushDoubleHPACK), a router and the CONNECT proxy (the client is PushDoubleClient). Knows nothing about push providers.
public enum PushDoubleTransport {}
