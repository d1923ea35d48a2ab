import XCTest
import Foundation
import PushDoubleTestSupport
@testable import PushDoubleInflate

/// Random cases compressed at test time by python3's zlib (random level, strategy, window
/// bits, memLevel, container), including inputs far longer than the 32 KiB window with
/// matches near the maximum distance; decoded one-shot and in random chunk sizes.
final class InflatePythonCrossTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "python3 (zlib, gzip)") }

    static let script = #"""
import base64, random, struct, sys, zlib
rng = random.Random(int(sys.argv[1]))
def payload():
    kind = rng.choice(["random", "text", "far", "runs", "mixed"])
    n = rng.choice([0, 1, 2, 100, 1000, 5000, 40000, 120000])
    if kind == "random":
        return kind, bytes(rng.randrange(256) for _ in range(n))
    if kind == "text":
        words = [bytes(rng.randrange(97, 123) for _ in range(rng.randint(1, 9))) for _ in range(50)]
        return kind, b" ".join(rng.choice(words) for _ in range(n // 5))[:n]
    if kind == "far":
        # A random block repeated at a distance just under 32 KiB (and some beyond it).
        block = bytes(rng.randrange(256) for _ in range(rng.choice([32000, 32700, 32768, 33000])))
        return kind, (block + bytes(rng.randrange(256) for _ in range(rng.randint(0, 60))) + block[:20000]) * 2
    if kind == "runs":
        out = bytearray()
        while len(out) < n:
            out += bytes([rng.randrange(4)]) * rng.randint(1, 700)
        return kind, bytes(out)
    return kind, bytes(rng.randrange(256) for _ in range(n // 2)) + b"abc" * (n // 6)
strategies = [zlib.Z_DEFAULT_STRATEGY, zlib.Z_FILTERED, zlib.Z_HUFFMAN_ONLY, zlib.Z_RLE, zlib.Z_FIXED]
for case in range(int(sys.argv[2])):
    kind, data = payload()
    fmt = rng.choice(["raw", "zlib", "gzip"])
    bits = rng.randint(9, 15)
    wbits = {"raw": -bits, "zlib": bits, "gzip": 16 + bits}[fmt]
    level, strategy, mem = rng.randint(0, 9), rng.choice(strategies), rng.randint(1, 9)
    c = zlib.compressobj(level, zlib.DEFLATED, wbits, mem, strategy)
    # Several flush points make several blocks (and stored empty blocks for Z_SYNC_FLUSH).
    out, i = b"", 0
    while i < len(data):
        step = rng.randint(1, max(1, len(data) // 3))
        out += c.compress(data[i:i + step]) + (c.flush(rng.choice([zlib.Z_SYNC_FLUSH, zlib.Z_FULL_FLUSH])) if rng.random() < 0.3 else b"")
        i += step
    out += c.flush()
    if fmt == "gzip" and rng.random() < 0.3:  # a second member
        d2 = data[: len(data) // 2]
        c2 = zlib.compressobj(rng.randint(1, 9), zlib.DEFLATED, 31)
        out += c2.compress(d2) + c2.flush()
        data += d2
    desc = f"{kind} n={len(data)} {fmt} wbits={wbits} level={level} strategy={strategy} mem={mem}"
    print(desc + "\t" + fmt + "\t" + base64.b64encode(data).decode() + "\t" + base64.b64encode(out).decode())
"""#

    func testRandomPythonCases() throws {
        let result = try runCommand(["python3", "-c", Self.script, "20260", "160"], timeout: 120)
        XCTAssertEqual(result.status, 0, result.stderr)
        var rng = SeededRandomNumberGenerator(seed: 1952)
        var count = 0, bytes = 0
        for line in result.stdout.split(separator: "\n") {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            let format: InflateFormat = f[1] == "raw" ? .raw : f[1] == "zlib" ? .zlib : .gzip
            let original = base64(f[2]), compressed = base64(f[3])
            XCTAssertEqual(decode(compressed, format, limit: original.count), .ok(original), f[0])
            if !original.isEmpty {
                XCTAssertEqual(decode(compressed, format, limit: original.count - 1),
                               .failed(.outputLimitExceeded(limit: original.count - 1)), f[0])
            }
            let sizes = (0..<5).map { _ in Int.random(in: 1...9000, using: &rng) }
            let streamed = outcome { () throws(InflateError) in try streamDecode(compressed, format: format, chunkSizes: sizes) }
            XCTAssertEqual(streamed, .ok(original), "\(f[0]) chunks \(sizes)")
            if format == .zlib || format == .raw {
                XCTAssertEqual(decode(compressed, .zlibOrRaw), .ok(original), f[0])
            }
            count += 1
            bytes += original.count
        }
        XCTAssertEqual(count, 160)
        XCTAssertGreaterThan(bytes, 2_000_000)
    }
}
