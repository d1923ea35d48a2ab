// Huffman-coded block data (RFC 1951 §3.2.5): a fast loop while at least 8 input bytes and
// 258 bytes of window remain, and a careful one-symbol step near the end of the input.
extension InflateStream {
    static let fastWindowLimit = bufferSize - maxMatch

    func huffmanStep() throws(InflateError) -> Progress {
        if writePos > Self.fastWindowLimit { return .windowFull }
        if inputEnd - inputPos >= 8 { return try huffmanFast() }
        return try huffmanSlowSymbol()
    }

    /// Decodes symbols until the input or window margin runs out or the block ends.
    /// Each iteration refills to ≥ 56 bits, enough for a length + distance pair (≤ 48 bits).
    func huffmanFast() throws(InflateError) -> Progress {
        guard let input else { return .needInput }
        var bb = bitBuffer & ((UInt64(1) << UInt64(bitCount)) &- 1)
        var bc = UInt64(bitCount)
        var ip = inputPos
        var op = writePos
        let ie = inputEnd - 8
        let out = window
        let lit = literalTable
        let dist = distanceTable
        let history = historyStart
        let budget = budgetEnd
        let limit = Self.fastWindowLimit
        defer {
            bitBuffer = bb
            bitCount = Int(bc)
            inputPos = ip
            writePos = op
        }
        while ip <= ie && op <= limit {
            bb |= UnsafeRawPointer(input + ip).loadUnaligned(as: UInt64.self).littleEndian &<< bc
            ip &+= Int((63 &- bc) >> 3)
            bc |= 56

            var e = lit[Int(bb & 0x3FF)]
            if (e >> 8) & 7 == HuffmanEntry.Kind.subTable.rawValue {
                e = lit[Int(e >> 16) + Int((bb >> 10) & ((1 << UInt64((e >> 4) & 0xF)) &- 1))]
            }
            var n = UInt64(e & 0xF)
            bb >>= n
            bc &-= n
            let kind = (e >> 8) & 7
            if kind == HuffmanEntry.Kind.literal.rawValue {
                guard op < budget else { throw limitErrorAfter(writePos: op) }
                out[op] = UInt8(truncatingIfNeeded: e >> 16)
                op &+= 1
                // A second literal without a refill: ≥ 41 bits remain.
                var e2 = lit[Int(bb & 0x3FF)]
                if (e2 >> 8) & 7 == HuffmanEntry.Kind.subTable.rawValue {
                    e2 = lit[Int(e2 >> 16) + Int((bb >> 10) & ((1 << UInt64((e2 >> 4) & 0xF)) &- 1))]
                }
                if (e2 >> 8) & 7 == HuffmanEntry.Kind.literal.rawValue {
                    guard op < budget else { throw limitErrorAfter(writePos: op) }
                    n = UInt64(e2 & 0xF)
                    bb >>= n
                    bc &-= n
                    out[op] = UInt8(truncatingIfNeeded: e2 >> 16)
                    op &+= 1
                }
                continue
            }
            if kind == HuffmanEntry.Kind.base.rawValue {
                n = UInt64((e >> 4) & 0xF)
                let length = Int(e >> 16) &+ Int(bb & ((1 << n) &- 1))
                bb >>= n
                bc &-= n
                var d = dist[Int(bb & 0xFF)]
                if (d >> 8) & 7 == HuffmanEntry.Kind.subTable.rawValue {
                    d = dist[Int(d >> 16) + Int((bb >> 8) & ((1 << UInt64((d >> 4) & 0xF)) &- 1))]
                }
                n = UInt64(d & 0xF)
                let dkind = (d >> 8) & 7
                guard dkind == HuffmanEntry.Kind.base.rawValue else {
                    throw badDistance(d, at: inputBase + ip - Int(bc / 8))
                }
                bb >>= n
                bc &-= n
                n = UInt64((d >> 4) & 0xF)
                let distance = Int(d >> 16) &+ Int(bb & ((1 << n) &- 1))
                bb >>= n
                bc &-= n
                guard distance <= op &- history else {
                    throw .distanceTooFarBack(distance: distance, available: op - history,
                                              offset: inputBase + ip - Int(bc / 8))
                }
                guard op &+ length <= budget else { throw limitErrorAfter(writePos: op) }
                copyMatch(out: out, at: op, distance: distance, length: length)
                op &+= length
                continue
            }
            if kind == HuffmanEntry.Kind.endOfBlock.rawValue {
                bitBuffer = bb
                afterBlock()
                return .proceed
            }
            throw badLiteral(e, at: inputBase + ip - Int(bc / 8))
        }
        return .proceed
    }

    /// Decodes one symbol (literal, match or end of block) from what is buffered, committing
    /// nothing unless the whole symbol is there.
    func huffmanSlowSymbol() throws(InflateError) -> Progress {
        refillSlow()
        var bb = bitBuffer
        var bc = bitCount
        var e = literalTable[Int(bb & 0x3FF)]
        if HuffmanEntry.kind(e) == HuffmanEntry.Kind.subTable.rawValue {
            e = literalTable[HuffmanEntry.value(e) + Int((bb >> 10) & ((1 << UInt64(HuffmanEntry.extra(e))) - 1))]
        }
        var n = Int(HuffmanEntry.length(e))
        guard n <= bc else { return .needInput }
        bb >>= UInt64(n)
        bc -= n
        switch HuffmanEntry.kind(e) {
        case HuffmanEntry.Kind.literal.rawValue:
            guard writePos < budgetEnd else { throw limitError() }
            window[writePos] = UInt8(truncatingIfNeeded: e >> 16)
            writePos += 1
        case HuffmanEntry.Kind.endOfBlock.rawValue:
            afterBlock()
        case HuffmanEntry.Kind.base.rawValue:
            n = Int(HuffmanEntry.extra(e))
            guard n <= bc else { return .needInput }
            let length = HuffmanEntry.value(e) + Int(bb & ((1 << UInt64(n)) - 1))
            bb >>= UInt64(n)
            bc -= n
            var d = distanceTable[Int(bb & 0xFF)]
            if HuffmanEntry.kind(d) == HuffmanEntry.Kind.subTable.rawValue {
                d = distanceTable[HuffmanEntry.value(d) + Int((bb >> 8) & ((1 << UInt64(HuffmanEntry.extra(d))) - 1))]
            }
            n = Int(HuffmanEntry.length(d))
            guard n <= bc else { return .needInput }
            guard HuffmanEntry.kind(d) == HuffmanEntry.Kind.base.rawValue else { throw badDistance(d, at: offset) }
            bb >>= UInt64(n)
            bc -= n
            n = Int(HuffmanEntry.extra(d))
            guard n <= bc else { return .needInput }
            let distance = HuffmanEntry.value(d) + Int(bb & ((1 << UInt64(n)) - 1))
            bb >>= UInt64(n)
            bc -= n
            guard distance <= writePos - historyStart else {
                throw .distanceTooFarBack(distance: distance, available: writePos - historyStart, offset: offset)
            }
            guard writePos + length <= budgetEnd else { throw limitError() }
            copyMatch(out: window, at: writePos, distance: distance, length: length)
            writePos += length
        default:
            throw badLiteral(e, at: offset)
        }
        bitBuffer = bb
        bitCount = bc
        return .proceed
    }

    @inline(__always) func copyMatch(out: UnsafeMutablePointer<UInt8>, at op: Int, distance: Int, length: Int) {
        var dst = out + op
        var src = dst - distance
        if distance >= 8 {
            // 8 bytes at a time; may write up to 7 bytes past the match (the window has slack),
            // and never reads a byte not yet written since distance ≥ 8.
            let end = dst + length
            repeat {
                UnsafeMutableRawPointer(dst).storeBytes(of: UnsafeRawPointer(src).loadUnaligned(as: UInt64.self),
                                                       as: UInt64.self)
                dst += 8
                src += 8
            } while dst < end
        } else if distance == 1 {
            dst.update(repeating: src.pointee, count: length)
        } else {
            for i in 0..<length { dst[i] = src[i] }
        }
    }

    func limitErrorAfter(writePos op: Int) -> InflateError {
        writePos = op
        return limitError()
    }

    func badLiteral(_ e: UInt32, at offset: Int) -> InflateError {
        if HuffmanEntry.kind(e) == HuffmanEntry.Kind.invalidSymbol.rawValue {
            return .invalidLiteralLengthSymbol(HuffmanEntry.value(e), offset: offset)
        }
        return .invalidCode(.literalLength, offset: offset)
    }

    func badDistance(_ e: UInt32, at offset: Int) -> InflateError {
        if HuffmanEntry.kind(e) == HuffmanEntry.Kind.invalidSymbol.rawValue {
            return .invalidDistanceSymbol(HuffmanEntry.value(e), offset: offset)
        }
        return .invalidCode(.distance, offset: offset)
    }
}
