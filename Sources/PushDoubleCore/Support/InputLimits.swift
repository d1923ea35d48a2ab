import Foundation
import PushDoubleTransport

/// The ranges every number of a scenario file or an admin API body must lie in: one table,
/// used by the decoders (errors name the field and the range), documented in docs/core.md
/// ("Ranges") and mirrored as `minimum`/`maximum` in Scenarios/scenario.schema.json.
///
/// The bounds are what the double can represent without trapping (Int arithmetic, Date
/// rendering) and what the wire allows, with room for any realistic test.
public enum InputLimits {
    /// Counts that start at 1: `times`, `nth`, `everyNth`, quota `limit` and `burst`,
    /// `afterDeliveries`, `chunkSize`.
    public static let count: ClosedRange<Int> = 1...2_147_483_647
    /// Counts that may be 0: `deliveries`, `bodyBytes`.
    public static let countFromZero: ClosedRange<Int> = 0...2_147_483_647
    /// Seconds a rule waits: `delay.seconds`, `dribble.interval` (at most an hour).
    public static let waitSeconds: ClosedRange<Double> = 0...3600
    /// Seconds since a rule or device was loaded: `from`, `until`, `afterSeconds` (a year).
    public static let elapsedSeconds: ClosedRange<Double> = 0...31_536_000
    /// Length of a fixed quota window: a millisecond to a year.
    public static let windowSeconds: ClosedRange<Double> = 0.001...31_536_000
    /// Token-bucket refill rate in tokens per second (so a `Retry-After` is at most 10^6 s).
    public static let tokenRate: ClosedRange<Double> = 0.000_001...1_000_000
    /// `Retry-After` delta-seconds (RFC 9110 §10.2.3; the cap is RFC 9111 §1.2.2's 2^31).
    public static let retryAfterSeconds: ClosedRange<Int> = 0...2_147_483_647
    /// `retryAfter.dateIn`: offset of the HTTP-date from the answer, about ±31 years.
    public static let retryAfterDateIn: ClosedRange<Int> = -1_000_000_000...1_000_000_000
    /// Status of an answer a rule sends: a final status (RFC 9110 §15: 1xx are interim
    /// responses and cannot end an exchange).
    public static let finalStatus: ClosedRange<Int> = 200...599
    /// Statuses that cannot carry content (RFC 9110 §15.3.5 204, §15.4.5 304).
    public static let statusesWithoutContent: Set<Int> = [204, 304]
    /// HTTP/2 stream identifiers are 31 bits (RFC 9113 §5.1.1).
    public static let streamID: ClosedRange<UInt32> = 0...0x7fff_ffff
    /// GOAWAY debug data: the frame payload (4-byte last-stream-id, 4-byte error code,
    /// debug data; RFC 9113 §6.8) must fit the peer's SETTINGS_MAX_FRAME_SIZE, whose
    /// initial value is 16,384 (§6.5.2) and which a rule cannot know in advance.
    public static let goAwayDebugBytes: ClosedRange<Int> = 0...(HTTP2Limits.defaultMaxFrameSize - 8)
    /// Depth of nested `then` actions (delay ▶ goaway ▶ …).
    public static let maxThenDepth = 8
}

// MARK: - Range-checked decoding

extension KeyedDecodingContainer {
    /// An integer in `range`. Out-of-range values, fractions and numbers beyond the type
    /// become an error at this key: `expected an integer in 1…2147483647, found 1e30`.
    /// (Foundation throws an internal error for a number its target type cannot hold,
    /// which `JSONDecoder.decode` turns into "not valid JSON" without a path; it is caught
    /// here. A wrong type, a `DecodingError`, keeps its own message.)
    func decodeInteger<T: FixedWidthInteger & Decodable>(_ type: T.Type, forKey key: Key, in range: ClosedRange<T>) throws -> T {
        let value: T
        do { value = try decode(T.self, forKey: key) } catch let e as DecodingError { throw e } catch {
            throw rangeError(key, "an integer", range, found: foundNumber(key, error))
        }
        guard range.contains(value) else { throw rangeError(key, "an integer", range, found: String(value)) }
        return value
    }

    func decodeIntegerIfPresent<T: FixedWidthInteger & Decodable>(_ type: T.Type, forKey key: Key, in range: ClosedRange<T>) throws -> T? {
        guard contains(key), !(try decodeNil(forKey: key)) else { return nil }
        return try decodeInteger(type, forKey: key, in: range)
    }

    /// A finite number in `range` (see ``decodeInteger(_:forKey:in:)``).
    func decodeNumber(forKey key: Key, in range: ClosedRange<Double>) throws -> Double {
        let value: Double
        do { value = try decode(Double.self, forKey: key) } catch let e as DecodingError { throw e } catch {
            throw rangeError(key, "a number", range, found: foundNumber(key, error))
        }
        guard value.isFinite, range.contains(value) else { throw rangeError(key, "a number", range, found: NumberText.format(value)) }
        return value
    }

    func decodeNumberIfPresent(forKey key: Key, in range: ClosedRange<Double>) throws -> Double? {
        guard contains(key), !(try decodeNil(forKey: key)) else { return nil }
        return try decodeNumber(forKey: key, in: range)
    }

    /// The number at `key` as text, for an error message: as written when Foundation's
    /// error quotes it (`numberIsNotRepresentableInSwift(parsed: "1e30")`), else as a double.
    private func foundNumber(_ key: Key, _ error: any Error) -> String {
        NumberText.parsedLiteral(in: error) ?? (try? decode(Double.self, forKey: key)).map(NumberText.format)
            ?? "a number beyond the range of a double"
    }

    func rangeError<T>(_ key: Key, _ what: String, _ range: ClosedRange<T>, found: String) -> DecodingError {
        DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription:
            "expected \(what) in \(NumberText.format(range.lowerBound))…\(NumberText.format(range.upperBound)), found \(found)")
    }
}

/// Numbers as error messages show them: integers without a fraction, exponents without `+`.
enum NumberText {
    /// The number literal quoted in Foundation's internal JSON error, if it is one.
    static func parsedLiteral(in error: any Error) -> String? {
        let text = "\(error)"
        guard let start = text.range(of: "parsed: \""), let end = text[start.upperBound...].firstIndex(of: "\"") else { return nil }
        let literal = text[start.upperBound..<end]
        guard !literal.isEmpty, literal.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || [43, 45, 46, 69, 101].contains($0) }) else { return nil }
        return String(literal)
    }

    static func format<T>(_ value: T) -> String {
        if let d = value as? Double { return format(d) }
        return "\(value)"
    }

    static func format(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d < 0 ? "-infinity" : "infinity" }
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return "\(d)".replacingOccurrences(of: "e+", with: "e").replacingOccurrences(of: "e-0", with: "e-")
    }
}

// MARK: - Saturating conversions

/// Double → integer conversions that clamp instead of trapping (NaN becomes 0): the
/// second line of defence behind ``InputLimits`` for arithmetic on user-given numbers.
public enum Saturating {
    /// `d` clamped to `Int64`.
    public static func int64(_ d: Double) -> Int64 {
        if d.isNaN { return 0 }
        if d >= 0x1p63 { return .max }
        if d <= -0x1p63 { return .min }
        return Int64(d)
    }

    /// `d` clamped to `range` (NaN: the lower bound).
    public static func int(_ d: Double, in range: ClosedRange<Int>) -> Int {
        if d.isNaN { return range.lowerBound }
        if d >= Double(range.upperBound) { return range.upperBound }
        if d <= Double(range.lowerBound) { return range.lowerBound }
        return Int(d)
    }
}
