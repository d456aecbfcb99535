import NIOCore
import NIOPosix
import SluiceKafkaProtocol

// SASL authentication (KIP-43, KIP-152): SaslHandshake picks a mechanism; its tokens then come
// in SaslAuthenticate requests, or after a v0 handshake as bare size-prefixed frames. The
// connection's `SASLStateMachine` decides; these methods frame its answers.
extension KafkaBroker {
    /// Answers a SaslHandshake with the enabled mechanisms; an unsupported mechanism (33) closes
    /// the connection after the response, as Kafka does.
    func saslHandshake(_ request: SaslHandshakeRequest, _ header: KafkaRequestHeader, on connection: KafkaConnection) -> ByteBuffer {
        let outcome = connection.sasl.handshakeReceived(mechanism: request.mechanism, version: header.apiVersion)
        if outcome.closesConnection { connection.closesAfterResponse = true }
        let mechanisms = configuration.authentication.mechanisms.map(\.rawValue)
        return encode(SaslHandshakeResponse(errorCode: outcome.errorCode.rawValue, mechanisms: mechanisms), header)
    }

    /// Answers a SaslAuthenticate request: the mechanism's next challenge or final message, or
    /// SASL_AUTHENTICATION_FAILED (58), sent after the failed-login delay and followed by the
    /// close. Sessions do not expire (lifetime 0: no re-authentication, KIP-368).
    func saslAuthenticate(
        _ request: SaslAuthenticateRequest, _ header: KafkaRequestHeader, on connection: KafkaConnection, eventLoop: any EventLoop
    ) -> EventLoopFuture<ByteBuffer?> {
        tokenOutcome(Array(request.authBytes.readableBytesView), on: connection, eventLoop: eventLoop).assumeIsolated().flatMap { outcome in
            self.saslAuthenticateAnswer(outcome, header, on: connection, eventLoop: eventLoop)
        }.nonisolated()
    }

    private func saslAuthenticateAnswer(
        _ outcome: SASLStateMachine.TokenOutcome, _ header: KafkaRequestHeader, on connection: KafkaConnection, eventLoop: any EventLoop
    ) -> EventLoopFuture<ByteBuffer?> {
        switch outcome {
        case .challenge(let bytes), .authenticated(let bytes, _):
            return eventLoop.makeSucceededFuture(encode(SaslAuthenticateResponse(authBytes: ByteBuffer(bytes: bytes)), header))
        case .failed(let message):
            connection.closesAfterResponse = true
            let response = SaslAuthenticateResponse(errorCode: KafkaErrorCode.saslAuthenticationFailed.rawValue, errorMessage: message)
            return failedLogin(answer: encode(response, header), on: eventLoop)
        case .illegalState(let message):
            // After a successful login the connection stays open (Kafka answers so when
            // re-authentication is off); anywhere else the machine has failed and it closes.
            if connection.sasl.principal == nil { connection.closesAfterResponse = true }
            let response = SaslAuthenticateResponse(errorCode: KafkaErrorCode.illegalSaslState.rawValue, errorMessage: message)
            return eventLoop.makeSucceededFuture(encode(response, header))
        }
    }

    /// Answers a bare SASL token (after SaslHandshake v0) with a bare size-prefixed frame. A
    /// failure has no place for an error: the connection closes after the delay, unanswered.
    func rawTokenReceived(_ frame: ByteBuffer, on connection: KafkaConnection, eventLoop: any EventLoop) -> EventLoopFuture<ByteBuffer?> {
        tokenOutcome(Array(frame.readableBytesView), on: connection, eventLoop: eventLoop).assumeIsolated().flatMap { outcome in
            self.rawTokenAnswer(outcome, on: connection, eventLoop: eventLoop)
        }.nonisolated()
    }

    /// What the connection's SASL machine makes of `token`: a PLAIN password is checked on the
    /// thread pool (PBKDF2 takes milliseconds, which the event loop's other connections would
    /// wait for), anything else at once.
    private func tokenOutcome(_ token: [UInt8], on connection: KafkaConnection, eventLoop: any EventLoop) -> EventLoopFuture<SASLStateMachine.TokenOutcome> {
        guard connection.sasl.awaitsPlainToken, configuration.authentication.checksPasswordsOffLoop else {
            return eventLoop.makeSucceededFuture(connection.sasl.tokenReceived(token))
        }
        let users = connection.sasl.users
        return NIOThreadPool.singleton.runIfActive(eventLoop: eventLoop) { SASLStateMachine.plainLogin(token, users: users) }
            .assumeIsolated().map { connection.sasl.plainChecked($0) }.nonisolated()
    }

    private func rawTokenAnswer(_ outcome: SASLStateMachine.TokenOutcome, on connection: KafkaConnection, eventLoop: any EventLoop) -> EventLoopFuture<ByteBuffer?> {
        switch outcome {
        case .challenge(let bytes), .authenticated(let bytes, _):
            var response = ByteBufferAllocator().buffer(capacity: 4 + bytes.count)
            response.writeInteger(Int32(bytes.count))
            response.writeBytes(bytes)
            return eventLoop.makeSucceededFuture(response)
        case .failed:
            connection.closesAfterResponse = true
            return failedLogin(answer: nil, on: eventLoop)
        case .illegalState:
            connection.closesAfterResponse = true
            return eventLoop.makeSucceededFuture(nil)
        }
    }

    /// Counts a refused login and answers it after the delay, scheduled on the event loop
    /// (which goes on serving other connections meanwhile), so guessing passwords is slow.
    private func failedLogin(answer: ByteBuffer?, on eventLoop: any EventLoop) -> EventLoopFuture<ByteBuffer?> {
        failedLoginCount.add(1, ordering: .relaxed)
        return eventLoop.scheduleTask(in: configuration.authentication.failedLoginDelay) { answer }.futureResult
    }
}
