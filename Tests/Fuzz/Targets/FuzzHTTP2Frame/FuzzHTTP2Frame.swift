import FuzzSupport
import PushDoubleTransport

/// HTTP/2 frame decoder (RFC 9113 §4, §6) fed one connection's bytes.
///
/// Input: an option byte (client preface expected or not, SETTINGS_MAX_FRAME_SIZE), a
/// read-size byte (0: one read; n: reads of n bytes), then the raw byte stream.
/// Invariants: the frames and errors do not depend on how the stream was split into
/// reads; a connection error is sticky; every decoded frame re-encodes (with
/// ``HTTP2FrameEncoder``) to bytes that decode to the same frame.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP2Frame(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let options = input.byte()
    let readSize = Int(input.byte())
    let stream = input.rest()
    let expectPreface = options & 1 != 0
    let maxFrameSize = [HTTP2Limits.defaultMaxFrameSize, 64, HTTP2Limits.maxAllowedFrameSize][Int(options >> 1) % 3]

    var whole = HTTP2FrameDecoder(maxFrameSize: maxFrameSize, expectClientPreface: expectPreface)
    whole.append(stream)
    var events: [Result<HTTP2Frame, HTTP2FrameError>] = []
    drain(&whole, into: &events)

    var split = HTTP2FrameDecoder(maxFrameSize: maxFrameSize, expectClientPreface: expectPreface)
    var splitEvents: [Result<HTTP2Frame, HTTP2FrameError>] = []
    var offset = 0
    let step = readSize == 0 ? max(stream.count, 1) : readSize
    while offset < stream.count {
        let n = min(step, stream.count - offset)
        split.append(UnsafeRawBufferPointer(rebasing: stream[offset..<(offset + n)]))
        offset += n
        drain(&split, into: &splitEvents)
    }
    fuzzCheck(events == splitEvents, "reads of \(readSize) bytes changed the result: \(events) vs \(splitEvents)")

    if case .failure(let first)? = events.last, first.isConnectionError {
        do {
            let frame = try whole.nextFrame()
            fuzzCheck(false, "connection error \(first) not sticky: then \(String(describing: frame))")
        } catch {
            fuzzCheck(error == first, "connection error \(first) became \(error)")
        }
    }

    let encoder = HTTP2FrameEncoder(maxFrameSize: maxFrameSize)
    for case .success(let frame) in events {
        var again = HTTP2FrameDecoder(maxFrameSize: maxFrameSize)
        again.append(contentsOf: encoder.encode(frame))
        do {
            let decoded = try again.nextFrame()
            fuzzCheck(decoded == frame, "round trip changed \(frame) into \(String(describing: decoded))")
            fuzzCheck(again.bufferedByteCount == 0, "round trip left \(again.bufferedByteCount) bytes")
        } catch {
            fuzzCheck(false, "re-encoded \(frame) refused: \(error)")
        }
    }
    return 0
}

/// Takes frames until more bytes are needed or a connection error (a stream error skips
/// only its frame, so decoding continues after it).
private func drain(_ decoder: inout HTTP2FrameDecoder, into events: inout [Result<HTTP2Frame, HTTP2FrameError>]) {
    if case .failure(let e)? = events.last, e.isConnectionError { return }
    while true {
        do {
            guard let frame = try decoder.nextFrame() else { return }
            events.append(.success(frame))
        } catch {
            events.append(.failure(error))
            if error.isConnectionError { return }
        }
    }
}
