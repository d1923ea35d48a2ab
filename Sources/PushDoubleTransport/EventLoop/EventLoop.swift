#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import COpenSSL

/// Something registered with an event loop's epoll set. Called on the loop thread only.
protocol Selectable: AnyObject {
    /// epoll reported these events (EPOLLIN/EPOLLOUT/EPOLLERR/EPOLLHUP bits).
    func handleEvents(_ events: UInt32)
}

/// Something with buffered output to write at the end of the current loop iteration.
protocol Flushable: AnyObject {
    func flushPending()
}

/// One thread running one epoll set, its timers and a thread-safe task queue.
///
/// Threading model: everything registered here (listening sockets, connections, their
/// protocol handlers and timers) is confined to this loop's thread for its whole life; a
/// connection never moves between loops, and responders are called on the loop that owns
/// the connection. Other threads talk to the loop only through ``execute(_:)``, which
/// queues a closure under a mutex and wakes the loop through an eventfd.
///
/// Lifecycle: ``Lifecycle``. The loop's own descriptors (the epoll set and the wake eventfd)
/// are closed when its thread ends, not in `deinit`: a process that starts and stops many
/// servers (the conformance runner starts one per case) must get them back even while some
/// connection object still holds the loop.
///
/// `@unchecked Sendable`: the only state touched from other threads is `queue` (behind a
/// lock), the `stopping` atomic and the immutable descriptors; every other field is
/// read and written on the loop thread only.
final class EventLoop: LoopExecutor, @unchecked Sendable {
    /// Where the loop is in its life. Tasks are accepted until `stopped`; from then on the
    /// wake descriptor is closed and ``execute(_:)`` drops what it is given.
    enum Lifecycle { case created, running, stopped }

    /// The cross-thread part of the loop: queued tasks and the lifecycle, under one lock so a
    /// task is never queued (and the eventfd never written) after the descriptors are closed.
    private struct Queue {
        var tasks: [@Sendable () -> Void] = []
        var lifecycle = Lifecycle.created
    }

    let index: Int
    private let epfd: Int32
    private let wakeFD: Int32
    private let queue = Locked(Queue())
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private var thread: Thread?

    // Loop-confined state.
    private var registrations: [Registration?] = []
    private var nextGeneration: UInt32 = 1
    private var timerHeap: [TimerEntry] = []
    private var timerCallbacks: [UInt64: () -> Void] = [:]
    private var nextTimerID: UInt64 = 1
    private var flushQueue: [Flushable] = []
    /// Shared read buffer: protocol handlers consume input synchronously, so one buffer per
    /// loop serves every connection without per-read allocation.
    let readBuffer: UnsafeMutableRawBufferPointer

    private struct Registration {
        var generation: UInt32
        var object: Selectable
    }

    private struct TimerEntry {
        var deadline: UInt64
        var id: UInt64
    }

    private static let wakeData: UInt64 = UInt64.max

    init(index: Int) throws(PosixError) {
        self.index = index
        self.epfd = try Posix.epollCreate()
        self.wakeFD = try Posix.eventfdCreate()
        self.readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        try Posix.epollCtl(epfd, EPOLL_CTL_ADD, wakeFD, events: EPOLLIN.rawValue, data: Self.wakeData)
    }

    deinit {
        // A loop that never ran still owns its descriptors.
        if queue.withLock({ $0.lifecycle }) == .created { closeDescriptors() }
        readBuffer.deallocate()
    }

    func start() {
        let started = queue.withLock { q -> Bool in
            guard q.lifecycle == .created else { return false }
            q.lifecycle = .running
            return true
        }
        guard started else { return }
        let t = Thread { [self] in self.run() }
        t.name = "pushdouble-loop-\(index)"
        t.stackSize = 1 << 20
        thread = t
        t.start()
    }

    /// Asks the loop to stop after running the tasks already queued, and waits for it
    /// (returns at once if it is not running).
    func stopAndWait() {
        guard queue.withLock({ $0.lifecycle }) == .running else { return }
        execute { [self] in self.stopping.store(true, ordering: .relaxed) }
        finished.wait()
        finished.signal()  // a second caller waiting concurrently returns too
        thread = nil       // the thread's closure holds the loop: let both go
    }

    // MARK: LoopExecutor

    func execute(_ body: @escaping @Sendable () -> Void) {
        queue.withLock { q in
            guard q.lifecycle != .stopped else { return }
            q.tasks.append(body)
            // Signalled under the lock: the descriptor cannot be closed in between.
            if q.tasks.count == 1 { Posix.eventfdSignal(wakeFD) }
        }
    }

    // MARK: registration (loop thread)

    /// Adds `fd` to the epoll set; returns the registration's generation.
    @discardableResult
    func register(fd: Int32, events: UInt32, _ object: Selectable) throws(PosixError) -> UInt32 {
        let i = Int(fd)
        if i >= registrations.count {
            registrations.append(contentsOf: repeatElement(nil, count: max(i + 1 - registrations.count, 64)))
        }
        let gen = nextGeneration
        nextGeneration &+= 1
        registrations[i] = Registration(generation: gen, object: object)
        try Posix.epollCtl(epfd, EPOLL_CTL_ADD, fd, events: events, data: UInt64(gen) << 32 | UInt64(UInt32(bitPattern: fd)))
        return gen
    }

    func modify(fd: Int32, generation: UInt32, events: UInt32) {
        try? Posix.epollCtl(epfd, EPOLL_CTL_MOD, fd, events: events, data: UInt64(generation) << 32 | UInt64(UInt32(bitPattern: fd)))
    }

    /// Removes `fd` from the epoll set (call before closing it).
    func deregister(fd: Int32) {
        try? Posix.epollCtl(epfd, EPOLL_CTL_DEL, fd, events: 0, data: 0)
        let i = Int(fd)
        if i < registrations.count { registrations[i] = nil }
    }

    /// Every registered object (listeners and connections), for shutdown.
    var registeredObjects: [Selectable] { registrations.compactMap { $0?.object } }

    // MARK: timers (loop thread)

    /// A fresh timer id, for callers that need the id inside the timer's closure.
    func reserveTimerID() -> UInt64 {
        let id = nextTimerID
        nextTimerID &+= 1
        return id
    }

    /// Runs `body` on this loop after `seconds`.
    @discardableResult
    func scheduleTimer(after seconds: Double, id reserved: UInt64? = nil, _ body: @escaping () -> Void) -> UInt64 {
        let id = reserved ?? reserveTimerID()
        let delta = seconds <= 0 ? 0 : UInt64(min(seconds, 1e9) * 1e9)
        timerCallbacks[id] = body
        heapPush(TimerEntry(deadline: Posix.monotonicNanos() &+ delta, id: id))
        return id
    }

    func cancelTimer(_ id: UInt64) {
        // Lazy deletion: the heap entry stays until it reaches the top.
        timerCallbacks.removeValue(forKey: id)
    }

    // MARK: flushing (loop thread)

    /// Queues `f.flushPending()` for the end of the current iteration.
    func enqueueFlush(_ f: Flushable) { flushQueue.append(f) }

    // MARK: the loop

    private func run() {
        // Named from inside: on Linux the name only reaches the OS thread when set by it.
        pd_set_thread_name("pd-loop-\(index)")
        let maxEvents = 256
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: maxEvents)
        defer { events.deallocate() }
        while !stopping.load(ordering: .relaxed) {
            let timeout = nextTimeoutMs()
            let n: Int
            do { n = try Posix.epollWait(epfd, events, Int32(maxEvents), timeoutMs: timeout) } catch { n = 0 }
            for i in 0..<n {
                let ev = events[i]
                let data = ev.data.u64
                if data == Self.wakeData {
                    Posix.eventfdDrain(wakeFD)
                    continue
                }
                let fd = Int(Int32(bitPattern: UInt32(truncatingIfNeeded: data)))
                let gen = UInt32(truncatingIfNeeded: data >> 32)
                guard fd < registrations.count, let reg = registrations[fd], reg.generation == gen else { continue }
                reg.object.handleEvents(ev.events)
            }
            runTasks()
            runTimers()
            runFlushes()
        }
        // Drop every registration; owners close their descriptors in their own shutdown.
        registrations.removeAll()
        timerCallbacks.removeAll()
        timerHeap.removeAll()
        flushQueue.removeAll()
        queue.withLock { q in
            q.lifecycle = .stopped
            q.tasks.removeAll()
        }
        closeDescriptors()
        finished.signal()
    }

    /// Closes the epoll set and the wake eventfd: once the loop's thread has ended (nothing
    /// registers on it any more and ``execute(_:)`` no longer signals), or for a loop that never
    /// started.
    private func closeDescriptors() {
        Posix.close(epfd)
        Posix.close(wakeFD)
    }

    private func runFlushes() {
        while !flushQueue.isEmpty {
            let q = flushQueue
            flushQueue.removeAll(keepingCapacity: true)
            for f in q { f.flushPending() }
        }
    }

    private func runTasks() {
        let batch = queue.withLock { q -> [@Sendable () -> Void] in
            if q.tasks.isEmpty { return [] }
            let b = q.tasks
            q.tasks.removeAll(keepingCapacity: true)
            return b
        }
        for t in batch { t() }
    }

    private func runTimers() {
        guard !timerHeap.isEmpty else { return }
        let now = Posix.monotonicNanos()
        while let top = timerHeap.first, top.deadline <= now {
            heapPop()
            if let cb = timerCallbacks.removeValue(forKey: top.id) { cb() }
        }
    }

    private func nextTimeoutMs() -> Int32 {
        if !queue.withLock({ $0.tasks.isEmpty }) { return 0 }
        if !flushQueue.isEmpty { return 0 }
        // Skip cancelled timers at the top.
        while let top = timerHeap.first, timerCallbacks[top.id] == nil { heapPop() }
        guard let top = timerHeap.first else { return -1 }
        let now = Posix.monotonicNanos()
        if top.deadline <= now { return 0 }
        let ms = (top.deadline - now + 999_999) / 1_000_000
        return Int32(min(ms, 60_000))
    }

    // MARK: binary heap

    private func heapPush(_ e: TimerEntry) {
        timerHeap.append(e)
        var i = timerHeap.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            if timerHeap[p].deadline <= timerHeap[i].deadline { break }
            timerHeap.swapAt(p, i)
            i = p
        }
    }

    private func heapPop() {
        let last = timerHeap.removeLast()
        guard !timerHeap.isEmpty else { return }
        timerHeap[0] = last
        var i = 0
        let n = timerHeap.count
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < n && timerHeap[l].deadline < timerHeap[m].deadline { m = l }
            if r < n && timerHeap[r].deadline < timerHeap[m].deadline { m = r }
            if m == i { break }
            timerHeap.swapAt(i, m)
            i = m
        }
    }
}

/// A fixed set of event loops, one thread each.
final class EventLoopGroup: Sendable {
    let loops: [EventLoop]
    private let next = Atomic<Int>(0)

    init(count: Int) throws(PosixError) {
        var ls: [EventLoop] = []
        for i in 0..<max(1, count) { ls.append(try EventLoop(index: i)) }
        loops = ls
        for l in loops { l.start() }
    }

    func nextLoop() -> EventLoop {
        let i = next.add(1, ordering: .relaxed).newValue
        return loops[i % loops.count]
    }

    func shutdown() { for l in loops { l.stopAndWait() } }
}

/// Holds a loop-confined object weakly so that a `Sendable` closure can carry it back to its
/// loop (HTTP/1.1 body sinks, a connection's deferred read or shedding).
/// `@unchecked Sendable`: `value` is only dereferenced inside closures run by the owning
/// loop's executor, never on the thread that created the box.
struct LoopBound<T: AnyObject>: @unchecked Sendable {
    weak var value: T?
    init(_ value: T) { self.value = value }
}
