/// A streaming, bounded decoder for raw DEFLATE, zlib and gzip (`InflateFormat`).
///
/// Feed compressed chunks with `feed(_:emit:)` (or `feed(_:)`), then call `finish()` once the
/// input is complete. Output is handed over as soon as it is decoded, in pieces of at most
/// ~32 KiB. The decoder's own memory is fixed at construction (a 64 KiB + 258 B history/output
/// window, ~31 KiB of Huffman tables) whatever the input; output past `InflateLimits` is never
/// produced: the first byte that would cross a limit throws instead.
///
/// Checksums (CRC-32, Adler-32) are verified at each trailer, so output handed over before a
/// trailer is unverified until that trailer has been read (`finish()` returning is the proof for
/// the whole stream). After any error the stream is dead and rethrows the same error.
///
/// Not `Sendable`: one decoder per stream, used from one thread at a time.
public final class InflateStream {
    /// The container this stream decodes.
    public let format: InflateFormat
    /// The bounds in force.
    public let limits: InflateLimits
    /// What bytes after the end of the stream do.
    public let trailingData: TrailingDataPolicy

    /// Compressed bytes fed so far.
    public internal(set) var totalIn = 0
    /// Decoded bytes handed over so far.
    public internal(set) var totalOut = 0
    /// gzip members completed so far (zlib/raw: 1 once the stream ended).
    public internal(set) var membersCompleted = 0

    /// True once a complete stream (every member's trailer verified) has been read.
    public var isComplete: Bool {
        switch phase {
        case .memberEnd, .streamEnd, .ignoringTrailing: return true
        default: return false
        }
    }

    // MARK: State

    enum GzipHeaderStep: Equatable {
        case id1, id2, method, flags, mtime(Int), xfl, os
        case extraLength(Int, Int), extra(Int), name, comment
        /// FEXTRA/FNAME/FCOMMENT are done: FHCRC next, or the DEFLATE data.
        case fieldsDone
        case headerCRC(Int, UInt16)
    }

    enum DynamicStep: Equatable {
        case counts
        case codeLengthCodes(Int)
        case codeLengths(Int)
    }

    enum Phase: Equatable {
        case detectZlibOrRaw
        case zlibHeader
        case gzipHeader(GzipHeaderStep)
        case blockHeader
        case storedLength
        case storedCopy(remaining: Int)
        case dynamicHeader(DynamicStep)
        case huffmanData
        case endOfDeflate
        case trailer(have: Int, bytes: UInt64)
        /// A gzip member is complete; another may start.
        case memberEnd
        /// A raw or zlib stream is complete.
        case streamEnd
        case ignoringTrailing
        case failed(InflateError)
    }

    var phase: Phase
    /// Whether the block being decoded has BFINAL set.
    var lastBlock = false
    /// The effective container once `.zlibOrRaw` has been decided.
    var container: InflateFormat

    // Bit reader: `bitCount` valid bits, LSB first. Bits above may hold copies of the next
    // input bytes (the fast refill loads whole words) and are never trusted.
    var bitBuffer: UInt64 = 0
    var bitCount = 0
    var input: UnsafePointer<UInt8>? = nil
    var inputPos = 0
    var inputEnd = 0
    /// `totalIn` before the chunk being decoded.
    var inputBase = 0

    // Window: history and not-yet-emitted output. Valid history for back-references is
    // `historyStart..<writePos` (reset at each gzip member).
    static let windowSize = 32 * 1024
    static let maxMatch = 258
    static let bufferSize = 2 * windowSize + maxMatch
    let window: UnsafeMutablePointer<UInt8>
    var writePos = 0
    var emitPos = 0
    var historyStart = 0
    /// `writePos` may not pass this: the current output budget, in window coordinates.
    var budgetEnd = 0
    /// Whether the budget comes from the expansion ratio rather than `maxOutputBytes`.
    var budgetIsRatio = false

    // Tables and dynamic-header scratch.
    let literalTable: UnsafeMutablePointer<UInt32>
    let distanceTable: UnsafeMutablePointer<UInt32>
    let codeLengthTable: UnsafeMutablePointer<UInt32>
    let lengths: UnsafeMutablePointer<UInt8>
    var literalCount = 0
    var distanceCount = 0
    var codeLengthCount = 0

    // Checksums of the current member / stream.
    var crc = CRC32()
    var adler = Adler32()
    var memberOut = 0
    var headerCRC = CRC32()
    var gzipFlags: UInt8 = 0

    /// A decoder for `format`, refusing output beyond `limits`.
    public init(format: InflateFormat, limits: InflateLimits, trailingData: TrailingDataPolicy = .reject) {
        self.format = format
        self.limits = limits
        self.trailingData = trailingData
        container = format
        switch format {
        case .raw: phase = .blockHeader
        case .zlib: phase = .zlibHeader
        case .gzip: phase = .gzipHeader(.id1)
        case .zlibOrRaw: phase = .detectZlibOrRaw
        }
        window = .allocate(capacity: Self.bufferSize + 16)
        literalTable = .allocate(capacity: DeflateConstants.literalLengthTableSize)
        distanceTable = .allocate(capacity: DeflateConstants.distanceTableSize)
        codeLengthTable = .allocate(capacity: DeflateConstants.codeLengthTableSize)
        lengths = .allocate(capacity: 320)
        lengths.initialize(repeating: 0, count: 320)
    }

    deinit {
        window.deallocate()
        literalTable.deallocate()
        distanceTable.deallocate()
        codeLengthTable.deallocate()
        lengths.deallocate()
    }

    // MARK: Public API

    /// Decodes `chunk`, handing each piece of output to `emit` (valid only during the call).
    public func feed(_ chunk: UnsafeBufferPointer<UInt8>,
                     emit: (UnsafeBufferPointer<UInt8>) -> Void) throws(InflateError) {
        if case .failed(let error) = phase { throw error }
        input = chunk.baseAddress
        inputPos = 0
        inputEnd = chunk.baseAddress == nil ? 0 : chunk.count
        inputBase = totalIn
        totalIn += inputEnd
        defer { input = nil; inputPos = 0; inputEnd = 0 }
        setBudget()
        do {
            try run(emit: emit)
        } catch {
            phase = .failed(error)
            throw error
        }
    }

    /// Decodes `chunk`, handing each piece of output to `emit`.
    public func feed(_ chunk: [UInt8], emit: (UnsafeBufferPointer<UInt8>) -> Void) throws(InflateError) {
        try chunk.withUnsafeBufferPointer { (p) throws(InflateError) in try feed(p, emit: emit) }
    }

    /// Decodes `chunk` and returns the output it completes (possibly empty).
    public func feed(_ chunk: [UInt8]) throws(InflateError) -> [UInt8] {
        var out: [UInt8] = []
        let limit = limits.maxOutputBytes
        try feed(chunk) { Inflate.appendBounded(&out, $0, limit: limit) }
        return out
    }

    /// Declares the input complete: throws `.truncatedInput` unless a whole stream was read.
    public func finish() throws(InflateError) {
        if case .failed(let error) = phase { throw error }
        let part: StreamPart
        switch phase {
        case .streamEnd, .ignoringTrailing:
            return
        case .memberEnd:
            // A lone 1f waiting for its 8b.
            guard bitCount == 0 else {
                if trailingData == .ignore { return }
                let error = InflateError.trailingData(offset: totalIn - bitCount / 8)
                phase = .failed(error)
                throw error
            }
            return
        case .failed, .detectZlibOrRaw, .blockHeader, .storedLength, .storedCopy, .dynamicHeader, .huffmanData:
            part = .deflateData
        case .zlibHeader: part = .zlibHeader
        case .gzipHeader: part = .gzipHeader
        case .endOfDeflate, .trailer: part = .trailer
        }
        let error = InflateError.truncatedInput(part)
        phase = .failed(error)
        throw error
    }

    // MARK: Driver

    enum Progress {
        /// Keep stepping.
        case proceed
        /// Every input byte is used up.
        case needInput
        /// The window is full: emit, slide, go on.
        case windowFull
        /// Emit pending output (checksums must cover it) and go on.
        case flush
    }

    func run(emit: (UnsafeBufferPointer<UInt8>) -> Void) throws(InflateError) {
        while true {
            switch try step() {
            case .proceed: continue
            case .flush: flush(emit: emit)
            case .windowFull:
                flush(emit: emit)
                slide()
            case .needInput:
                flush(emit: emit)
                return
            }
        }
    }

    func step() throws(InflateError) -> Progress {
        switch phase {
        case .huffmanData: return try huffmanStep()
        case .blockHeader: return try blockHeaderStep()
        case .storedLength: return try storedLengthStep()
        case .storedCopy(let remaining): return try storedCopyStep(remaining: remaining)
        case .dynamicHeader(let s): return try dynamicHeaderStep(s)
        case .endOfDeflate: return endOfDeflateStep()
        case .trailer(let have, let bytes): return try trailerStep(have: have, bytes: bytes)
        case .gzipHeader(let s): return try gzipHeaderStep(s)
        case .zlibHeader: return try zlibHeaderStep()
        case .detectZlibOrRaw: return detectStep()
        case .memberEnd: return try memberEndStep()
        case .streamEnd: return try streamEndStep()
        case .ignoringTrailing:
            bitBuffer = 0
            bitCount = 0
            inputPos = inputEnd
            return .needInput
        case .failed(let error): throw error
        }
    }

    // MARK: Output window

    func flush(emit: (UnsafeBufferPointer<UInt8>) -> Void) {
        let n = writePos - emitPos
        guard n > 0 else { return }
        let piece = UnsafeBufferPointer(start: window + emitPos, count: n)
        switch container {
        case .gzip: crc.update(piece)
        case .zlib: adler.update(piece)
        case .raw, .zlibOrRaw: break
        }
        emit(piece)
        emitPos = writePos
        memberOut += n
        totalOut += n
    }

    /// Keeps the last 32 KiB as history at the start of the window.
    func slide() {
        guard writePos > Self.windowSize else { return }
        let shift = writePos - Self.windowSize
        (window).update(from: window + shift, count: Self.windowSize)
        writePos -= shift
        emitPos -= shift
        historyStart = max(0, historyStart - shift)
        budgetEnd -= shift
    }

    func setBudget() {
        var allowed = limits.maxOutputBytes
        budgetIsRatio = false
        if let ratio = limits.maxExpansionRatio {
            let (product, overflow) = ratio.multipliedReportingOverflow(by: totalIn)
            let byRatio = overflow ? Int.max : max(limits.ratioAllowanceBytes, product)
            if byRatio < allowed {
                allowed = byRatio
                budgetIsRatio = true
            }
        }
        let produced = totalOut + (writePos - emitPos)
        budgetEnd = writePos + min(allowed - produced, Int.max / 4)
    }

    func limitError() -> InflateError {
        if budgetIsRatio {
            return .expansionRatioExceeded(ratio: limits.maxExpansionRatio ?? 0, inputBytes: totalIn,
                                           outputBytes: totalOut + (writePos - emitPos))
        }
        return .outputLimitExceeded(limit: limits.maxOutputBytes)
    }

    // MARK: Bit reader

    /// Offset of the byte holding the next unread bit.
    var offset: Int { inputBase + inputPos - bitCount / 8 }

    /// Tops the bit buffer up byte by byte (to at least 57 bits while input lasts).
    @inline(__always) func refillSlow() {
        if bitCount < 64 { bitBuffer &= (UInt64(1) << UInt64(bitCount)) &- 1 }
        guard let input else { return }
        while bitCount <= 56 && inputPos < inputEnd {
            bitBuffer |= UInt64(input[inputPos]) << UInt64(bitCount)
            bitCount += 8
            inputPos += 1
        }
    }

    @inline(__always) func consume(_ n: Int) {
        bitBuffer >>= UInt64(n)
        bitCount -= n
    }

    /// The next whole byte (the bit buffer must be byte-aligned), or nil when input is used up.
    @inline(__always) func nextByte() -> UInt8? {
        if bitCount >= 8 {
            let b = UInt8(truncatingIfNeeded: bitBuffer)
            consume(8)
            return b
        }
        guard let input, inputPos < inputEnd else { return nil }
        let b = input[inputPos]
        inputPos += 1
        return b
    }

    /// Whether `n` bytes can be read now (bit buffer plus the rest of the chunk).
    @inline(__always) func bytesAvailable() -> Int { bitCount / 8 + (inputEnd - inputPos) }
}
