import SluiceCore
import SluiceExpr
import SluicePlan
import Testing

@testable import SluiceDataflow

/// The integer fast path must give exactly what the general aggregate gives (itself checked
/// against the batch executor) for every sequence of changes.
@Suite struct IntegerHashAggregateTests {
    /// Applies change chunks to a multiset of rendered rows.
    private struct Accumulated {
        var rows: [[String]: Int] = [:]

        mutating func apply(_ chunks: [StreamChunk]) {
            for chunk in chunks {
                for row in 0 ..< chunk.count {
                    let values = chunk.data.columns.map { $0.value(at: row).textForm }
                    rows[values, default: 0] += chunk.ops[row].isInsertion ? 1 : -1
                    if rows[values] == 0 { rows.removeValue(forKey: values) }
                }
            }
        }
    }

    private static let calls: [AggregateCall] = [
        AggregateCall(kind: .countStar, argument: nil, resultType: .int64),
        AggregateCall(kind: .count, argument: 1, resultType: .int64),
        AggregateCall(kind: .sum, argument: 1, resultType: .numeric),
        AggregateCall(kind: .sum, argument: 2, resultType: .int64),
        AggregateCall(kind: .max, argument: 1, resultType: .int64),
        AggregateCall(kind: .min, argument: 1, resultType: .int64),
        AggregateCall(kind: .max, argument: 2, resultType: .int32),
    ]

    @Test(arguments: [(UInt64(1), 1), (UInt64(2), 1), (UInt64(3), 0), (UInt64(4), 1)])
    func matchesTheGeneralAggregate(seed: UInt64, groupCount: Int) throws {
        let types: [DataType] = [.int64, .int64, .int32]
        #expect(IntegerHashAggregate.supports(inputTypes: types, groupCount: groupCount, aggregates: Self.calls))
        var fast = try IntegerHashAggregate(inputTypes: types, groupCount: groupCount, aggregates: Self.calls, stateTableID: 1)
        var general = try StreamHashAggregate(inputTypes: types, groupCount: groupCount, aggregates: Self.calls, stateTableID: 100)
        var fastRows = Accumulated()
        var generalRows = Accumulated()
        var random = SplitMix64(seed: seed)
        var live: [[Value]] = []
        for epoch in 1 ... 60 {
            var ops: [ChangeOp] = []
            var rows: [[Value]] = []
            for _ in 0 ..< Int.random(in: 1 ... 120, using: &random) {
                // Deletes of live rows, often of a group's current extreme.
                if !live.isEmpty && Int.random(in: 0 ..< 10, using: &random) < 4 {
                    var index = Int.random(in: 0 ..< live.count, using: &random)
                    if Bool.random(using: &random), let extreme = live.indices.max(by: { (live[$0][1].int64 ?? .min) < (live[$1][1].int64 ?? .min) }) {
                        index = extreme
                    }
                    ops.append(.delete)
                    rows.append(live.remove(at: index))
                } else {
                    let key: Value = Int.random(in: 0 ..< 12, using: &random) == 0 ? .null : .int64(Int64.random(in: 0 ..< 6, using: &random))
                    let value: Value = Int.random(in: 0 ..< 8, using: &random) == 0 ? .null : .int64(Int64.random(in: -50 ... 50, using: &random))
                    let small: Value = Int.random(in: 0 ..< 8, using: &random) == 0 ? .null : .int32(Int32.random(in: -9 ... 9, using: &random))
                    let row = [key, value, small]
                    ops.append(.insert)
                    rows.append(row)
                    live.append(row)
                }
            }
            let data = Chunk(columns: types.indices.map { column in Column(type: types[column], values: rows.map { $0[column] }) })
            let chunk = StreamChunk(ops: ops, data: data)
            var output = OutputBuffer()
            try fast.process(chunk, from: 0, into: &output)
            var generalOutput = OutputBuffer()
            try general.process(chunk, from: 0, into: &generalOutput)
            if epoch % 3 == 0 || epoch == 60 {
                var state = StateWriter()
                try fast.finishEpoch(Barrier(epoch: UInt64(epoch)), state: &state, into: &output)
                try general.finishEpoch(Barrier(epoch: UInt64(epoch)), state: &state, into: &generalOutput)
                fastRows.apply(output.drain())
                generalRows.apply(generalOutput.drain())
                #expect(fastRows.rows == generalRows.rows, "epoch \(epoch)")
                // No row is ever retracted that was not shown.
                #expect(fastRows.rows.values.allSatisfy { $0 == 1 })
            }
        }
        #expect(!fastRows.rows.isEmpty)
    }

    @Test func refusesWhatItDoesNotHandle() {
        let types: [DataType] = [.varchar, .int64]
        #expect(!IntegerHashAggregate.supports(inputTypes: types, groupCount: 1, aggregates: [AggregateCall(kind: .countStar, argument: nil, resultType: .int64)]))
        #expect(!IntegerHashAggregate.supports(
            inputTypes: [.int64, .int64], groupCount: 1, aggregates: [AggregateCall(kind: .avg, argument: 1, resultType: .numeric)]))
        #expect(!IntegerHashAggregate.supports(
            inputTypes: [.int64, .int64], groupCount: 1, aggregates: [AggregateCall(kind: .count, argument: 1, distinct: true, resultType: .int64)]))
    }
}

@Suite struct ExtremeMultisetTests {
    @Test func theNextExtremeAppearsWhenTheCurrentOneIsDeleted() {
        var maximum = ExtremeMultiset(isMax: true)
        var minimum = ExtremeMultiset(isMax: false)
        var reference: [Int64] = []
        var random = SplitMix64(seed: 7)
        for step in 0 ..< 20_000 {
            let deleteExtreme = !reference.isEmpty && step % 3 == 0
            let deleteAny = !reference.isEmpty && step % 5 == 0
            if deleteExtreme || deleteAny {
                let value = deleteExtreme ? (step % 2 == 0 ? reference.max()! : reference.min()!) : reference.randomElement(using: &random)!
                reference.remove(at: reference.firstIndex(of: value)!)
                maximum.delete(value)
                minimum.delete(value)
            } else {
                let value = Int64.random(in: -300 ... 300, using: &random)
                reference.append(value)
                maximum.insert(value)
                minimum.insert(value)
            }
            #expect(maximum.value == reference.max())
            #expect(minimum.value == reference.min())
            #expect(maximum.total == Int64(reference.count))
        }
    }
}
