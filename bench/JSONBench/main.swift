// Driver of bench/json.sh: parses two typical bodies N times each, as the tree
// (`JSONValue.parse`) or, with `tape`, as a `JSONTape` (skipped by builds without it).
// Compiled together with Sources/PushDoubleJSON into one module, so it sees its internals.
import Foundation

let apns = Array(#"{"aps":{"alert":{"title":"Benchmark","body":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},"badge":1,"sound":"default"},"acme":{"id":12345,"tags":["a","b","c"],"ratio":0.5,"ok":true,"none":null}}"#.utf8)
let expo = Array(#"[{"to":"ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]","title":"hello","body":"world","data":{"k":"v"},"sound":"default"},{"to":"ExponentPushToken[yyyyyyyyyyyyyyyyyyyyyy]","title":"h\u00e9llo","body":"w\norld"}]"#.utf8)
let fcm = Array(#"{"message":{"token":"bench-registration-token-0000:APA91bxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx","notification":{"title":"Benchmark","body":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},"data":{"k":"v","n":"1"},"android":{"ttl":"3600s","priority":"high"}}}"#.utf8)

let n = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1])! : 20_000
let tape = CommandLine.arguments.count > 2 && CommandLine.arguments[2] == "tape"
var sink = 0
for body in [apns, expo, fcm] {
    for _ in 0..<n {
        if tape {
            #if JSON_TAPE
            sink &+= (try? JSONTape.parse(body))?.nodeCount ?? 0
            #endif
        } else if let v = try? JSONValue.parse(body) {
            sink &+= v.objectValue?.count ?? v.arrayValue?.count ?? 0
        }
    }
}
print("parsed", 3 * n, "bodies (\(tape ? "tape" : "tree")), check", sink)
