/// Devices per provider and their scheduled state transitions (open or closed world).
/// Thread-safe. (API filled in by the core work; this declaration fixes the name.)
public final class DeviceRegistry: Sendable {
    public init() {}
}
