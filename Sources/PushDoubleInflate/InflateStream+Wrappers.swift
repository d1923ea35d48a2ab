// The containers around DEFLATE data: gzip members (RFC 1952 §2.3), the zlib header and
// trailer (RFC 1950 §2.2), and what may follow the end of a stream.
extension InflateStream {
    // MARK: gzip header (RFC 1952 §2.3.1)

    static let flagText: UInt8 = 0x01, flagHeaderCRC: UInt8 = 0x02, flagExtra: UInt8 = 0x04
    static let flagName: UInt8 = 0x08, flagComment: UInt8 = 0x10, reservedFlags: UInt8 = 0xE0

    func gzipHeaderStep(_ start: GzipHeaderStep) throws(InflateError) -> Progress {
        var s = start
        while true {
            if s == .id1 { headerCRC = CRC32() }
            let at = offset
            guard let byte = nextByte() else {
                phase = .gzipHeader(s)
                return .needInput
            }
            if case .headerCRC = s {} else { headerCRC.update(byte: byte) }
            switch s {
            case .id1:
                guard byte == 0x1F else { throw .notGzip(id1: byte, id2: peekByte() ?? 0, offset: at) }
                s = .id2
            case .id2:
                guard byte == 0x8B else { throw .notGzip(id1: 0x1F, id2: byte, offset: at - 1) }
                s = .method
            case .method:
                guard byte == 8 else { throw .unsupportedCompressionMethod(byte, offset: at) }
                s = .flags
            case .flags:
                guard byte & Self.reservedFlags == 0 else { throw .reservedFlagsSet(byte, offset: at) }
                gzipFlags = byte
                s = .mtime(1)
            case .mtime(let k):
                s = k == 4 ? .xfl : .mtime(k + 1)
            case .xfl:
                s = .os
            case .os, .extraLength, .extra, .name, .comment:
                s = optionalFieldStep(s, byte: byte)
            case .fieldsDone:
                break  // never read in: replaced below before the next byte
            case .headerCRC(let k, let low):
                if k == 1 {
                    s = .headerCRC(2, UInt16(byte))
                    continue
                }
                let expected = low | UInt16(byte) << 8
                let actual = UInt16(truncatingIfNeeded: headerCRC.value)
                guard expected == actual else { throw .headerChecksumMismatch(expected: expected, actual: actual) }
                beginMemberData()
                return .proceed
            }
            if s == .fieldsDone {
                guard gzipFlags & Self.flagHeaderCRC != 0 else {
                    beginMemberData()
                    return .proceed
                }
                s = .headerCRC(1, 0)
            }
        }
    }

    /// OS byte and the FEXTRA, FNAME, FCOMMENT fields, in that order; returns the next step,
    /// `.fieldsDone` once they are all done.
    func optionalFieldStep(_ s: GzipHeaderStep, byte: UInt8) -> GzipHeaderStep {
        switch s {
        case .os:
            return after(.os)
        case .extraLength(let k, let low):
            if k == 1 { return .extraLength(2, Int(byte)) }
            let length = low | Int(byte) << 8
            return length == 0 ? after(.extra(0)) : .extra(length)
        case .extra(let remaining):
            return remaining > 1 ? .extra(remaining - 1) : after(.extra(0))
        case .name:
            return byte == 0 ? after(.name) : .name
        case .comment:
            return byte == 0 ? after(.comment) : .comment
        default:
            return s
        }
    }

    /// The field that follows `field` given FLG.
    func after(_ field: GzipHeaderStep) -> GzipHeaderStep {
        let order: [(GzipHeaderStep, UInt8)] = [(.extraLength(1, 0), Self.flagExtra), (.name, Self.flagName),
                                                (.comment, Self.flagComment)]
        let rank: Int
        switch field {
        case .os: rank = 0
        case .extra: rank = 1
        case .name: rank = 2
        default: rank = 3
        }
        for (step, flag) in order.dropFirst(rank) where gzipFlags & flag != 0 { return step }
        return .fieldsDone
    }

    func peekByte() -> UInt8? {
        if bitCount >= 8 { return UInt8(truncatingIfNeeded: bitBuffer) }
        guard let input, inputPos < inputEnd else { return nil }
        return input[inputPos]
    }

    /// Starts the DEFLATE data of a (new) member: fresh checksums and history.
    func beginMemberData() {
        crc = CRC32()
        adler = Adler32()
        memberOut = 0
        historyStart = writePos
        phase = .blockHeader
    }

    // MARK: zlib (RFC 1950 §2.2)

    func zlibHeaderStep() throws(InflateError) -> Progress {
        refillSlow()
        guard bitCount >= 16 else { return .needInput }
        let cmf = UInt8(truncatingIfNeeded: bitBuffer), flg = UInt8(truncatingIfNeeded: bitBuffer >> 8)
        if let problem = Self.zlibHeaderProblem(cmf: cmf, flg: flg) {
            throw .invalidZlibHeader(problem, cmf: cmf, flg: flg)
        }
        guard flg & 0x20 == 0 else { throw .presetDictionaryUnsupported }
        consume(16)
        beginMemberData()
        return .proceed
    }

    static func zlibHeaderProblem(cmf: UInt8, flg: UInt8) -> ZlibHeaderProblem? {
        if cmf & 0x0F != 8 { return .method }
        if cmf >> 4 > 7 { return .windowSize }
        if (UInt16(cmf) << 8 | UInt16(flg)) % 31 != 0 { return .checkBits }
        return nil
    }

    /// `.zlibOrRaw`: a valid zlib header (FDICT included, which then fails) means zlib.
    func detectStep() -> Progress {
        refillSlow()
        guard bitCount >= 16 else { return .needInput }
        let cmf = UInt8(truncatingIfNeeded: bitBuffer), flg = UInt8(truncatingIfNeeded: bitBuffer >> 8)
        if Self.zlibHeaderProblem(cmf: cmf, flg: flg) == nil {
            container = .zlib
            phase = .zlibHeader
        } else {
            container = .raw
            beginMemberData()
        }
        return .proceed
    }

    // MARK: End of the DEFLATE data, trailers

    func endOfDeflateStep() -> Progress {
        consume(bitCount % 8)
        switch container {
        case .gzip, .zlib:
            phase = .trailer(have: 0, bytes: 0)
            return .flush  // the checksums must cover every byte before the trailer is compared
        case .raw, .zlibOrRaw:
            membersCompleted += 1
            phase = .streamEnd
            return .flush
        }
    }

    func trailerStep(have: Int, bytes: UInt64) throws(InflateError) -> Progress {
        let size = container == .gzip ? 8 : 4
        var have = have, bytes = bytes
        while have < size {
            guard let b = nextByte() else {
                phase = .trailer(have: have, bytes: bytes)
                return .needInput
            }
            bytes |= UInt64(b) << UInt64(8 * have)
            have += 1
        }
        if container == .gzip {
            let expected = UInt32(truncatingIfNeeded: bytes), isize = UInt32(truncatingIfNeeded: bytes >> 32)
            guard expected == crc.value else { throw .crcMismatch(expected: expected, actual: crc.value) }
            let actual = UInt32(truncatingIfNeeded: memberOut)
            guard isize == actual else { throw .sizeMismatch(expected: isize, actual: actual) }
            membersCompleted += 1
            phase = .memberEnd
        } else {
            let expected = UInt32(bigEndian: UInt32(truncatingIfNeeded: bytes))
            guard expected == adler.value else { throw .adlerMismatch(expected: expected, actual: adler.value) }
            membersCompleted += 1
            phase = .streamEnd
        }
        return .proceed
    }

    // MARK: After the end

    /// gzip: 1f 8b starts another member (RFC 1952 §2.2); anything else is trailing data.
    func memberEndStep() throws(InflateError) -> Progress {
        refillSlow()
        guard bitCount >= 8 else { return .needInput }
        let first = UInt8(truncatingIfNeeded: bitBuffer)
        if first == 0x1F {
            guard bitCount >= 16 else { return .needInput }
            if UInt8(truncatingIfNeeded: bitBuffer >> 8) == 0x8B {
                phase = .gzipHeader(.id1)
                return .proceed
            }
        }
        return try trailing()
    }

    func streamEndStep() throws(InflateError) -> Progress {
        refillSlow()
        guard bitCount >= 8 else { return .needInput }
        return try trailing()
    }

    func trailing() throws(InflateError) -> Progress {
        guard trailingData == .ignore else { throw .trailingData(offset: offset) }
        phase = .ignoringTrailing
        return .proceed
    }
}

extension CRC32 {
    /// Extends the CRC with one byte.
    public mutating func update(byte: UInt8) {
        var b = byte
        withUnsafePointer(to: &b) { update(UnsafeBufferPointer(start: $0, count: 1)) }
    }
}
