// InflateBench FILE FORMAT SECONDS ROUNDS EXPECTED_SIZE [oneshot|stream]
// Decodes FILE (gzip|zlib|raw) repeatedly for SECONDS per round; prints one MB/s (decoded
// bytes, 10^6) per round, then the median. Checks the decoded size every time.
// oneshot (default): Inflate.decompress into an array. stream: InflateStream fed 64 KiB
// chunks, output counted and dropped (what a body parser consuming pieces costs).
import Foundation
import PushDoubleInflate

let args = CommandLine.arguments
guard args.count == 6 || args.count == 7, let data = FileManager.default.contents(atPath: args[1]),
      let seconds = Double(args[3]), let rounds = Int(args[4]), let expected = Int(args[5]) else {
    FileHandle.standardError.write("usage: InflateBench FILE gzip|zlib|raw SECONDS ROUNDS EXPECTED_SIZE\n".data(using: .utf8)!)
    exit(2)
}
let format: InflateFormat = args[2] == "gzip" ? .gzip : args[2] == "zlib" ? .zlib : .raw
let bytes = [UInt8](data)
let streaming = args.count == 7 && args[6] == "stream"

func streamOnce() throws(InflateError) -> Int {
    let s = InflateStream(format: format, limits: InflateLimits(maxOutputBytes: expected))
    var n = 0
    var i = 0
    while i < bytes.count {
        try s.feed(Array(bytes[i..<min(i + 65_536, bytes.count)])) { n += $0.count }
        i += 65_536
    }
    try s.finish()
    return n
}
var results: [Double] = []
for _ in 0..<rounds {
    let start = Date()
    var decoded = 0
    while Date().timeIntervalSince(start) < seconds {
        do {
            let count = streaming ? try streamOnce()
                : try Inflate.decompress(bytes, format: format, limits: InflateLimits(maxOutputBytes: expected)).count
            precondition(count == expected, "decoded \(count), expected \(expected)")
            decoded += count
        } catch {
            print("error: \(error)")
            exit(1)
        }
    }
    let mbs = Double(decoded) / Date().timeIntervalSince(start) / 1e6
    results.append(mbs)
    print(String(format: "round %.1f MB/s", mbs))
}
results.sort()
print(String(format: "median %.1f", results[results.count / 2]))
