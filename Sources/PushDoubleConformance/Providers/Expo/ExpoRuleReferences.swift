/// Where Expo states the generic rules (``ConformanceProvider/ruleReferences``): *Send
/// notifications with the Expo Push Service*, https://docs.expo.dev/push-notifications/sending-notifications/.
extension ExpoConformance {
    public var ruleReferences: [String: String] {
        Self.citations(permanent: nil, dead: "Expo, Send notifications (DeviceNotRegistered: stop sending to the token); expo.md \"Tickets\"",
                       retry: "Expo, Send notifications (429 TOO_MANY_REQUESTS at 600 notifications/s; MessageRateExceeded: back off exponentially); expo.md \"Request-level errors\"")
    }
}
