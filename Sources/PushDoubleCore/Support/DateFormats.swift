import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Date renderings the double needs on the wire and in the history, written by hand:
/// no shared formatter objects (not Sendable, slow), no locale surprises.
public enum DateFormats {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func utc(_ seconds: Int) -> tm {
        var t = time_t(seconds)
        var out = tm()
        _ = gmtime_r(&t, &out)
        return out
    }

    private static func pad(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    /// Earliest and latest instants rendered: 0001-01-01T00:00:00Z and
    /// 9999-12-31T23:59:59.999Z (both formats have a four-digit year). Dates beyond are
    /// clamped to these, never trapping; NaN renders as the epoch.
    static let representableSeconds: ClosedRange<Double> = -62_135_596_800...253_402_300_799.999

    private static func clampedSeconds(_ date: Date) -> Double {
        let t = date.timeIntervalSince1970
        if t.isNaN { return 0 }
        return min(max(t, representableSeconds.lowerBound), representableSeconds.upperBound)
    }

    /// ISO 8601 in UTC with milliseconds: `2026-11-30T07:35:08.123Z` (years 1–9999, clamped).
    public static func iso8601(_ date: Date) -> String {
        let ms = Int((clampedSeconds(date) * 1000).rounded())
        let secs = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        let frac = ms - secs * 1000
        let t = utc(secs)
        return pad(Int(t.tm_year) + 1900, 4) + "-" + pad(Int(t.tm_mon) + 1, 2) + "-" + pad(Int(t.tm_mday), 2)
            + "T" + pad(Int(t.tm_hour), 2) + ":" + pad(Int(t.tm_min), 2) + ":" + pad(Int(t.tm_sec), 2)
            + "." + pad(frac, 3) + "Z"
    }

    /// RFC 9110 §5.6.7 IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT` (seconds truncated;
    /// years 1–9999, clamped).
    public static func httpDate(_ date: Date) -> String {
        let t = utc(Int(clampedSeconds(date).rounded(.down)))
        return days[Int(t.tm_wday)] + ", " + pad(Int(t.tm_mday), 2) + " " + months[Int(t.tm_mon)] + " "
            + pad(Int(t.tm_year) + 1900, 4) + " " + pad(Int(t.tm_hour), 2) + ":" + pad(Int(t.tm_min), 2) + ":"
            + pad(Int(t.tm_sec), 2) + " GMT"
    }

    /// Parses ISO 8601 `YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH:MM]`; nil if malformed.
    public static func parseISO8601(_ s: String) -> Date? {
        let u = Array(s.utf8)
        func num(_ from: Int, _ len: Int) -> Int? {
            guard from + len <= u.count else { return nil }
            var v = 0
            for i in from..<(from + len) {
                let c = u[i]
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            return v
        }
        guard u.count >= 19, let y = num(0, 4), u[4] == 45, let mo = num(5, 2), u[7] == 45, let d = num(8, 2),
              u[10] == 84 || u[10] == 116 || u[10] == 32, let h = num(11, 2), u[13] == 58, let mi = num(14, 2),
              u[16] == 58, let se = num(17, 2), (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, se < 61
        else { return nil }
        var i = 19
        var frac = 0.0
        if i < u.count && u[i] == 46 {
            i += 1
            var scale = 0.1
            let start = i
            while i < u.count, u[i] >= 48, u[i] <= 57 { frac += Double(u[i] - 48) * scale; scale /= 10; i += 1 }
            if i == start { return nil }
        }
        var offset = 0
        if i < u.count {
            if u[i] == 90 || u[i] == 122 { i += 1 }
            else if u[i] == 43 || u[i] == 45 {
                guard let oh = num(i + 1, 2), i + 3 < u.count, u[i + 3] == 58, let om = num(i + 4, 2) else { return nil }
                offset = (oh * 3600 + om * 60) * (u[i] == 43 ? 1 : -1)
                i += 6
            } else { return nil }
        }
        guard i == u.count else { return nil }
        // Days from civil (Howard Hinnant's algorithm).
        let yy = mo <= 2 ? y - 1 : y
        let era = (yy >= 0 ? yy : yy - 399) / 400
        let yoe = yy - era * 400
        let doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146097 + doe - 719468
        let secs = days * 86400 + h * 3600 + mi * 60 + se - offset
        return Date(timeIntervalSince1970: Double(secs) + frac)
    }
}
