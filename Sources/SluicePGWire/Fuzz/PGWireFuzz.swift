import NIOCore
import SluiceCore

/// An entry point for fuzzers: runs arbitrary client bytes through the decoder and the
/// connection state machine, answering backend calls with a fixed fake backend.
///
/// No input may crash it. A libFuzzer or CLI driver calls ``run(_:)`` with each input.
package enum PGWireFuzz {
    /// How a run ended.
    package enum Outcome: Equatable, Sendable {
        /// The input ran out with the connection still open.
        case awaitingInput
        /// The machine closed the connection; `lastMessage` is what it sent last, if anything.
        case closed(lastMessage: PGBackendMessage?)
    }

    /// Feeds `bytes` as one connection's input stream and returns how it ended.
    @discardableResult
    package static func run(_ bytes: [UInt8]) -> Outcome {
        var decoder = PGFrontendMessageDecoder(maxMessageLength: 1 << 16)
        var machine = ConnectionStateMachine(configuration: .init(makeNonce: { "fuzznonce" }), processID: 1, secretKey: 2)
        var buffer = ByteBuffer(bytes: bytes)
        var lastMessage: PGBackendMessage?
        while true {
            var action: ConnectionAction
            do throws(SluiceError) {
                guard let message = try decoder.decodeMessage(from: &buffer) else { return .awaitingInput }
                action = machine.messageReceived(message)
            } catch {
                action = machine.decodingFailed(error)
            }
            // Answer backend calls until the machine waits for the client again.
            while true {
                lastMessage = action.messages.last ?? lastMessage
                switch action.effect {
                case .readNextMessage:
                    break
                case .startSession:
                    action = machine.sessionStarted()
                    continue
                case .checkPassword(let password, let verifier):
                    action = machine.passwordChecked(verifier?.matches(password: password) ?? false)
                    continue
                case .prepare(let sql, let parameterTypes):
                    action = sql.contains("fail")
                        ? machine.prepareFailed(SluiceError(.syntaxError, "syntax error at or near \"fail\"", position: 1))
                        : machine.prepareSucceeded(fakeStatements(sql, parameterTypes: parameterTypes))
                    continue
                case .execute(let statement, _):
                    action = statement.sql.contains("boom")
                        ? machine.executeFailed(SluiceError(.divisionByZero, "division by zero"))
                        : machine.executeSucceeded(fakeResult(rowCount: statement.sql.count % 5, streamed: statement.sql))
                    continue
                case .pullRows(let stream):
                    do throws(SluiceError) {
                        action = machine.rowsPulled(try stream.next())
                    } catch {
                        action = machine.rowsFailed(error)
                    }
                    continue
                case .sendCopyData(let copy, let data):
                    do throws(SluiceError) {
                        try copy.sink.received(data)
                        action = machine.copyDataTaken()
                    } catch {
                        action = machine.copyInFailed(error)
                    }
                    continue
                case .finishCopy(let copy, let data):
                    guard let sink = copy.sink as? FakeCopySink else { return .closed(lastMessage: lastMessage) }
                    do throws(SluiceError) {
                        try sink.received(data)
                        action = machine.copyInFinished(try sink.finishedNow())
                    } catch {
                        action = machine.copyInFailed(error)
                    }
                    continue
                case .pullCopyData(let stream):
                    do throws(SluiceError) {
                        action = machine.copyDataPulled(try stream.next())
                    } catch {
                        action = machine.copyOutFailed(error)
                    }
                    continue
                case .startTLS:
                    // The fuzzer's bytes are not a TLS handshake: the machine goes on as if TLS had started.
                    machine.tlsStarted()
                    action = ConnectionAction()
                case .cancel, .close, .rejectLogin:
                    return .closed(lastMessage: lastMessage)
                }
                break
            }
        }
    }

    private static func fakeStatements(_ sql: String, parameterTypes: [DataType?]) -> [PGPreparedStatement] {
        sql.split(separator: ";").enumerated().compactMap { index, piece -> PGPreparedStatement? in
            let text = String(piece).trimmingSpaces
            guard !text.isEmpty else { return nil }
            return PGPreparedStatement(
                id: index, sql: text, parameterTypes: parameterTypes.map { $0 ?? .varchar },
                resultColumns: [PGColumn(name: "n", type: .int32)]
            )
        }
    }

    /// A COPY FROM sink that counts bytes and refuses data holding `!`.
    private final class FakeCopySink: PGCopyInSink, @unchecked Sendable {
        let columnCount = 2
        private var bytes = 0

        func received(_ data: [UInt8]) throws(SluiceError) {
            if data.contains(UInt8(ascii: "!")) { throw SluiceError(.badCopyFileFormat, "extra data after last expected column") }
            bytes += data.count
        }

        func finishedNow() throws(SluiceError) -> String { "COPY \(bytes)" }

        func finished() async throws(SluiceError) -> String { try finishedNow() }

        func failed() {}
    }

    /// `rowCount` rows; a statement with "stream" in it sends them as a stream of three such
    /// chunks after them, one with "leak" failing after its first streamed chunk.
    private static func fakeResult(rowCount: Int, streamed sql: String) -> PGStatementResult {
        let column = Column(type: .int32, values: (0 ..< rowCount).map { .int32(Int32($0)) })
        var result = PGStatementResult(
            commandTag: "SELECT \(rowCount)", columns: [PGColumn(name: "n", type: .int32)],
            chunks: [Chunk(columns: [column])]
        )
        if sql.contains("copyin") {
            result.copyIn = FakeCopySink()
        } else if sql.contains("copyout") {
            var left = 2
            let fails = sql.contains("leak")
            result.copyOut = PGCopyOutStream(
                columnCount: 1,
                source: { () throws(SluiceError) -> [[UInt8]]? in
                    if fails && left < 2 { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
                    guard left > 0 else { return nil }
                    left -= 1
                    return [Array("1\n".utf8), Array("2\n".utf8)]
                },
                commandTag: { "COPY 4" })
        }
        if sql.contains("stream") {
            result.commandTag = "SELECT 0"
            var left = 3
            let fails = sql.contains("leak")
            result.stream = PGRowStream { () throws(SluiceError) -> Chunk? in
                if fails && left < 3 { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
                guard left > 0 else { return nil }
                left -= 1
                return Chunk(columns: [column])
            }
        }
        return result
    }
}
