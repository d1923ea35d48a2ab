import Foundation
import PushDoubleTransport
import PushDoubleCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the sender command as a child process and exchanges lines with it over pipes.
///
/// The command runs under `/bin/sh -c` in its own process group (posix_spawn with
/// POSIX_SPAWN_SETPGROUP), so that killing it also kills whatever it started (a shell
/// wrapper, an interpreter). Two reader threads drain stdout (split into lines, each line
/// bounded) and stderr (kept bounded, as the sender's log); a third waits for the exit.
///
/// Threading: every mutable field is guarded by `cond`; all methods may be called from
/// any thread, though the runner uses one process from one thread at a time.
public final class SenderProcess: @unchecked Sendable {
    /// Result of waiting for the next stdout line.
    public enum LineEvent: Sendable, Equatable {
        case line(String)
        /// stdout closed (usually the process exited); `status` is the exit description if known.
        case closed(status: String?)
        case timeout
        /// A line longer than the bound was written (not a protocol message).
        case overlong(prefix: String)
    }

    /// Failures starting the process.
    public enum StartError: Error, CustomStringConvertible {
        case spawnFailed(command: String, errno: Int32)
        case pipeFailed(errno: Int32)
        public var description: String {
            switch self {
            case let .spawnFailed(c, e): return "cannot start sender \"\(c)\": \(String(cString: strerror(e)))"
            case let .pipeFailed(e): return "cannot create pipes: \(String(cString: strerror(e)))"
            }
        }
    }

    /// Largest stdout line accepted (a protocol message); longer is garbage.
    public static let maxLineBytes = 8 << 20
    /// How much stderr is kept (head and tail).
    public static let maxLogBytes = 64 << 10

    public let command: String
    public let pid: pid_t
    private let stdinFD: Int32
    private let cond = NSCondition()
    private var lines: [LineEvent] = []
    private var stdoutClosed = false
    private var exitStatus: String?
    private var exited = false
    private var logHead: [UInt8] = []
    private var logTail: [UInt8] = []
    private var logDropped = 0
    private var stdinClosed = false
    /// The sender's stderr reached end of file (everything it logged is in ``log``).
    private var stderrClosed = false

    /// This process's executable when it is the `pushdouble` command (not a test runner).
    static let ownBinary: String? = {
        guard let path = OwnExecutable.path, (path as NSString).lastPathComponent == "pushdouble" else { return nil }
        return path
    }()

    /// Starts `command` with the runner's environment plus `environment` (and `PUSHDOUBLE_BIN`,
    /// when unset, naming the `pushdouble` binary that runs it).
    public init(command: String, environment: [String: String]) throws {
        self.command = command
        _ = Self.ignoreSIGPIPE
        // Pipe creation and spawn are serialised so that no concurrently spawned sender
        // inherits another sender's pipe ends before FD_CLOEXEC is set (no pipe2 here).
        Self.spawnLock.lock()
        defer { Self.spawnLock.unlock() }
        var inPipe: [Int32] = [0, 0], outPipe: [Int32] = [0, 0], errPipe: [Int32] = [0, 0]
        guard Self.cloexecPipe(&inPipe) else { throw StartError.pipeFailed(errno: errno) }
        guard Self.cloexecPipe(&outPipe) else { throw StartError.pipeFailed(errno: errno) }
        guard Self.cloexecPipe(&errPipe) else { throw StartError.pipeFailed(errno: errno) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attr, 0)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attr, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attr, &defaults)

        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        // The binary that drives the sender, so that a kit in the sender finds the same one
        // (the Python kit's host table comes from `pushdouble hosts --json`).
        if env["PUSHDOUBLE_BIN"] == nil, let own = Self.ownBinary { env["PUSHDOUBLE_BIN"] = own }
        let envStrings = env.map { "\($0.key)=\($0.value)" }
        let argStrings = ["/bin/sh", "-c", command]
        var cEnv: [UnsafeMutablePointer<CChar>?] = envStrings.map { strdup($0) } + [nil]
        var cArgs: [UnsafeMutablePointer<CChar>?] = argStrings.map { strdup($0) } + [nil]
        defer { for p in cEnv { free(p) }; for p in cArgs { free(p) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, "/bin/sh", &actions, &attr, &cArgs, &cEnv)
        close(inPipe[0]); close(outPipe[1]); close(errPipe[1])
        guard rc == 0 else {
            close(inPipe[1]); close(outPipe[0]); close(errPipe[0])
            throw StartError.spawnFailed(command: command, errno: rc)
        }
        pid = child
        stdinFD = inPipe[1]
        let outFD = outPipe[0], errFD = errPipe[0]
        let t1 = Thread { [self] in self.readStdout(outFD) }
        t1.name = "sender-stdout"; t1.start()
        let t2 = Thread { [self] in self.readStderr(errFD) }
        t2.name = "sender-stderr"; t2.start()
        let t3 = Thread { [self] in self.waitForExit() }
        t3.name = "sender-wait"; t3.start()
    }

    private static let spawnLock = NSLock()

    private static func cloexecPipe(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        return true
    }

    private static let ignoreSIGPIPE: Void = { signal(SIGPIPE, SIG_IGN); return () }()

    // MARK: - Writing

    /// Writes one line (a newline is appended). Returns false if the sender no longer reads.
    @discardableResult
    public func writeLine(_ text: String, deadline: Date) -> Bool {
        var bytes = Array(text.utf8)
        bytes.append(0x0A)
        cond.lock(); let closed = stdinClosed; cond.unlock()
        if closed { return false }
        var offset = 0
        let flags = fcntl(stdinFD, F_GETFL)
        _ = fcntl(stdinFD, F_SETFL, flags | O_NONBLOCK)
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(stdinFD, $0.baseAddress! + offset, bytes.count - offset) }
            if n > 0 { offset += n; continue }
            if n < 0 && (errno == EAGAIN || errno == EINTR) {
                let left = deadline.timeIntervalSinceNow
                if left <= 0 { return false }
                var p = pollfd(fd: stdinFD, events: Int16(POLLOUT), revents: 0)
                _ = poll(&p, 1, Int32(min(left * 1000, 1000)) + 1)
                continue
            }
            return false
        }
        return true
    }

    /// Closes the sender's stdin (it sees EOF).
    public func closeStdin() {
        cond.lock(); defer { cond.unlock() }
        if !stdinClosed { stdinClosed = true; close(stdinFD) }
    }

    // MARK: - Reading

    /// Waits for the next stdout line until `deadline`.
    public func nextLine(deadline: Date) -> LineEvent {
        cond.lock(); defer { cond.unlock() }
        while lines.isEmpty {
            if stdoutClosed {
                // Give the exit status a moment to arrive so the verdict can quote it.
                let until = min(deadline, Date().addingTimeInterval(0.5))
                while !exited && cond.wait(until: until) {}
                return .closed(status: exitStatus)
            }
            if !cond.wait(until: deadline) && lines.isEmpty && !stdoutClosed { return .timeout }
        }
        return lines.removeFirst()
    }

    private func readStdout(_ fd: Int32) {
        LineSplitter.readLines(fd: fd, maxLineBytes: Self.maxLineBytes) { piece in
            switch piece {
            case .line(let bytes): emit(.line(Self.decodeLine(bytes)))
            case .overlong(let prefix): emit(.overlong(prefix: Self.decodeLine(prefix)))
            }
        }
        close(fd)
        cond.lock(); stdoutClosed = true; cond.broadcast(); cond.unlock()
    }

    private static func decodeLine(_ bytes: [UInt8]) -> String {
        var b = bytes[...]
        if b.last == 0x0D { b = b.dropLast() }
        return String(decoding: b, as: UTF8.self)
    }

    private func emit(_ e: LineEvent) {
        cond.lock(); lines.append(e); cond.broadcast(); cond.unlock()
    }

    private func readStderr(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16384)
        let half = Self.maxLogBytes / 2
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            cond.lock()
            var chunk = buffer[0..<n]
            if logHead.count < half {
                let take = min(half - logHead.count, chunk.count)
                logHead.append(contentsOf: chunk.prefix(take))
                chunk = chunk.dropFirst(take)
            }
            if !chunk.isEmpty {
                logTail.append(contentsOf: chunk)
                if logTail.count > half {
                    let drop = logTail.count - half
                    logTail.removeFirst(drop)
                    logDropped += drop
                }
            }
            cond.unlock()
        }
        close(fd)
        cond.lock(); stderrClosed = true; cond.broadcast(); cond.unlock()
    }

    /// Waits up to `timeout` seconds until the sender's stderr is closed (after it exited,
    /// unless a child keeps it open), so ``log`` holds every line it wrote; true if it is.
    @discardableResult
    public func waitForLogEnd(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        cond.lock(); defer { cond.unlock() }
        while !stderrClosed { if !cond.wait(until: deadline) { return stderrClosed } }
        return true
    }

    /// The sender's stderr so far (bounded: head and tail, with the number of bytes left out).
    public var log: String {
        cond.lock(); defer { cond.unlock() }
        var s = String(decoding: logHead, as: UTF8.self)
        if logDropped > 0 { s += "\n[… \(logDropped) bytes of log left out …]\n" }
        s += String(decoding: logTail, as: UTF8.self)
        return s
    }

    // MARK: - Exit

    private func waitForExit() {
        var status: Int32 = 0
        var rc: pid_t
        repeat { rc = waitpid(pid, &status, 0) } while rc < 0 && errno == EINTR
        let description: String
        if rc < 0 { description = "unknown exit" }
        else if (status & 0x7f) == 0 { description = "exit status \((status >> 8) & 0xff)" }
        else { description = "killed by signal \(status & 0x7f)" }
        cond.lock(); exited = true; exitStatus = description; cond.broadcast(); cond.unlock()
    }

    /// Whether the process has exited, and how.
    public var exitDescription: String? { cond.lock(); defer { cond.unlock() }; return exitStatus }

    /// Waits up to `timeout` seconds for the process to exit on its own; true if it did.
    @discardableResult
    public func waitForExit(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        cond.lock(); defer { cond.unlock() }
        while !exited { if !cond.wait(until: deadline) { return exited } }
        return true
    }

    /// Kills the whole process group (SIGKILL) and waits briefly for the exit.
    public func kill() {
        cond.lock(); let done = exited; cond.unlock()
        if !done { _ = Glibc.kill(-pid, SIGKILL) }
        closeStdin()
        waitForExit(timeout: 2)
    }

    /// Asks politely (stdin EOF, then SIGTERM), then kills.
    public func terminate(grace: TimeInterval) {
        closeStdin()
        if waitForExit(timeout: grace) { return }
        _ = Glibc.kill(-pid, SIGTERM)
        if waitForExit(timeout: 0.5) { return }
        kill()
    }

    deinit {
        cond.lock(); let done = exited; cond.unlock()
        if !done { _ = Glibc.kill(-pid, SIGKILL) }
        if !stdinClosed { close(stdinFD) }
    }
}
