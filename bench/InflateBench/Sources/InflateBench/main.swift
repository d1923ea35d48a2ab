// InflateBench FILE FORMAT SECONDS ROUNDS EXPECTED_SIZE
// Decodes FILE (gzip|zlib|raw) repeatedly for SECONDS per round; prints one MB/s (decoded
// bytes, 10^6) per round, then the median. Checks the decoded size every time.
import Foundation
import PushDoubleInflate

let args = CommandLine.arguments
guard args.count == 6, let data = FileManager.default.contents(atPath: args[1]),
      let seconds = Double(args[3]), let rounds = Int(args[4]), let expected = Int(args[5]) else {
    FileHandle.standardError.write("usage: InflateBench FILE gzip|zlib|raw SECONDS ROUNDS EXPECTED_SIZE\n".data(using: .utf8)!)
    exit(2)
}
let format: InflateFormat = args[2] == "gzip" ? .gzip : args[2] == "zlib" ? .zlib : .raw
let bytes = [UInt8](data)
var results: [Double] = []
for _ in 0..<rounds {
    let start = Date()
    var decoded = 0
    while Date().timeIntervalSince(start) < seconds {
        do {
            let out = try Inflate.decompress(bytes, format: format, limits: InflateLimits(maxOutputBytes: expected))
            precondition(out.count == expected, "decoded \(out.count), expected \(expected)")
            decoded += out.count
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
