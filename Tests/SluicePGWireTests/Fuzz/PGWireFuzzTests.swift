import SluiceCore
import Testing
@testable import SluicePGWire

@Suite struct PGWireFuzzTests {
    @Test func validTranscriptEndsWithTerminate() {
        // The transcript authenticates by password, but the fuzz entry uses trust: the `p` message
        // after startup is then a protocol violation, so strip it.
        typealias B = FrontendBytes
        let bytes = B.startup([("user", "root")]) + B.query("select 1; select 2") + B.parse("s1", "select $1", oids: [23])
            + B.bind(portal: "p", statement: "s1", parameters: [Array("1".utf8)]) + B.execute("p", maxRows: 1) + B.sync + B.terminate
        #expect(PGWireFuzz.run(bytes) == .closed(lastMessage: .readyForQuery(.idle)))
    }

    @Test func garbageEndsInAnErrorResponse() {
        guard case .closed(.errorResponse(let fields)?) = PGWireFuzz.run(Array(repeating: 0x41, count: 64)) else {
            Issue.record("garbage was not answered by an ErrorResponse")
            return
        }
        #expect(fields.severity == .fatal)
        #expect(fields.error.code == .protocolViolation)
    }

    @Test func thousandsOfRandomAndMutatedInputs() {
        var random = SeededRandom(seed: 0x5EED_CAFE)
        var closedByError = 0
        for iteration in 0 ..< 4000 {
            let input = iteration % 4 == 0 ? Mutator.randomBytes(using: &random) : Mutator.mutate(Mutator.transcript, using: &random)
            switch PGWireFuzz.run(input) {
            case .awaitingInput:
                break
            case .closed(let lastMessage):
                if case .errorResponse? = lastMessage { closedByError += 1 }
            }
        }
        #expect(closedByError > 1000)
    }
}
