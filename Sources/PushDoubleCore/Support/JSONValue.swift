// `JSONValue` (value, parser, writer) lives in PushDoubleJSON, the one JSON
// implementation of the project; Core re-exports it so its users keep seeing it.
@_exported import PushDoubleJSON
