import SluiceCore
import Testing
@testable import SluicePGWire

/// A sink that records what it was given.
final class RecordingSink: PGCopyInSink, @unchecked Sendable {
    let columnCount = 2
    var data: [UInt8] = []
    var isFailed = false

    func received(_ data: [UInt8]) throws(SluiceError) { self.data += data }
    func finished() async throws(SluiceError) -> String { "COPY 2" }
    func failed() { isFailed = true }
}

@Suite struct ConnectionStateMachineCopyTests {
    static let copyStatement = PGPreparedStatement(id: 3, sql: "COPY t FROM STDIN")

    func copyingMachine(_ sink: RecordingSink) -> ConnectionStateMachine {
        var machine = ConnectionStateMachineTests().readyMachine()
        _ = machine.messageReceived(.query("COPY t FROM STDIN"))
        _ = machine.prepareSucceeded([Self.copyStatement])
        var result = PGStatementResult(commandTag: "COPY 0")
        result.copyIn = sink
        #expect(machine.executeSucceeded(result) == .send(.copyInResponse(columnCount: 2)))
        #expect(!machine.isAwaitingBackend)
        return machine
    }

    @Test func copyInGathersDataThenFinishes() {
        let sink = RecordingSink()
        var machine = copyingMachine(sink)
        #expect(machine.messageReceived(.copyData(Array("1\t2\n".utf8))) == ConnectionAction())
        #expect(machine.messageReceived(.sync) == ConnectionAction())
        #expect(machine.messageReceived(.copyData(Array("3\t4\n".utf8))) == ConnectionAction())
        let reference = PGCopyInReference(sink)
        #expect(machine.messageReceived(.copyDone).effect == .finishCopy(reference, Array("1\t2\n3\t4\n".utf8)))
        #expect(machine.isAwaitingBackend)
        let done = machine.copyInFinished("COPY 2")
        #expect(done.messages == [.commandComplete("COPY 2"), .readyForQuery(.idle)])
        #expect(done.closedStatements == [Self.copyStatement])
    }

    @Test func bigDataIsPassedOnInBatches() {
        let sink = RecordingSink()
        var machine = copyingMachine(sink)
        let block = [UInt8](repeating: 65, count: 100_000)
        #expect(machine.messageReceived(.copyData(block)).effect == .readNextMessage)
        #expect(machine.messageReceived(.copyData(block)).effect == .readNextMessage)
        #expect(machine.messageReceived(.copyData(block)).effect == .sendCopyData(PGCopyInReference(sink), block + block + block))
        #expect(machine.copyDataTaken() == ConnectionAction())
        #expect(!machine.isAwaitingBackend)
    }

    @Test func copyFailReportsQueryCanceledAndLaterDataIsIgnored() {
        let sink = RecordingSink()
        var machine = copyingMachine(sink)
        let action = machine.messageReceived(.copyFail("no more"))
        #expect(action.messages == [
            .errorResponse(PGErrorFields(.error, SluiceError(.queryCanceled, "COPY from stdin failed: no more"))), .readyForQuery(.idle),
        ])
        #expect(action.abortedCopies == [PGCopyInReference(sink)])
        #expect(machine.messageReceived(.copyData([1, 2])) == ConnectionAction())
        #expect(machine.messageReceived(.copyDone) == ConnectionAction())
    }

    @Test func aSinkErrorEndsTheCopy() {
        let sink = RecordingSink()
        var machine = copyingMachine(sink)
        _ = machine.messageReceived(.copyDone)
        let failure = SluiceError(.badCopyFileFormat, "missing data for column \"b\"")
        #expect(machine.copyInFailed(failure).messages == [.errorResponse(PGErrorFields(.error, failure)), .readyForQuery(.idle)])
        guard case .ready = machine.state else { Issue.record("not ready: \(machine.state)"); return }
    }

    @Test func copyOutSendsRowsThenDone() {
        var machine = ConnectionStateMachineTests().readyMachine()
        _ = machine.messageReceived(.query("COPY t TO STDOUT"))
        _ = machine.prepareSucceeded([Self.copyStatement])
        var left = 1
        let stream = PGCopyOutStream(
            columnCount: 1,
            source: { () throws(SluiceError) -> [[UInt8]]? in
                guard left > 0 else { return nil }
                left -= 1
                return [[49, 10], [50, 10]]
            },
            commandTag: { "COPY 2" })
        var result = PGStatementResult(commandTag: "COPY 0")
        result.copyOut = stream
        #expect(machine.executeSucceeded(result) == ConnectionAction(messages: [.copyOutResponse(columnCount: 1)], effect: .pullCopyData(stream)))
        #expect(machine.copyDataPulled([[49, 10], [50, 10]]) == ConnectionAction(messages: [.copyData([49, 10]), .copyData([50, 10])], effect: .pullCopyData(stream)))
        #expect(machine.copyDataPulled(nil).messages == [.copyDone, .commandComplete("COPY 2"), .readyForQuery(.idle)])
    }
}
