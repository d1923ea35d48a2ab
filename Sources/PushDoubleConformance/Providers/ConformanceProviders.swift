import Foundation
import PushDoubleCore

/// The registered providers: the one line a new provider adds on the conformance side.
public enum ConformanceProviders {
    public static let all: [any ConformanceProvider] = [APNsConformance(), ExpoConformance(), WebPushConformance()]

    /// The provider registered under `id`, if any.
    public static func provider(_ id: ProviderID) -> (any ConformanceProvider)? { all.first { $0.provider == id } }
}
