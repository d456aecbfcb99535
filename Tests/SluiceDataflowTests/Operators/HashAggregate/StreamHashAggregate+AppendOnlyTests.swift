import SluiceCore
import SluiceExpr
import SluicePlan
import Testing

@testable import SluiceDataflow

/// Over an append-only input (a source), min and max keep the extreme so far in the group's row
/// instead of every value: the output must be exactly the general aggregate's, and no ordered
/// state is kept.
@Suite struct StreamHashAggregateAppendOnlyTests {
    private static let calls: [AggregateCall] = [
        AggregateCall(kind: .countStar, argument: nil, resultType: .int64),
        AggregateCall(kind: .max, argument: 1, resultType: .timestamptz),
        AggregateCall(kind: .min, argument: 1, resultType: .timestamptz),
        AggregateCall(kind: .max, argument: 2, resultType: .varchar),
        AggregateCall(kind: .min, argument: 3, resultType: .numeric),
        AggregateCall(kind: .sum, argument: 3, resultType: .numeric),
        AggregateCall(kind: .max, argument: 3, filter: 4, resultType: .numeric),
    ]

    @Test(arguments: [(UInt64(5), 1), (UInt64(6), 0), (UInt64(7), 1)])
    func matchesTheGeneralAggregateOnInserts(seed: UInt64, groupCount: Int) throws {
        let types: [DataType] = [.varchar, .timestamptz, .varchar, .numeric, .boolean]
        var appendOnly = try StreamHashAggregate(
            inputTypes: types, groupCount: groupCount, aggregates: Self.calls, stateTableID: 1, appendOnlyInput: true)
        var general = try StreamHashAggregate(inputTypes: types, groupCount: groupCount, aggregates: Self.calls, stateTableID: 100)
        #expect(appendOnly.stateTableIDs == [1])
        var random = SplitMix64(seed: seed)
        var shown: [[String]: Int] = [:]
        var generalShown: [[String]: Int] = [:]
        func apply(_ chunks: [StreamChunk], to rows: inout [[String]: Int]) {
            for chunk in chunks {
                for row in 0 ..< chunk.count {
                    let values = chunk.data.columns.map { $0.value(at: row).isNull ? "NULL" : $0.value(at: row).textForm }
                    rows[values, default: 0] += chunk.ops[row].isInsertion ? 1 : -1
                    if rows[values] == 0 { rows.removeValue(forKey: values) }
                }
            }
        }
        for epoch in 1 ... 40 {
            var rows: [[Value]] = []
            for _ in 0 ..< Int.random(in: 1 ... 100, using: &random) {
                func maybeNull(_ value: Value) -> Value { Int.random(in: 0 ..< 7, using: &random) == 0 ? .null : value }
                rows.append([
                    maybeNull(.string("p\(Int.random(in: 0 ..< 5, using: &random))")),
                    maybeNull(.timestamptz(Int64.random(in: 0 ... 1_000_000, using: &random) * 1000)),
                    maybeNull(.string(String(repeating: "z", count: Int.random(in: 0 ..< 4, using: &random)) + "\(Int.random(in: 0 ..< 50, using: &random))")),
                    maybeNull(.decimal(Decimal(Int64.random(in: -999 ... 999, using: &random)))),
                    maybeNull(.bool(Bool.random(using: &random))),
                ])
            }
            let data = Chunk(columns: types.indices.map { column in Column(type: types[column], values: rows.map { $0[column] }) })
            let chunk = StreamChunk(ops: Array(repeating: .insert, count: rows.count), data: data)
            var output = OutputBuffer()
            var generalOutput = OutputBuffer()
            try appendOnly.process(chunk, from: 0, into: &output)
            try general.process(chunk, from: 0, into: &generalOutput)
            if epoch % 4 == 0 || epoch == 40 {
                var state = StateWriter()
                try appendOnly.finishEpoch(Barrier(epoch: UInt64(epoch)), state: &state, into: &output)
                try general.finishEpoch(Barrier(epoch: UInt64(epoch)), state: &state, into: &generalOutput)
                apply(output.drain(), to: &shown)
                apply(generalOutput.drain(), to: &generalShown)
                #expect(shown == generalShown, "epoch \(epoch)")
                #expect(shown.values.allSatisfy { $0 == 1 })
            }
        }
        #expect(!shown.isEmpty)
    }

    @Test func aDeleteIsRefusedRatherThanMisread() throws {
        var op = try StreamHashAggregate(
            inputTypes: [.varchar, .int64], groupCount: 1, aggregates: [AggregateCall(kind: .max, argument: 1, resultType: .int64)],
            stateTableID: 1, appendOnlyInput: true)
        var output = OutputBuffer()
        let data = Chunk(columns: [Column(type: .varchar, values: [.string("a")]), Column(type: .int64, values: [.int64(3)])])
        try op.process(StreamChunk(ops: [.insert], data: data), from: 0, into: &output)
        #expect(throws: SluiceError.self) { try op.process(StreamChunk(ops: [.delete], data: data), from: 0, into: &output) }
    }
}
