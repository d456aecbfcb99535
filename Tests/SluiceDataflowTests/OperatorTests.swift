import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState
import Testing

@testable import SluiceDataflow

func run<Operator: StreamOperator>(_ op: inout Operator, _ chunk: StreamChunk, from input: InputIndex = 0) throws -> [[String]] {
    var output = OutputBuffer()
    try op.process(chunk, from: input, into: &output)
    return output.drain().flatMap(\.changes)
}

func barrier<Operator: StreamOperator>(_ op: inout Operator, _ epoch: UInt64) throws -> [[String]] {
    var output = OutputBuffer()
    var state = StateWriter()
    try op.finishEpoch(Barrier(epoch: epoch), state: &state, into: &output)
    return output.drain().flatMap(\.changes)
}

@Suite struct MapFilterProjectTests {
    @Test func filterTurnsUpdateIntoDeleteWhenRowStopsMatching() throws {
        var filter = MapFilterProject(
            predicate: .call(.comparison(.greater, .int64), [.column(0, .int64), .column(1, .int64)]),
            projections: [.column(0, .int64), .column(1, .int64)])
        #expect(try run(&filter, StreamChunk(pretty: """
             I I
            U- 5 3
            U+ 3 5
            """)) == [["-", "5", "3"]])
        #expect(try run(&filter, StreamChunk(pretty: """
             I I
            U- 1 2
            U+ 9 2
            + 7 1
            - 0 4
            """)) == [["+", "9", "2"], ["+", "7", "1"]])
    }
}

/// The project's seeded generator, so failures reproduce.
typealias SeededRandom = SplitMix64
