import XCTest
import PushDoubleTestSupport
@testable import PushDoubleHPACK

/// Seeded random inputs: the decoder must never crash, hang or throw anything but
/// HPACKError (the typed `throws(HPACKError)` makes the last part a compile-time fact;
/// the loop checks the first two and that state stays bounded).
final class HPACKFuzzTests: XCTestCase {
    func testRandomBytesNeverCrash() {
        var rng = SeededRandomNumberGenerator(seed: 0x5eed_f00d)
        var decoder = HPACKDecoder(maxTableSize: 4096, maxHeaderListSize: 16384)
        var outcomes = [String: Int]()
        for i in 0..<60_000 {
            if i % 1000 == 0 { decoder = HPACKDecoder(maxTableSize: 4096, maxHeaderListSize: 16384) }
            let len = Int.random(in: 0...64, using: &rng)
            let block = (0..<len).map { _ in UInt8.random(in: 0...255, using: &rng) }
            do {
                let list = try decoder.decode(block)
                outcomes["ok", default: 0] += 1
                XCTAssertLessThanOrEqual(list.count, block.count)
            } catch {
                outcomes[String(describing: error).prefix(18).description, default: 0] += 1
                // Keep going with a fresh decoder, as a connection would be torn down.
                decoder = HPACKDecoder(maxTableSize: 4096, maxHeaderListSize: 16384)
            }
            XCTAssertLessThanOrEqual(decoder.dynamicTableSize, 4096)
        }
        XCTAssertGreaterThan(outcomes["ok", default: 0], 0)
        XCTAssertGreaterThan(outcomes.count, 4, "fuzz should reach several error kinds: \(outcomes)")
    }

    /// Mutations of valid blocks reach deeper than pure noise.
    func testMutatedValidBlocksNeverCrash() {
        var rng = SeededRandomNumberGenerator(seed: 99)
        let seeds = HuffmanCodingTests.rfcStrings.map { hex($0.1) } + [
            hex("8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff"),
            hex("4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3"),
            hex("8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65"),
        ]
        var decoded = 0
        for _ in 0..<20_000 {
            var block = seeds.randomElement(using: &rng)!
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                switch Int.random(in: 0..<3, using: &rng) {
                case 0 where !block.isEmpty: block[Int.random(in: 0..<block.count, using: &rng)] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng))
                case 1 where !block.isEmpty: block.removeLast(Int.random(in: 0...min(3, block.count), using: &rng))
                default: block.insert(UInt8.random(in: 0...255, using: &rng), at: Int.random(in: 0...block.count, using: &rng))
                }
            }
            var d = HPACKDecoder(maxTableSize: 256, maxHeaderListSize: 1024)
            if (try? d.decode(block)) != nil { decoded += 1 }
            XCTAssertLessThanOrEqual(d.dynamicTableSize, 256)
        }
        XCTAssertGreaterThan(decoded, 0)
    }
}
