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

    @Test(arguments: [(UInt64(1), 1), (UInt64(2), 1), (UInt64(3), 0), (UInt64(4), 1), (UInt64(9), 0)])
    func matchesTheGeneralAggregate(seed: UInt64, groupCount: Int) throws {
        try compare(keyTypes: groupCount == 1 ? [.int64] : [], seed: seed, appendOnly: false)
    }

    /// Keys that are not one integer column go by their encoded bytes: a string, a string and
    /// an integer (NULLs among them), a boolean.
    @Test(arguments: [UInt64(5), 6])
    func matchesTheGeneralAggregateUnderByteKeys(seed: UInt64) throws {
        try compare(keyTypes: [.varchar], seed: seed, appendOnly: false)
        try compare(keyTypes: [.varchar, .int32], seed: seed, appendOnly: false)
        try compare(keyTypes: [.boolean], seed: seed, appendOnly: false)
    }

    /// Over a source (inserts only) min and max keep only the extreme so far.
    @Test(arguments: [UInt64(7), 8])
    func matchesTheGeneralAggregateOverAnAppendOnlyInput(seed: UInt64) throws {
        try compare(keyTypes: [.varchar], seed: seed, appendOnly: true)
        try compare(keyTypes: [.int64], seed: seed, appendOnly: true)
        try compare(keyTypes: [], seed: seed, appendOnly: true)
    }

    /// Byte-keyed groups that come and go for hundreds of epochs: their key rows are released
    /// and compacted away (dead rows pass live ones, and an epoch's new keys are a small chunk
    /// of their own), and every shown row matches a model of the live rows.
    @Test func groupsThatComeAndGoKeepTheirKeysThroughCompaction() throws {
        let types: [DataType] = [.varchar, .int32, .int64]
        let calls = [AggregateCall(kind: .countStar, argument: nil, resultType: .int64), AggregateCall(kind: .sum, argument: 2, resultType: .numeric)]
        var fast = try IntegerHashAggregate(inputTypes: types, groupCount: 2, aggregates: calls, stateTableID: 1)
        var shown = Accumulated()
        var model: [[String]: (count: Int, sum: Int)] = [:]
        var inserted: [[[Value]]] = []
        for epoch in 0 ..< 300 {
            var ops: [ChangeOp] = []
            var rows: [[Value]] = []
            // 40 new groups of two rows each; the groups of three epochs ago leave.
            var added: [[Value]] = []
            for group in 0 ..< 40 {
                let name: Value = group == 0 ? .null : .string("group \(epoch)-\(group) " + String(repeating: "x", count: group % 7))
                for copy in 0 ..< 2 { added.append([name, .int32(Int32(group % 3)), .int64(Int64(epoch * 100 + group * 2 + copy))]) }
            }
            inserted.append(added)
            ops += Array(repeating: .insert, count: added.count)
            rows += added
            if epoch >= 3 {
                ops += Array(repeating: .delete, count: inserted[epoch - 3].count)
                rows += inserted[epoch - 3]
            }
            for (op, row) in zip(ops, rows) {
                let key = [row[0].textForm, row[1].textForm]
                let sign = op.isInsertion ? 1 : -1
                let old = model[key] ?? (0, 0)
                model[key] = (old.count + sign, old.sum + sign * Int(row[2].int64!))
                if model[key]!.count == 0 { model.removeValue(forKey: key) }
            }
            let data = Chunk(columns: types.indices.map { column in Column(type: types[column], values: rows.map { $0[column] }) })
            var output = OutputBuffer()
            try fast.process(StreamChunk(ops: ops, data: data), from: 0, into: &output)
            var state = StateWriter()
            try fast.finishEpoch(Barrier(epoch: UInt64(epoch + 1)), state: &state, into: &output)
            shown.apply(output.drain())
            let expected = Dictionary(uniqueKeysWithValues: model.map { ($0.key + [String($0.value.count), String($0.value.sum)], 1) })
            #expect(shown.rows == expected, "epoch \(epoch)")
            if shown.rows != expected { break }
        }
        // Three epochs of 39 named groups, and the NULL-named group 0 that every epoch adds to.
        #expect(shown.rows.count == 3 * 39 + 1)
    }

    @Test func anAppendOnlyMinOrMaxRefusesADelete() throws {
        var fast = try IntegerHashAggregate(
            inputTypes: [.varchar, .int64, .int32], groupCount: 1, aggregates: Self.calls, stateTableID: 1, appendOnlyInput: true)
        let data = Chunk(columns: [
            Column(type: .varchar, values: [.string("a")]), Column(type: .int64, values: [.int64(1)]), Column(type: .int32, values: [.int32(2)]),
        ])
        var output = OutputBuffer()
        #expect(throws: SluiceError.self) { try fast.process(StreamChunk(ops: [.delete], data: data), from: 0, into: &output) }
    }

    /// Feeds the same random changes to both aggregates, with key columns of `keyTypes` first,
    /// then a bigint and an integer, and compares what they show at every third barrier.
    private func compare(keyTypes: [DataType], seed: UInt64, appendOnly: Bool) throws {
        let groupCount = keyTypes.count
        let types: [DataType] = keyTypes + [.int64, .int32]
        let calls = Self.calls.map { call in
            var call = call
            call.argument = call.argument.map { $0 - 1 + groupCount }
            return call
        }
        #expect(IntegerHashAggregate.supports(inputTypes: types, groupCount: groupCount, aggregates: calls))
        var fast = try IntegerHashAggregate(
            inputTypes: types, groupCount: groupCount, aggregates: calls, stateTableID: 1, appendOnlyInput: appendOnly)
        var general = try StreamHashAggregate(inputTypes: types, groupCount: groupCount, aggregates: calls, stateTableID: 100)
        var fastRows = Accumulated()
        var generalRows = Accumulated()
        var random = SplitMix64(seed: seed)
        var live: [[Value]] = []
        func key(_ type: DataType) -> Value {
            if Int.random(in: 0 ..< 12, using: &random) == 0 { return .null }
            let choice = Int.random(in: 0 ..< 6, using: &random)
            switch type {
            case .varchar: return .string(["", "a", "ab", "b\u{0}c", "player 4", "é"][choice])
            case .int32: return .int32(Int32(choice) - 2)
            case .boolean: return .bool(choice % 2 == 0)
            default: return .int64(Int64(choice))
            }
        }
        for epoch in 1 ... 60 {
            var ops: [ChangeOp] = []
            var rows: [[Value]] = []
            for _ in 0 ..< Int.random(in: 1 ... 120, using: &random) {
                // Deletes of live rows, often of a group's current extreme.
                if !appendOnly && !live.isEmpty && Int.random(in: 0 ..< 10, using: &random) < 4 {
                    var index = Int.random(in: 0 ..< live.count, using: &random)
                    if Bool.random(using: &random),
                       let extreme = live.indices.max(by: { (live[$0][groupCount].int64 ?? .min) < (live[$1][groupCount].int64 ?? .min) }) {
                        index = extreme
                    }
                    ops.append(.delete)
                    rows.append(live.remove(at: index))
                } else {
                    let keys = keyTypes.map { key($0) }
                    // Every third epoch without NULLs: its columns have no validity (another path).
                    let nulls = epoch % 3 == 0 ? Int.max : 8
                    let value: Value = Int.random(in: 0 ..< nulls, using: &random) == 0 ? .null : .int64(Int64.random(in: -50 ... 50, using: &random))
                    let small: Value = Int.random(in: 0 ..< nulls, using: &random) == 0 ? .null : .int32(Int32.random(in: -9 ... 9, using: &random))
                    let row = keys + [value, small]
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
                var fastState = StateWriter()
                var generalState = StateWriter()
                try fast.finishEpoch(Barrier(epoch: UInt64(epoch)), state: &fastState, into: &output)
                try general.finishEpoch(Barrier(epoch: UInt64(epoch)), state: &generalState, into: &generalOutput)
                fastRows.apply(output.drain())
                generalRows.apply(generalOutput.drain())
                #expect(fastRows.rows == generalRows.rows, "epoch \(epoch), keys \(keyTypes)")
                // No row is ever retracted that was not shown.
                #expect(fastRows.rows.values.allSatisfy { $0 == 1 })
            }
        }
        #expect(!fastRows.rows.isEmpty)
    }

    @Test func refusesWhatItDoesNotHandle() {
        #expect(!IntegerHashAggregate.supports(
            inputTypes: [.int64, .varchar], groupCount: 1, aggregates: [AggregateCall(kind: .max, argument: 1, resultType: .varchar)]))
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
