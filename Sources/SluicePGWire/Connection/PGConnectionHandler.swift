import NIOCore
import SluiceAuth
import SluiceCore

/// The NIO side of one connection: feeds decoded messages to a ``ConnectionStateMachine`` one
/// at a time and performs its actions — writes, backend calls, closing.
///
/// Backend calls run off the event loop, on the server's ``SessionThreads``. While one runs, further client
/// messages wait in a queue and reads are held back, which keeps per-connection order and
/// applies backpressure to a client that pipelines faster than queries complete.
package final class PGConnectionHandler: ChannelDuplexHandler {
    package typealias InboundIn = PGFrontendMessage
    package typealias OutboundIn = ByteBuffer
    package typealias OutboundOut = ByteBuffer

    private enum Event {
        case message(PGFrontendMessage)
        case decodingFailed(SluiceError)
    }

    private var machine: ConnectionStateMachine
    private let backend: any PGBackend
    private let registry: PGConnectionRegistry
    private let threads: SessionThreads
    private var session: (any PGSession)?
    private var events = CircularBuffer<Event>()
    private var isReadHeld = false
    private var isInactive = false
    private var context: ChannelHandlerContext?
    /// A result or COPY TO stream waiting for the socket to drain before its next chunk is made.
    private var pendingPull: PendingPull?

    private enum PendingPull {
        case rows(PGRowStream)
        case copy(PGCopyOutStream)
    }

    package init(
        configuration: ConnectionStateMachine.Configuration, backend: any PGBackend,
        registry: PGConnectionRegistry, threads: SessionThreads, processID: Int32, secretKey: Int32
    ) {
        machine = ConnectionStateMachine(configuration: configuration, processID: processID, secretKey: secretKey)
        self.backend = backend
        self.registry = registry
        self.threads = threads
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        events.append(.message(unwrapInboundIn(data)))
        processEvents()
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? SluiceError else {
            // I/O errors: nobody is left to tell.
            context.close(promise: nil)
            return
        }
        events.append(.decodingFailed(error))
        processEvents()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        isInactive = true
        events.removeAll()
        let wasAwaitingBackend = machine.isAwaitingBackend
        let copyIn = machine.activeCopyIn
        machine.connectionClosed()
        if !wasAwaitingBackend { copyIn?.failed() }
        if pendingPull != nil {
            // A result was waiting for the client to read: nothing is running, the rest is dropped.
            pendingPull = nil
            terminateSession()
        } else if wasAwaitingBackend {
            // The call's completion terminates the session; meanwhile stop it early.
            session?.cancel()
        } else {
            terminateSession()
        }
        context.fireChannelInactive()
    }

    package func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let pending = pendingPull {
            pendingPull = nil
            switch pending {
            case .rows(let stream): pull(stream)
            case .copy(let stream): pullCopy(stream)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    package func read(context: ChannelHandlerContext) {
        if machine.isAwaitingBackend || !events.isEmpty {
            isReadHeld = true
        } else {
            context.read()
        }
    }

    // MARK: - Driving the state machine

    private func processEvents() {
        guard let context else { return }
        while !machine.isAwaitingBackend, !isInactive, let event = events.popFirst() {
            refreshTransactionStatus()
            switch event {
            case .message(let message): perform(machine.messageReceived(message))
            case .decodingFailed(let error): perform(machine.decodingFailed(error))
            }
        }
        guard !machine.isAwaitingBackend, !isInactive else { return }
        context.flush()
        if isReadHeld {
            isReadHeld = false
            context.read()
        }
    }

    private func refreshTransactionStatus() {
        if let session { machine.transactionStatus = session.transactionStatus }
    }

    /// How long a refused login waits before its error and the close.
    package static let failedLoginDelay = TimeAmount.milliseconds(250)

    private func perform(_ action: ConnectionAction) {
        guard let context else { return }
        if case .rejectLogin = action.effect {
            registry.failedLogins.add(1, ordering: .relaxed)
            var buffer = context.channel.allocator.buffer(capacity: 256)
            for message in action.messages { message.encode(into: &buffer) }
            context.eventLoop.assumeIsolated().scheduleTask(in: Self.failedLoginDelay) {
                context.writeAndFlush(self.wrapOutboundOut(buffer)).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            }
            return
        }
        var writeFuture: EventLoopFuture<Void>?
        if !action.messages.isEmpty {
            var buffer = context.channel.allocator.buffer(capacity: 256)
            for message in action.messages { message.encode(into: &buffer) }
            writeFuture = context.write(wrapOutboundOut(buffer))
        }
        for statement in action.closedStatements { session?.close(statement) }
        for copy in action.abortedCopies { copy.sink.failed() }

        switch action.effect {
        case .readNextMessage:
            break
        case .startSession(let startup):
            context.flush()
            let backend = self.backend
            runOffLoop { () throws(SluiceError) in try backend.startSession(startup) } completion: { handler, result in
                handler.sessionStartCompleted(result)
            }
        case .prepare(let sql, let parameterTypes):
            guard let session else { return perform(machine.prepareFailed(.internalError("prepare without a session"))) }
            context.flush()
            runOffLoop { () async throws(SluiceError) in try await session.prepare(sql, parameterTypes: parameterTypes) } completion: { handler, result in
                handler.refreshTransactionStatus()
                switch result {
                case .success(let statements): handler.perform(handler.machine.prepareSucceeded(statements))
                case .failure(let error): handler.perform(handler.machine.prepareFailed(error))
                }
                handler.afterBackendCall()
            }
        case .execute(let statement, let parameters):
            guard let session else { return perform(machine.executeFailed(.internalError("execute without a session"))) }
            context.flush()
            runOffLoop { () async throws(SluiceError) in try await session.execute(statement, parameters: parameters) } completion: { handler, result in
                handler.refreshTransactionStatus()
                switch result {
                case .success(let result): handler.perform(handler.machine.executeSucceeded(result))
                case .failure(let error): handler.perform(handler.machine.executeFailed(error))
                }
                handler.afterBackendCall()
            }
        case .pullRows(let stream):
            context.flush()
            pull(stream)
        case .sendCopyData(let copy, let data):
            let sink = copy.sink
            runOffLoop { () async throws(SluiceError) in try sink.received(data) } completion: { handler, result in
                handler.refreshTransactionStatus()
                switch result {
                case .success: handler.perform(handler.machine.copyDataTaken())
                case .failure(let error): handler.perform(handler.machine.copyInFailed(error))
                }
                handler.afterBackendCall()
            }
        case .finishCopy(let copy, let data):
            context.flush()
            let sink = copy.sink
            runOffLoop { () async throws(SluiceError) -> String in
                if !data.isEmpty { try sink.received(data) }
                return try await sink.finished()
            } completion: { handler, result in
                handler.refreshTransactionStatus()
                switch result {
                case .success(let tag): handler.perform(handler.machine.copyInFinished(tag))
                case .failure(let error): handler.perform(handler.machine.copyInFailed(error))
                }
                handler.afterBackendCall()
            }
        case .pullCopyData(let stream):
            context.flush()
            pullCopy(stream)
        case .checkPassword(let password, let verifier):
            guard machine.configuration.checksPasswordsOffLoop else {
                return perform(machine.passwordChecked(verifier?.matches(password: password) ?? false))
            }
            context.flush()
            runOffLoop { () throws(SluiceError) in verifier?.matches(password: password) ?? false } completion: { handler, result in
                handler.perform(handler.machine.passwordChecked((try? result.get()) ?? false))
                handler.afterBackendCall()
            }
        case .cancel(let processID, let secretKey):
            registry.cancel(processID: processID, secretKey: secretKey)
            context.close(promise: nil)
        case .close:
            context.flush()
            if let writeFuture {
                writeFuture.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            } else {
                context.close(promise: nil)
            }
        case .rejectLogin:
            break
        case .startTLS:
            guard let tls = machine.configuration.tls, let writeFuture else { return context.close(promise: nil) }
            context.flush()
            // The `S` goes out in clear; the client's handshake comes after it, through TLS.
            writeFuture.assumeIsolated().whenComplete { result in
                do {
                    guard case .success = result else { throw ChannelError.ioOnClosedChannel }
                    try context.pipeline.syncOperations.addHandler(try tls.makeHandler(), position: .first)
                    self.machine.tlsStarted()
                } catch {
                    context.close(promise: nil)
                }
            }
        }
    }

    /// Makes a result stream's next chunk off the event loop, once the socket takes more: the
    /// client's reading paces the query.
    private func pull(_ stream: PGRowStream) {
        guard let context else { return }
        guard context.channel.isWritable else {
            pendingPull = .rows(stream)
            return
        }
        runOffLoop { () async throws(SluiceError) in try stream.next() } completion: { handler, result in
            handler.refreshTransactionStatus()
            switch result {
            case .success(let chunk): handler.perform(handler.machine.rowsPulled(chunk))
            case .failure(let error): handler.perform(handler.machine.rowsFailed(error))
            }
            handler.afterBackendCall()
        }
    }

    /// Makes a COPY TO stream's next rows off the event loop, once the socket takes more.
    private func pullCopy(_ stream: PGCopyOutStream) {
        guard let context else { return }
        guard context.channel.isWritable else {
            pendingPull = .copy(stream)
            return
        }
        runOffLoop { () async throws(SluiceError) in try stream.next() } completion: { handler, result in
            handler.refreshTransactionStatus()
            switch result {
            case .success(let lines): handler.perform(handler.machine.copyDataPulled(lines))
            case .failure(let error): handler.perform(handler.machine.copyOutFailed(error))
            }
            handler.afterBackendCall()
        }
    }

    private func sessionStartCompleted(_ result: Result<any PGSession, SluiceError>) {
        switch result {
        case .success(let session):
            self.session = session
            registry.register(session, processID: machine.processID, secretKey: machine.secretKey)
            refreshTransactionStatus()
            perform(machine.sessionStarted())
        case .failure(let error):
            perform(machine.sessionFailed(error))
        }
        afterBackendCall()
    }

    private func afterBackendCall() {
        if isInactive {
            terminateSession()
        } else {
            processEvents()
        }
    }

    private func terminateSession() {
        guard let session else { return }
        self.session = nil
        registry.unregister(processID: machine.processID)
        session.terminate()
    }

    /// Runs `work` on the session threads and hands its result back on the event loop.
    private func runOffLoop<Success: Sendable>(
        _ work: @escaping @Sendable () async throws(SluiceError) -> Success,
        completion: @escaping (PGConnectionHandler, Result<Success, SluiceError>) -> Void
    ) {
        guard let context else { return }
        let promise = context.eventLoop.makePromise(of: Result<Success, SluiceError>.self)
        Task(executorPreference: threads) {
            do throws(SluiceError) {
                promise.succeed(.success(try await work()))
            } catch {
                promise.succeed(.failure(error))
            }
        }
        promise.futureResult.assumeIsolated().whenSuccess { result in
            completion(self, result)
        }
    }
}
