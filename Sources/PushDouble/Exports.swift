// `import PushDouble` is all a test needs: the server and its configuration (this module),
// devices, faults, history and scenarios (PushDoubleCore), each provider's fake, test
// credentials and typed history views (PushDoubleAPNs, PushDoubleFCM, PushDoubleExpo,
// PushDoubleWebPush), keys and JWTs (PushDoubleCrypto), JSON values (PushDoubleJSON) and the
// transport facts a history entry carries (PushDoubleTransport). docs/swift.md.
@_exported import PushDoubleCore
@_exported import PushDoubleAPNs
@_exported import PushDoubleFCM
@_exported import PushDoubleExpo
@_exported import PushDoubleWebPush
@_exported import PushDoubleCrypto
@_exported import PushDoubleJSON
@_exported import PushDoubleTransport
