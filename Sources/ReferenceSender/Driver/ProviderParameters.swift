/// One provider's member of `initialize.params.providers`, read with the environment as the
/// fallback: a field given as a non-empty string wins, else the first non-empty variable
/// named. The one place that knows how a provider's settings are looked up.
struct ProviderParameters {
    /// The provider id, for error messages (`providers.apns.url must be a string`).
    let provider: String
    /// Nil when `initialize` has no member for the provider.
    let params: JSONObject?
    let environment: [String: String]

    /// Whether `initialize` named the provider at all (then missing required fields are errors).
    var given: Bool { params != nil }

    /// `key` from the params, else the first of `variables` set in the environment.
    func string(_ key: String, _ variables: String...) throws(DriverError) -> String? { try string(key, variables) }

    private func string(_ key: String, _ variables: [String]) throws(DriverError) -> String? {
        if let v = params?[key], !v.isNull {
            guard let s = v.stringValue else { throw .invalidParams("providers.\(provider).\(key) must be a string") }
            if !s.isEmpty { return s }
        }
        for name in variables { if let s = environment[name], !s.isEmpty { return s } }
        return nil
    }

    /// A field the provider cannot work without.
    func required(_ key: String, _ variable: String) throws(DriverError) -> String {
        if let s = try string(key, variable) { return s }
        let fallback = " (or \(variable))"
        throw .invalidParams("providers.\(provider).\(key)\(fallback) is required")
    }

    /// The test CA every provider's TLS client trusts: `caFile`, else `PUSHDOUBLE_CA_FILE`,
    /// else `SSL_CERT_FILE`.
    func caFile() throws(DriverError) -> String? { try string("caFile", "PUSHDOUBLE_CA_FILE", "SSL_CERT_FILE") }
}
