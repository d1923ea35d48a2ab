import PushDoubleCore

/// What the runner told the sender about APNs (`initialize.params.providers.apns`, rendered by
/// the APNs module): the ids APNs checks compare a sender's JWT and topics with.
struct APNsSenderParameters: Sendable, Equatable {
    var topic: String?
    var keyId: String?
    var teamId: String?
}

extension SenderConfiguration {
    /// The APNs params of this configuration, if APNs was offered.
    var apns: APNsSenderParameters? {
        guard let p = parameters(of: ProviderID.apns.rawValue) else { return nil }
        return APNsSenderParameters(topic: p["topic"]?.stringValue, keyId: p["keyId"]?.stringValue, teamId: p["teamId"]?.stringValue)
    }
}
