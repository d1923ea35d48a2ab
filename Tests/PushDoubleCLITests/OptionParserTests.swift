import Foundation
import XCTest
import PushDoubleConformance
import PushDoubleCore
import PushDoubleCrypto
import PushDouble
@testable import pushdouble

/// The one option parser every command uses, its usage error and the generated help.
final class OptionParserTests: XCTestCase {
    let specs = [
        OptionSpec("--out", value: "DIR", help: "where"),
        OptionSpec("--tag", value: "T", repeatable: true, help: "a tag"),
        OptionSpec("--quiet", short: "-q", help: "say less"),
        OptionSpec.help,
    ]

    func parse(_ args: [String], maxPositional: Int = 0) throws -> ParsedOptions {
        try ParsedOptions.parse(args, specs: specs, maxPositional: maxPositional)
    }

    func assertError(_ args: [String], _ expected: CLIError, maxPositional: Int = 0, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try parse(args, maxPositional: maxPositional), file: file, line: line) {
            XCTAssertEqual($0 as? CLIError, expected, file: file, line: line)
        }
    }

    func testValuesSeparateOrInline() throws {
        XCTAssertEqual(try parse(["--out", "a"]).value("--out"), "a")
        XCTAssertEqual(try parse(["--out=a"]).value("--out"), "a")
        XCTAssertEqual(try parse(["--out=a=b"]).value("--out"), "a=b", "only the first = splits")
        XCTAssertEqual(try parse(["--out="]).value("--out"), "", "an empty inline value is a value")
        XCTAssertEqual(try parse(["--out", "--quiet"]).value("--out"), "--quiet", "the next word is the value, even if it looks like an option")
        XCTAssertNil(try parse([]).value("--out"))
    }

    func testRepeats() throws {
        XCTAssertEqual(try parse(["--tag", "a", "--tag=b", "--tag", "c"]).all("--tag"), ["a", "b", "c"])
        assertError(["--out", "a", "--out", "b"], .repeated("--out"))
        assertError(["--quiet", "-q"], .repeated("--quiet"))  // a short alias is the same option
    }

    func testFlagsAndShortAliases() throws {
        XCTAssertTrue(try parse(["-q"]).flag("--quiet"))
        XCTAssertTrue(try parse(["--quiet"]).flag("--quiet"))
        XCTAssertTrue(try parse(["-h"]).flag("--help"))
        XCTAssertFalse(try parse([]).flag("--quiet"))
        assertError(["--quiet=yes"], .invalidValue(option: "--quiet", value: "yes", expected: "allowed (a flag takes no value)"))
    }

    func testUnknownOptionAndMissingValue() {
        assertError(["--bogus"], .unknownOption("--bogus"))
        assertError(["--bogus=1"], .unknownOption("--bogus"))
        assertError(["-x"], .unknownOption("-x"))
        assertError(["--out"], .missingValue("--out"))
        assertError(["--quiet", "--tag"], .missingValue("--tag"))
    }

    func testPositionalAndDoubleDash() throws {
        XCTAssertEqual(try parse(["a", "--quiet", "b"], maxPositional: 2).positional, ["a", "b"])
        XCTAssertEqual(try parse(["-"], maxPositional: 1).positional, ["-"], "a lone dash is an argument")
        let p = try parse(["--quiet", "--", "--out", "-q"], maxPositional: 2)
        XCTAssertEqual(p.positional, ["--out", "-q"], "-- ends the options")
        XCTAssertNil(p.value("--out"))
        assertError(["stray"], .unexpectedArgument("stray"))
        assertError(["a", "b"], .unexpectedArgument("b"), maxPositional: 1)
        assertError(["--", "x"], .unexpectedArgument("x"))
    }

    func testNumbers() throws {
        let p = try parse(["--out", "12"])
        XCTAssertEqual(try p.number("--out", expected: "a number") { Int($0) }, 12)
        XCTAssertNil(try p.number("--tag", expected: "a number") { Int($0) })
        XCTAssertThrowsError(try parse(["--out", "x"]).number("--out", expected: "a number") { Int($0) }) {
            XCTAssertEqual($0 as? CLIError, .invalidValue(option: "--out", value: "x", expected: "a number"))
            XCTAssertEqual("\($0)", "option --out: \"x\" is not a number")
        }
    }

    func testHelpIsGeneratedFromTheTable() {
        let text = CommandHelp(usage: "pushdouble x [options]", summary: "Does x.", options: specs, footer: "exit status: 0").text
        XCTAssertEqual(text, """
            usage: pushdouble x [options]

            Does x.

            options:
              --out DIR    where
              --tag T      a tag (repeatable)
              -q, --quiet  say less
              -h, --help   show this help

            exit status: 0

            """)
    }

    /// Every command reports a usage error the same way: the same text and exit status 2.
    func testEveryCommandReportsUsageErrorsTheSameWay() {
        for command in CommandTable.commands {
            let out = Captured(), err = Captured()
            let status: Int32
            switch command.name {
            case ServeCommand.name, ReplayCommand.name:
                status = ServeCommand.run(["--frobnicate"], mode: command.name == ServeCommand.name ? .serve : .replay, out: out.console, err: err.console)
            case ConformCommand.name:
                status = ConformCommand.run(["--frobnicate"], host: ServerFakeHost(), output: out.console.write, errors: err.console.write)
            case CertsCommand.name:
                status = CertsCommand.run(["--frobnicate"], out: out.console, err: err.console)
            case EnvCommand.name:
                status = EnvCommand.run(["--frobnicate"], out: out.console, err: err.console)
            case HostsCommand.name:
                status = HostsCommand.run(["--frobnicate"], out: out.console, err: err.console)
            case ProbeCommand.name:
                status = ProbeCommand.run(["--frobnicate"], out: out.console, err: err.console)
            default:
                XCTFail("no usage-error test for \(command.name)"); continue
            }
            XCTAssertEqual(status, CLIError.exitStatus, command.name)
            XCTAssertEqual(err.value, "pushdouble \(command.name): unknown option --frobnicate\nrun `pushdouble \(command.name) --help` for usage\n")
            XCTAssertEqual(out.value, "", command.name)
            // Help comes from each command's option table.
            let help = command.help.text
            for spec in command.help.options { XCTAssertTrue(help.contains(spec.name), "\(command.name) help lacks \(spec.name)") }
        }
    }

    func testCertsBadArgumentsUseTheCommonError() throws {
        for (args, message) in [(["--bogus"], "unknown option --bogus"), (["--out"], "option --out needs a value"),
                                ([], "missing --out DIR or --trust"), (["stray"], "unexpected argument \"stray\""),
                                (["--out", "a", "--out", "b"], "option --out given more than once")] {
            let out = Captured(), err = Captured()
            XCTAssertEqual(CertsCommand.run(args, out: out.console, err: err.console), 2, "\(args)")
            XCTAssertEqual(err.value, "pushdouble certs: \(message)\nrun `pushdouble certs --help` for usage\n")
        }
        let out = Captured(), err = Captured()
        XCTAssertEqual(CertsCommand.run(["-h"], out: out.console, err: err.console), 0)
        XCTAssertTrue(out.value.hasPrefix("usage: pushdouble certs --out DIR [--server-certificate] [--swift FILE] | --trust [--ca FILE]\n"), out.value)
    }

    func testCertsWritesTheCredentials() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pd-certs-\(UUID().uuidString)/nested")
        defer { try? FileManager.default.removeItem(at: dir.deletingLastPathComponent()) }
        let out = Captured(), err = Captured()
        XCTAssertEqual(CertsCommand.run(["--out=\(dir.path)"], out: out.console, err: err.console), 0, err.value)
        XCTAssertEqual(out.value, "wrote test-only credentials to \(dir.path)\n")
        let ca = try String(contentsOf: dir.appendingPathComponent(TestCredentials.FileName.caCertificate), encoding: .utf8)
        XCTAssertTrue(ca.hasPrefix("-----BEGIN CERTIFICATE-----"), ca)
        // A path that cannot be a directory: exit status 1, not a usage error.
        let file = dir.appendingPathComponent(TestCredentials.FileName.caCertificate).path
        let err2 = Captured()
        XCTAssertEqual(CertsCommand.run(["--out", file + "/sub"], out: Captured().console, err: err2.console), 1)
        XCTAssertTrue(err2.value.hasPrefix("pushdouble certs: "), err2.value)
    }

    /// The maintainers' mode of Certificates/regenerate.sh: the shipped CA and every provider's
    /// file kept, a new server certificate, and the embedded Swift copy of exactly that set.
    func testCertsServerCertificateKeepsTheShippedSetAndWritesItsSwiftCopy() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pd-certs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let swift = dir.appendingPathComponent("Embedded.swift")
        let out = Captured(), err = Captured()
        XCTAssertEqual(CertsCommand.run(["--out", dir.path, "--server-certificate", "--swift", swift.path], out: out.console, err: err.console), 0, err.value)
        let set = try GeneratedCredentialSet.load(from: dir, sources: FakeRegistry.credentialSources)
        let shipped = GeneratedCredentialSet.embedded
        XCTAssertEqual(set.caPEM, shipped.caPEM)
        XCTAssertEqual(set.serverKeyPEM, shipped.serverKeyPEM)
        XCTAssertEqual(set.files, shipped.files)
        XCTAssertNotEqual(set.serverCertificatePEM, shipped.serverCertificatePEM, "a new certificate")
        XCTAssertEqual(try String(contentsOf: swift, encoding: .utf8), TestCredentials.embeddedSwiftSource(for: set))
        let usage = Captured()
        XCTAssertEqual(CertsCommand.run(["--swift", swift.path], out: Captured().console, err: usage.console), 2)
        XCTAssertTrue(usage.value.contains("--out DIR"), usage.value)
    }

    func testTopLevelUsageFromTheCommandTable() {
        let out = Captured(), err = Captured()
        XCTAssertEqual(CommandTable.run([], out: out.console, err: err.console), 0)
        for c in CommandTable.commands { XCTAssertTrue(out.value.contains("  \(c.name)  ") && out.value.contains(c.summary), c.name) }
        XCTAssertEqual(CommandTable.run(["nope"], out: out.console, err: err.console), 2)
        XCTAssertTrue(err.value.hasPrefix("pushdouble: unknown command 'nope'\n"), err.value)
        let version = Captured()
        XCTAssertEqual(CommandTable.run(["--version"], out: version.console, err: err.console), 0)
        XCTAssertEqual(version.value, CommandTable.version + "\n")
    }
}
