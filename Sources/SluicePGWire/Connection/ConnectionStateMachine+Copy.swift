import SluiceCore

// "COPY Operations" in "Message Flow": CopyInResponse, then CopyData … CopyDone or CopyFail
// from the client; CopyOutResponse, CopyData per row and CopyDone to it.
extension ConnectionStateMachine {
    /// The statement a COPY runs for, and so where the protocol goes on once it ends.
    package enum CopyOrigin: Sendable {
        /// A statement of a simple query; the rest of them follow.
        case simple(statements: [PGPreparedStatement], nextIndex: Int)
        /// Execute of the portal of this name.
        case extended(portalName: String)
    }

    /// A `COPY … FROM STDIN` in progress.
    package struct CopyInProgress: Sendable {
        var sink: PGCopyInReference
        var origin: CopyOrigin
        /// CopyData not yet handed to the sink: small messages (psql sends one per line) are
        /// passed on together, up to ``copyInBatchBytes``.
        var pending = CopyInBuffer()
        /// A call of the sink runs; client messages wait.
        var isBusy = false
    }

    /// The CopyData bytes gathered before the sink is called.
    static let copyInBatchBytes = 256 << 10

    /// The sink of the COPY FROM STDIN in progress, if any: the handler tells it when the
    /// connection goes away.
    package var activeCopyIn: (any PGCopyInSink)? {
        if case .copyIn(let progress) = state { return progress.sink.sink }
        return nil
    }

    /// `execute` returned a COPY: enters copy-in or copy-out mode.
    mutating func copyStarted(_ result: PGStatementResult, origin: CopyOrigin) -> ConnectionAction {
        var messages = Self.noticeMessages(result)
        if let sink = result.copyIn {
            messages.append(.copyInResponse(columnCount: sink.columnCount))
            enter(.copyIn(CopyInProgress(sink: PGCopyInReference(sink), origin: origin)))
            return ConnectionAction(messages: messages)
        }
        guard let stream = result.copyOut else { return closed(with: .fail(.internalError("a COPY result without a copy"))) }
        messages.append(.copyOutResponse(columnCount: stream.columnCount))
        enter(.copyOut(stream, origin: origin))
        return ConnectionAction(messages: messages, effect: .pullCopyData(stream))
    }

    /// A client message during copy-in mode.
    mutating func copyInMessageReceived(_ message: PGFrontendMessage, progress: CopyInProgress) -> ConnectionAction {
        var progress = progress
        switch message {
        case .copyData(let bytes):
            progress.pending.bytes += bytes
            guard progress.pending.bytes.count >= Self.copyInBatchBytes else { return ConnectionAction() }
            let data = progress.pending.take()
            progress.isBusy = true
            enter(.copyIn(progress))
            return ConnectionAction(effect: .sendCopyData(progress.sink, data))
        case .copyDone:
            let data = progress.pending.take()
            progress.isBusy = true
            enter(.copyIn(progress))
            return ConnectionAction(effect: .finishCopy(progress.sink, data))
        case .copyFail(let reason):
            var action = copyEnded(SluiceError(.queryCanceled, "COPY from stdin failed: \(reason)"), origin: progress.origin)
            action.abortedCopies = [progress.sink]
            return action
        case .sync, .flush:
            // The protocol has the server ignore them in copy-in mode (pg8000 sends Sync right
            // after Execute).
            return ConnectionAction()
        case .terminate:
            var action = closed(with: ConnectionAction(effect: .close))
            action.abortedCopies = [progress.sink]
            return action
        case .query, .parse, .bind, .describe, .execute, .close:
            var action = copyEnded(
                SluiceError(.protocolViolation, "unexpected message type during COPY from stdin"), origin: progress.origin)
            action.abortedCopies = [progress.sink]
            return action
        case .authenticationResponse, .startup, .sslRequest, .gssEncryptionRequest, .cancelRequest:
            return closed(with: .fail(SluiceError(.protocolViolation, "unexpected message type during COPY from stdin")))
        }
    }

    /// The sink took a batch of CopyData.
    package mutating func copyDataTaken() -> ConnectionAction {
        switch state {
        case .copyIn(var progress) where progress.isBusy:
            progress.isBusy = false
            enter(.copyIn(progress))
            return ConnectionAction()
        case .closed:
            return ConnectionAction(effect: .close)
        case .awaitingStartup, .authenticating, .startingSession, .ready, .simpleQuery, .extendedQuery, .extendedQueryFailed,
             .copyIn, .copyOut:
            return closed(with: .fail(.internalError("copy data was taken while none was sent")))
        }
    }

    /// The sink finished the COPY after CopyDone.
    package mutating func copyInFinished(_ commandTag: String) -> ConnectionAction {
        switch state {
        case .copyIn(let progress) where progress.isBusy:
            return copyCompleted([.commandComplete(commandTag)], commandTag: commandTag, origin: progress.origin)
        case .closed:
            return ConnectionAction(effect: .close)
        case .awaitingStartup, .authenticating, .startingSession, .ready, .simpleQuery, .extendedQuery, .extendedQueryFailed,
             .copyIn, .copyOut:
            return closed(with: .fail(.internalError("a copy finished while none was running")))
        }
    }

    /// The sink refused the data: the COPY ends with `error`; CopyData the client still sends
    /// is ignored.
    package mutating func copyInFailed(_ error: SluiceError) -> ConnectionAction {
        switch state {
        case .copyIn(let progress) where progress.isBusy:
            return copyEnded(error, origin: progress.origin)
        case .closed:
            return ConnectionAction(effect: .close)
        case .awaitingStartup, .authenticating, .startingSession, .ready, .simpleQuery, .extendedQuery, .extendedQueryFailed,
             .copyIn, .copyOut:
            return closed(with: .fail(.internalError("a copy failed while none was running")))
        }
    }

    /// A COPY TO stream gave its next lines (nil: it ended).
    package mutating func copyDataPulled(_ lines: [[UInt8]]?) -> ConnectionAction {
        switch state {
        case .copyOut(let stream, let origin):
            guard let lines else {
                let tag = stream.commandTag
                return copyCompleted([.copyDone, .commandComplete(tag)], commandTag: tag, origin: origin)
            }
            return ConnectionAction(messages: lines.map(PGBackendMessage.copyData), effect: .pullCopyData(stream))
        case .closed:
            return ConnectionAction(effect: .close)
        case .awaitingStartup, .authenticating, .startingSession, .ready, .simpleQuery, .extendedQuery, .extendedQueryFailed, .copyIn:
            return closed(with: .fail(.internalError("copy data arrived while none was asked for")))
        }
    }

    /// A COPY TO stream failed part way: the error follows the rows sent.
    package mutating func copyOutFailed(_ error: SluiceError) -> ConnectionAction {
        switch state {
        case .copyOut(_, let origin):
            return copyEnded(error, origin: origin)
        case .closed:
            return ConnectionAction(effect: .close)
        case .awaitingStartup, .authenticating, .startingSession, .ready, .simpleQuery, .extendedQuery, .extendedQueryFailed, .copyIn:
            return closed(with: .fail(.internalError("copy data failed while none was asked for")))
        }
    }

    private mutating func copyCompleted(_ messages: [PGBackendMessage], commandTag: String, origin: CopyOrigin) -> ConnectionAction {
        switch origin {
        case .simple(let statements, let nextIndex):
            enter(.simpleQuery(.executing(statements: statements, nextIndex: nextIndex)))
            return simpleStatementDone(messages, statements: statements, nextIndex: nextIndex)
        case .extended(let portalName):
            enter(.extendedQuery(.awaitingMessage))
            portals[portalName]?.progress = .completed(commandTag: commandTag)
            return ConnectionAction(messages: messages)
        }
    }

    private mutating func copyEnded(_ error: SluiceError, origin: CopyOrigin) -> ConnectionAction {
        switch origin {
        case .simple(let statements, _):
            return simpleQueryFailed(error, statements: statements)
        case .extended(let portalName):
            portals[portalName]?.progress = .completed(commandTag: "")
            return extendedQueryFailed(error)
        }
    }
}

/// A COPY FROM sink as an action carries it: equal when it is the same object.
package struct PGCopyInReference: Sendable, Equatable {
    package let sink: any PGCopyInSink

    init(_ sink: any PGCopyInSink) {
        self.sink = sink
    }

    package static func == (lhs: PGCopyInReference, rhs: PGCopyInReference) -> Bool { lhs.sink === rhs.sink }
}

/// The CopyData bytes gathered for the sink. A class, so that appending to it inside the
/// state enum does not copy the bytes gathered so far (the connection's one event loop is its
/// only user).
package final class CopyInBuffer: @unchecked Sendable {
    var bytes: [UInt8] = []

    /// The bytes, leaving the buffer empty.
    func take() -> [UInt8] {
        defer { bytes = [] }
        return bytes
    }
}
