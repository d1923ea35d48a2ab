// RFC 1951 block decoding: block headers, stored blocks, dynamic headers, Huffman data.
extension InflateStream {
    // MARK: Block header (RFC 1951 §3.2.3)

    func blockHeaderStep() throws(InflateError) -> Progress {
        refillSlow()
        guard bitCount >= 3 else { return .needInput }
        let at = offset
        lastBlock = bitBuffer & 1 != 0
        let type = (bitBuffer >> 1) & 3
        consume(3)
        switch type {
        case 0:
            consume(bitCount % 8)
            phase = .storedLength
        case 1:
            buildFixedTables()
            phase = .huffmanData
        case 2:
            phase = .dynamicHeader(.counts)
        default:
            throw .invalidBlockType(offset: at)
        }
        return .proceed
    }

    func afterBlock() {
        phase = lastBlock ? .endOfDeflate : .blockHeader
    }

    // MARK: Stored blocks (RFC 1951 §3.2.4)

    func storedLengthStep() throws(InflateError) -> Progress {
        refillSlow()
        guard bitCount >= 32 else { return .needInput }
        let len = UInt16(truncatingIfNeeded: bitBuffer)
        let nlen = UInt16(truncatingIfNeeded: bitBuffer >> 16)
        guard len == ~nlen else { throw .storedLengthMismatch(len: len, nlen: nlen, offset: offset) }
        consume(32)
        phase = .storedCopy(remaining: Int(len))
        return .proceed
    }

    func storedCopyStep(remaining: Int) throws(InflateError) -> Progress {
        var left = remaining
        // Whole bytes already in the bit buffer come first.
        while left > 0 && bitCount >= 8 && writePos < Self.bufferSize {
            guard writePos < budgetEnd else { throw limitError() }
            window[writePos] = UInt8(truncatingIfNeeded: bitBuffer)
            writePos += 1
            consume(8)
            left -= 1
        }
        if left > 0, bitCount == 0, let input {
            let n = min(left, Self.bufferSize - writePos, inputEnd - inputPos)
            if n > 0 {
                guard writePos + n <= budgetEnd else { throw limitError() }
                (window + writePos).update(from: input + inputPos, count: n)
                writePos += n
                inputPos += n
                left -= n
            }
        }
        if left == 0 {
            afterBlock()
            return .proceed
        }
        phase = .storedCopy(remaining: left)
        return writePos >= Self.bufferSize ? .windowFull : .needInput
    }

    // MARK: Dynamic block header (RFC 1951 §3.2.7)

    func dynamicHeaderStep(_ s: DynamicStep) throws(InflateError) -> Progress {
        switch s {
        case .counts:
            refillSlow()
            guard bitCount >= 14 else { return .needInput }
            let hlit = Int(bitBuffer & 31) + 257
            let hdist = Int((bitBuffer >> 5) & 31) + 1
            let hclen = Int((bitBuffer >> 10) & 15) + 4
            guard hlit <= 286 && hdist <= 30 else {
                throw .tooManyLengthOrDistanceSymbols(literalLength: hlit, distance: hdist, offset: offset)
            }
            consume(14)
            literalCount = hlit
            distanceCount = hdist
            codeLengthCount = hclen
            lengths.update(repeating: 0, count: 19)
            phase = .dynamicHeader(.codeLengthCodes(0))
            return .proceed
        case .codeLengthCodes(var i):
            while i < codeLengthCount {
                refillSlow()
                guard bitCount >= 3 else {
                    phase = .dynamicHeader(.codeLengthCodes(i))
                    return .needInput
                }
                lengths[DeflateConstants.codeLengthOrder[i]] = UInt8(bitBuffer & 7)
                consume(3)
                i += 1
            }
            if let problem = HuffmanBuilder.build(lengths: lengths, count: 19, tree: .codeLengths,
                                                  rootBits: DeflateConstants.codeLengthRootBits,
                                                  table: codeLengthTable,
                                                  capacity: DeflateConstants.codeLengthTableSize) {
                throw .invalidHuffmanTree(.codeLengths, problem, offset: offset)
            }
            lengths.update(repeating: 0, count: 320)
            phase = .dynamicHeader(.codeLengths(0))
            return .proceed
        case .codeLengths(let start):
            return try codeLengthsStep(start)
        }
    }

    func codeLengthsStep(_ start: Int) throws(InflateError) -> Progress {
        var i = start
        let total = literalCount + distanceCount
        let mask = UInt64(DeflateConstants.codeLengthTableSize - 1)
        while i < total {
            refillSlow()
            let e = codeLengthTable[Int(bitBuffer & mask)]
            let len = Int(HuffmanEntry.length(e))
            guard len <= bitCount else {
                phase = .dynamicHeader(.codeLengths(i))
                return .needInput
            }
            let sym = HuffmanEntry.value(e)
            if sym < 16 {
                consume(len)
                lengths[i] = UInt8(sym)
                i += 1
                continue
            }
            let extraBits = sym == 16 ? 2 : sym == 17 ? 3 : 7
            guard len + extraBits <= bitCount else {
                phase = .dynamicHeader(.codeLengths(i))
                return .needInput
            }
            let extra = Int((bitBuffer >> UInt64(len)) & ((1 << UInt64(extraBits)) - 1))
            let value: UInt8
            let count: Int
            switch sym {
            case 16:
                guard i > 0 else { throw .repeatWithoutPreviousLength(offset: offset) }
                value = lengths[i - 1]
                count = 3 + extra
            case 17:
                value = 0
                count = 3 + extra
            default:
                value = 0
                count = 11 + extra
            }
            guard i + count <= total else { throw .codeLengthRepeatOverflow(offset: offset) }
            consume(len + extraBits)
            (lengths + i).update(repeating: value, count: count)
            i += count
        }
        guard lengths[256] != 0 else { throw .missingEndOfBlockCode(offset: offset) }
        if let problem = HuffmanBuilder.build(lengths: lengths, count: literalCount, tree: .literalLength,
                                              rootBits: DeflateConstants.literalLengthRootBits,
                                              table: literalTable,
                                              capacity: DeflateConstants.literalLengthTableSize) {
            throw .invalidHuffmanTree(.literalLength, problem, offset: offset)
        }
        if let problem = HuffmanBuilder.build(lengths: lengths + literalCount, count: distanceCount, tree: .distance,
                                              rootBits: DeflateConstants.distanceRootBits,
                                              table: distanceTable,
                                              capacity: DeflateConstants.distanceTableSize) {
            throw .invalidHuffmanTree(.distance, problem, offset: offset)
        }
        phase = .huffmanData
        return .proceed
    }

    // MARK: Fixed code (RFC 1951 §3.2.6)

    func buildFixedTables() {
        let l = lengths
        (l + 0).update(repeating: 8, count: 144)
        (l + 144).update(repeating: 9, count: 112)
        (l + 256).update(repeating: 7, count: 24)
        (l + 280).update(repeating: 8, count: 8)
        _ = HuffmanBuilder.build(lengths: l, count: 288, tree: .literalLength,
                                 rootBits: DeflateConstants.literalLengthRootBits, table: literalTable,
                                 capacity: DeflateConstants.literalLengthTableSize)
        l.update(repeating: 5, count: 32)
        _ = HuffmanBuilder.build(lengths: l, count: 32, tree: .distance,
                                 rootBits: DeflateConstants.distanceRootBits, table: distanceTable,
                                 capacity: DeflateConstants.distanceTableSize)
    }
}
