import PushDoubleCore

/// How a double's fake listeners are reached (``PushDoubleConfiguration/security``).
public enum FakeSecurity: Sendable, Equatable {
    /// Each listener as its provider declares it: TLS with the test certificate, the
    /// provider's ALPN offer and HTTP versions (APNs: `h2` only). What the conformance
    /// runner and `serve` use.
    case tls
    /// Every fake listener in cleartext, HTTP/1.1 and HTTP/2 with prior knowledge (h2c) side
    /// by side, whatever its provider declares: for in-process tests whose HTTP client cannot
    /// trust the test CA. The fakes answer as over TLS; the history marks each such exchange
    /// (``Exchange/plaintext``). Not tested this way: TLS, ALPN, certificate trust, and (for
    /// APNs, which is HTTP/2 only) the refusal of HTTP/1.1. docs/swift.md "Plaintext mode".
    case plaintext

    /// `spec` as this mode serves it.
    func listener(_ spec: FakeListenerSpec) -> FakeListenerSpec {
        switch self {
        case .tls: return spec
        case .plaintext:
            var s = spec
            s.useTLS = false
            s.allowHTTP1 = true
            s.allowHTTP2 = true
            return s
        }
    }
}
