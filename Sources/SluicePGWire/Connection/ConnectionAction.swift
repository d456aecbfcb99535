import SluiceAuth
import SluiceCore

/// What the connection handler must do after the state machine took an event: send `messages`,
/// call `PGSession.close` for `closedStatements` and `PGCopyInSink.failed` for `abortedCopies`,
/// then perform `effect`.
package struct ConnectionAction: Sendable, Equatable {
    package var messages: [PGBackendMessage]
    package var closedStatements: [PGPreparedStatement]
    package var abortedCopies: [PGCopyInReference] = []
    package var effect: Effect

    /// The step after sending: carry on, or one call whose outcome comes back as an event.
    package enum Effect: Sendable, Equatable {
        /// Go on with the next client message.
        case readNextMessage
        /// Call `PGBackend.startSession`; report `sessionStarted()` or `sessionFailed(_:)`.
        case startSession(PGStartup)
        /// Call `PGSession.prepare`; report `prepareSucceeded(_:)` or `prepareFailed(_:)`.
        case prepare(String, parameterTypes: [DataType?])
        /// Call `PGSession.execute`; report `executeSucceeded(_:)` or `executeFailed(_:)`.
        case execute(PGPreparedStatement, parameters: [Value])
        /// Once the socket is writable, call the stream's `next()`; report `rowsPulled(_:)` or
        /// `rowsFailed(_:)`.
        case pullRows(PGRowStream)
        /// Call the sink's `received` with the bytes; report `copyDataTaken()` or `copyInFailed(_:)`.
        case sendCopyData(PGCopyInReference, [UInt8])
        /// Call the sink's `received` with the bytes (if any), then `finished`; report
        /// `copyInFinished(_:)` or `copyInFailed(_:)`.
        case finishCopy(PGCopyInReference, [UInt8])
        /// Once the socket is writable, call the stream's `next()`; report `copyDataPulled(_:)`
        /// or `copyOutFailed(_:)`.
        case pullCopyData(PGCopyOutStream)
        /// Cancel the session with this key, if any, then close without a reply.
        case cancel(processID: Int32, secretKey: Int32)
        /// Once the `S` is written, put TLS first in the pipeline (``PGTLS/makeHandler``) and
        /// report `tlsStarted()`.
        case startTLS
        /// Check `password` against `verifier` (a PBKDF2 derivation, milliseconds of work) off the
        /// event loop; report `passwordChecked(_:)`.
        case checkPassword(String, SCRAMVerifier?)
        /// Close the connection.
        case close
        /// A login failed: count it, and send `messages` and close only after a short delay, so
        /// that guessing passwords costs time (the connection's event loop goes on meanwhile).
        case rejectLogin
    }

    package init(messages: [PGBackendMessage] = [], closedStatements: [PGPreparedStatement] = [], effect: Effect = .readNextMessage) {
        self.messages = messages
        self.closedStatements = closedStatements
        self.effect = effect
    }

    /// Sends `messages` and carries on.
    package static func send(_ messages: PGBackendMessage...) -> ConnectionAction {
        ConnectionAction(messages: messages)
    }

    /// Sends a FATAL error and closes, as Postgres does for protocol and authentication failures.
    package static func fail(_ error: SluiceError) -> ConnectionAction {
        ConnectionAction(messages: [.errorResponse(PGErrorFields(.fatal, error))], effect: .close)
    }

    /// A failed login: its FATAL error, sent after the delay.
    package static func rejectLogin(_ error: SluiceError) -> ConnectionAction {
        ConnectionAction(messages: [.errorResponse(PGErrorFields(.fatal, error))], effect: .rejectLogin)
    }
}
