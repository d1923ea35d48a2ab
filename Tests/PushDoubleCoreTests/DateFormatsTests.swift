import Foundation
import XCTest
@testable import PushDoubleCore

final class DateFormatsTests: XCTestCase {
    func testHTTPDateRFC9110Example() {
        // RFC 9110 §5.6.7: "Sun, 06 Nov 1994 08:49:37 GMT".
        XCTAssertEqual(DateFormats.httpDate(Date(timeIntervalSince1970: 784111777)), "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertEqual(DateFormats.httpDate(Date(timeIntervalSince1970: 784111777.9)), "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    func testISO8601RoundTripWithMilliseconds() {
        XCTAssertEqual(DateFormats.iso8601(Date(timeIntervalSince1970: 0)), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(DateFormats.iso8601(Date(timeIntervalSince1970: 784111777.25)), "1994-11-06T08:49:37.250Z")
        XCTAssertEqual(DateFormats.parseISO8601("1994-11-06T08:49:37.250Z")?.timeIntervalSince1970, 784111777.25)
        XCTAssertEqual(DateFormats.parseISO8601("1994-11-06T09:49:37+01:00")?.timeIntervalSince1970, 784111777)
        XCTAssertEqual(DateFormats.parseISO8601("2024-02-29T00:00:00Z")?.timeIntervalSince1970, 1709164800)
        for bad in ["", "1994-11-06", "1994-13-06T08:49:37Z", "1994-11-06T08:49:37.Z", "1994-11-06T08:49:37Zjunk"] {
            XCTAssertNil(DateFormats.parseISO8601(bad), bad)
        }
    }

    func testCompactJSONKeepsOrderAndEscapes() {
        let v = JSONValue.object([("reason", .string("Shut\"down\n")), ("a", .array([.int(1), .double(2.5), .bool(true), .null]))])
        XCTAssertEqual(v.compactJSON, #"{"reason":"Shut\"down\n","a":[1,2.5,true,null]}"#)
    }
}
