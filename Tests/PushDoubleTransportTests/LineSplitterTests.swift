import XCTest
import PushDoubleTransport

/// Newline splitting with bounded memory, across arbitrary chunk boundaries.
final class LineSplitterTests: XCTestCase {
    func split(_ chunks: [String], max: Int = 10) -> [LineSplitter.Piece] {
        var s = LineSplitter(maxLineBytes: max)
        var out: [LineSplitter.Piece] = []
        for c in chunks { Array(c.utf8).withUnsafeBufferPointer { s.feed($0) { out.append($0) } } }
        s.finish { out.append($0) }
        return out
    }
    func line(_ s: String) -> LineSplitter.Piece { .line(Array(s.utf8)) }

    func testLinesAcrossChunks() {
        XCTAssertEqual(split(["ab\ncd", "e\n\nf"]), [line("ab"), line("cde"), line(""), line("f")])
        XCTAssertEqual(split(["a", "b", "\r\n"]), [line("ab\r")])
        XCTAssertEqual(split([]), [])
        XCTAssertEqual(split(["x\n"]), [line("x")])
    }

    func testOverlongLinesAreReportedOnceAndNotBuffered() {
        XCTAssertEqual(split(["0123456789A\nok\n"]), [.overlong(prefix: Array("0123456789A".utf8)), line("ok")])
        XCTAssertEqual(split(["01234", "56789", "ABCDE", "FG\nok"]), [.overlong(prefix: Array("0123456789ABCDE".utf8)), line("ok")])
        XCTAssertEqual(split(["0123456789ABC"]), [.overlong(prefix: Array("0123456789ABC".utf8))])
        XCTAssertEqual(split(["0123456789\n"]), [line("0123456789")])
        let big = String(repeating: "x", count: 1_000)
        XCTAssertEqual(split([big, big, "\n"], max: 500), [.overlong(prefix: Array(big.utf8.prefix(LineSplitter.prefixBytes)))])
    }

    func testReadLinesFromAPipe() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let text = Array("one\ntwo\nthree".utf8)
        XCTAssertEqual(text.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }, text.count)
        close(fds[1])
        var got: [LineSplitter.Piece] = []
        LineSplitter.readLines(fd: fds[0], maxLineBytes: 100) { got.append($0) }
        close(fds[0])
        XCTAssertEqual(got, [line("one"), line("two"), line("three")])
    }
}
