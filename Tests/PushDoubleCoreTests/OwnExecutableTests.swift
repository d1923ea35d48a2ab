import XCTest
import PushDoubleCore

/// `OwnExecutable`: /proc/self/exe, except for a binary the image's launcher runs from a memory file.
final class OwnExecutableTests: XCTestCase {
    func testARealFileIsItsOwnPathWhateverTheEnvironmentSays() {
        XCTAssertEqual(OwnExecutable.resolve(procSelfExe: "/opt/bin/pushdouble", environment: [:]), "/opt/bin/pushdouble")
        // An inherited variable does not mislead a binary started from a real file.
        XCTAssertEqual(OwnExecutable.resolve(procSelfExe: "/opt/bin/pushdouble",
                                             environment: ["PUSHDOUBLE_EXECUTABLE": "/usr/local/bin/pushdouble"]),
                       "/opt/bin/pushdouble")
    }

    func testAMemoryFileIsTheLaunchersPath() {
        XCTAssertEqual(OwnExecutable.resolve(procSelfExe: "/memfd:pushdouble (deleted)",
                                             environment: ["PUSHDOUBLE_EXECUTABLE": "/usr/local/bin/pushdouble"]),
                       "/usr/local/bin/pushdouble")
        // Without the launcher's (absolute) path, the memory file is all there is.
        XCTAssertEqual(OwnExecutable.resolve(procSelfExe: "/memfd:pushdouble (deleted)", environment: [:]), "/memfd:pushdouble (deleted)")
        XCTAssertEqual(OwnExecutable.resolve(procSelfExe: "/memfd:pushdouble (deleted)", environment: ["PUSHDOUBLE_EXECUTABLE": "pushdouble"]),
                       "/memfd:pushdouble (deleted)")
        XCTAssertNil(OwnExecutable.resolve(procSelfExe: nil, environment: ["PUSHDOUBLE_EXECUTABLE": "/usr/local/bin/pushdouble"]))
    }

    func testThisProcessIsItsOwnFile() throws {
        #if os(Linux)
        let path = try XCTUnwrap(OwnExecutable.path)
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: path), path)
        #endif
    }
}
