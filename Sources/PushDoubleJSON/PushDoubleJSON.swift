/// PushDoubleJSON: the one JSON value type, parser and compact writer every module shares
/// (JOSE headers and claims, provider payloads, scenario files, the driver protocol).
public enum PushDoubleJSON {}
