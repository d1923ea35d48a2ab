/// What ``HTTP2ServerSession`` asks of the connection around it, in the order it must be
/// done. Frames to write are not actions: they collect in the session's output buffer, which
/// the adapter writes once at the end of each event.
enum HTTP2ServerAction {
    /// A complete request on this stream for ``Responder/respond(to:context:)``, taken with
    /// ``HTTP2ServerSession/takeDelivery()`` (kept out of the action, which stays cheap to
    /// move and destroy); its answer goes back through ``HTTP2ServerSession/respond(to:with:)``.
    /// Always the last action of its list.
    case deliver(streamID: UInt32)
    /// A limit refused a request before it was complete: ask
    /// ``Responder/limitExceeded(_:head:context:)`` and bring the answer back through
    /// ``HTTP2ServerSession/answerLimit(streamID:response:)``. Always the last action of its list.
    case limitExceeded(LimitViolation, head: HTTPRequest)
    /// ``Responder/streamRefused(_:head:context:)``: a stream turned away unprocessed.
    case streamRefused(StreamRefusal, head: HTTPRequest)
    /// ``Responder/responseCompleted(for:outcome:)``: a request's response is done (or abandoned).
    case responseCompleted(RequestInfo, ResponseOutcome)
    /// Run ``HTTP2ServerSession/timerFired(_:now:pendingWriteBytes:)`` with the event after
    /// that many seconds, unless cancelled first.
    case schedule(HTTP2ServerTimerID, after: Double, HTTP2ServerTimerEvent)
    case cancelTimer(HTTP2ServerTimerID)
    /// Start a streamed response's source on a sink whose writes come back through
    /// ``HTTP2ServerSession/bodyWrite(streamID:_:)`` and ``HTTP2ServerSession/bodyFinish(streamID:)``.
    case startBody(streamID: UInt32, source: any ResponseBodySource)
    /// Close the stream's sink (its stream is gone).
    case closeBody(streamID: UInt32)
    /// Stop / resume reading: frames already read wait for the next turn of the loop.
    case pauseInput, resumeInput
    /// Write what is queued, then close the connection.
    case close
    /// Close the connection at once (the queued output is dropped).
    case abort
    /// Left in the slot of an action the adapter has taken out of the session's buffer
    /// (``HTTP2ServerSession/takeAction(at:)``); never carried out.
    case carriedOut
}

/// Names one timer of an ``HTTP2ServerSession``, unique for the connection's life.
typealias HTTP2ServerTimerID = UInt64

/// What a due timer means to the session.
enum HTTP2ServerTimerEvent {
    /// The connection may have been idle for `ServerLimits.idleTimeout`.
    case idle
    /// A header block or request body may have been arriving for `requestReadTimeout`.
    case readTimeout
    /// Frames already read wait for this turn (`ServerLimits.maxFramesPerTurn`).
    case backlog
    /// ``ResponseAction/delayed(seconds:then:)`` is due.
    case delayed(streamID: UInt32, ResponseAction)
    /// ``ResponseAction/heldUntilGoAway(maxSeconds:then:)`` waited its longest.
    case heldUntilGoAway(streamID: UInt32)
    /// The next piece of a dribbled body may go.
    case dribble(streamID: UInt32, chunkSize: Int, interval: Double)
    /// `.truncate`: check whether the partial body is written, then abort.
    case abortWhenWritten(attempt: Int)
}
