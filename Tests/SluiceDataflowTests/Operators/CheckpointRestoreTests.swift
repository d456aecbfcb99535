import Foundation
import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState
import Testing

@testable import SluiceDataflow

/// An operator restored from its checkpoints behaves as the one that wrote them: fed the same
/// changes afterwards, both emit the same rows at every barrier. The checkpoints go through
/// their bytes (``FragmentCheckpoint/encoded()``), with deltas and bases (compactions) at random.
@Suite struct CheckpointRestoreTests {
    /// Rows as text, with the sign of their changes summed.
    private static func rendered(_ chunks: [StreamChunk]) -> [[String]: Int] {
        var rows: [[String]: Int] = [:]
        for chunk in chunks {
            for row in 0 ..< chunk.count {
                let values = chunk.data.columns.map { $0.value(at: row).textForm }
                rows[values, default: 0] += chunk.ops[row].isInsertion ? 1 : -1
                if rows[values] == 0 { rows.removeValue(forKey: values) }
            }
        }
        return rows
    }

    /// Runs `make()`'s operator over `epochs` epochs of `changes`, checkpointing every epoch;
    /// restores a second one from the chain at `restoreAt` and checks that both emit the same
    /// from then on. With `memoryLimited`, both run under a memory limit of one byte (they move
    /// every group they can out of memory at every barrier), and a third without one must emit
    /// what the first does at every barrier.
    private static func check(
        seed: UInt64, epochs: Int = 40, inputs: Int = 1, memoryLimited: Bool = false, make: () throws(SluiceError) -> any StreamOperator,
        changes: (inout SplitMix64, _ input: Int) -> StreamChunk
    ) throws {
        var random = SplitMix64(seed: seed)
        var original = try make()
        original.enableCheckpoints()
        let spillDirectory = NSTemporaryDirectory() + "sluice-spill-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: spillDirectory) }
        let memory = StateMemory(limit: 1, spillDirectory: spillDirectory)
        var reference: (any StreamOperator)?
        if memoryLimited {
            original.useMemory(memory)
            reference = try make()
        }
        var restored: (any StreamOperator)?
        var chain: [[UInt8]] = []
        let restoreAt = Int.random(in: 3 ..< epochs - 5, using: &random)
        for epoch in 1 ... epochs {
            var batches: [(Int, StreamChunk)] = []
            for _ in 0 ..< Int.random(in: 1 ... 3, using: &random) {
                let input = Int.random(in: 0 ..< inputs, using: &random)
                batches.append((input, changes(&random, input)))
            }
            var output = OutputBuffer()
            var restoredOutput = OutputBuffer()
            var referenceOutput = OutputBuffer()
            for (input, chunk) in batches {
                try original.process(chunk, from: input, into: &output)
                try restored?.process(chunk, from: input, into: &restoredOutput)
                try reference?.process(chunk, from: input, into: &referenceOutput)
            }
            // Some barriers are no checkpoint; the one the restore starts from is.
            let skip = epoch != restoreAt && !chain.isEmpty && Int.random(in: 0 ..< 3, using: &random) == 0
            let base = chain.isEmpty || Int.random(in: 0 ..< 6, using: &random) == 0
            var state = StateWriter(mode: skip ? .none : base ? .everything : .changes)
            try original.finishEpoch(Barrier(epoch: UInt64(epoch)), state: &state, into: &output)
            if reference != nil {
                var ignored = StateWriter()
                try reference!.finishEpoch(Barrier(epoch: UInt64(epoch)), state: &ignored, into: &referenceOutput)
                let emitted = output.drain()
                #expect(rendered(emitted) == rendered(referenceOutput.drain()), "seed \(seed), epoch \(epoch), against no limit")
                for chunk in emitted { output.append(chunk) }
            }
            if !skip {
                let bytes = FragmentCheckpoint(view: 1, isBase: base, sections: state.sections, pagedTables: state.pagedTables).encoded()
                chain = base ? [bytes] : chain + [bytes]
            }
            if restored != nil {
                var ignored = StateWriter(mode: .changes)
                try restored!.finishEpoch(Barrier(epoch: UInt64(epoch)), state: &ignored, into: &restoredOutput)
                #expect(rendered(output.drain()) == rendered(restoredOutput.drain()), "seed \(seed), epoch \(epoch)")
            }
            if epoch == restoreAt {
                // Under a limit, as a server recovers: page blocks left in files, read on touch.
                try FileManager.default.createDirectory(atPath: spillDirectory, withIntermediateDirectories: true)
                let pieces = try chain.enumerated().map { index, bytes throws(SluiceError) in
                    var file: SpillFile?
                    if memoryLimited {
                        let path = "\(spillDirectory)/piece-\(index)"
                        FileManager.default.createFile(atPath: path, contents: Data(bytes))
                        file = try SpillFile(readingRunFile: path)
                    }
                    return try bytes.withUnsafeBytes { raw in
                        Result { () throws(SluiceError) in
                            try FragmentCheckpoint.decode(raw, view: 1, lazily: memoryLimited ? .all : .none, file: file)
                        }
                    }.get()
                }
                var fresh = try make()
                fresh.enableCheckpoints()
                if memoryLimited { fresh.useMemory(StateMemory(limit: 1, spillDirectory: spillDirectory)) }
                try fresh.restore(try FragmentCheckpoint.contents(of: pieces))
                restored = fresh
            }
        }
        if memoryLimited { #expect(memory.evictedPages > 0, "seed \(seed): nothing left memory") }
    }

    private static func integerRows(_ random: inout SplitMix64, live: inout [[Value]], keys: Int, deletes: Bool) -> StreamChunk {
        var ops: [ChangeOp] = []
        var rows: [[Value]] = []
        for _ in 0 ..< Int.random(in: 1 ... 60, using: &random) {
            if deletes && !live.isEmpty && Int.random(in: 0 ..< 10, using: &random) < 4 {
                ops.append(.delete)
                rows.append(live.remove(at: Int.random(in: 0 ..< live.count, using: &random)))
            } else {
                let key: Value = Int.random(in: 0 ..< 15, using: &random) == 0 ? .null : .string("k\(Int.random(in: 0 ..< keys, using: &random))")
                let value: Value = Int.random(in: 0 ..< 9, using: &random) == 0 ? .null : .int64(Int64.random(in: -40 ... 40, using: &random))
                let row = [key, .int64(Int64(Int.random(in: 0 ..< keys, using: &random))), value]
                ops.append(.insert)
                rows.append(row)
                live.append(row)
            }
        }
        let types: [DataType] = [.varchar, .int64, .int64]
        return StreamChunk(ops: ops, data: Chunk(columns: types.indices.map { column in Column(type: types[column], values: rows.map { $0[column] }) }))
    }

    private static let integerCalls: [AggregateCall] = [
        AggregateCall(kind: .countStar, argument: nil, resultType: .int64),
        AggregateCall(kind: .sum, argument: 2, resultType: .numeric),
        AggregateCall(kind: .min, argument: 2, resultType: .int64),
        AggregateCall(kind: .max, argument: 2, resultType: .int64),
    ]

    /// Integer fast path: a string key (by bytes), an integer key, no key; with and without
    /// deletes (append-only min and max keep only the extreme).
    @Test(arguments: [(UInt64(1), 0, false), (2, 1, false), (3, 2, false), (4, 1, true), (5, 0, true), (6, 2, true)])
    func theIntegerAggregateRestores(seed: UInt64, keyColumn: Int, appendOnly: Bool) throws {
        var live: [[Value]] = []
        let types: [DataType] = [.varchar, .int64, .int64]
        // Group by column `keyColumn` (2: no group key), aggregating column 2.
        let groupCount = keyColumn == 2 ? 0 : 1
        try Self.check(seed: seed, make: { () throws(SluiceError) -> any StreamOperator in
            let inputTypes = groupCount == 0 ? [types[2]] : [types[keyColumn], types[2]]
            let calls = Self.integerCalls.map { call in
                var call = call
                call.argument = call.argument.map { _ in groupCount }
                return call
            }
            return ProjectedInput(
                columns: groupCount == 0 ? [2] : [keyColumn, 2],
                inner: try IntegerHashAggregate(
                    inputTypes: inputTypes, groupCount: groupCount, aggregates: calls, stateTableID: 7, appendOnlyInput: appendOnly))
        }, changes: { random, _ in Self.integerRows(&random, live: &live, keys: 9, deletes: !appendOnly) })
    }

    /// The integer fast path under a memory limit: groups move to the spilled table and back
    /// (count, sum, min and max; with deletes, min's and max's values move to tables of their
    /// own and back).
    @Test(arguments: [(UInt64(31), 0, false), (32, 1, false), (33, 1, true), (34, 0, true)])
    func theIntegerAggregateUnderAMemoryLimit(seed: UInt64, keyColumn: Int, appendOnly: Bool) throws {
        var live: [[Value]] = []
        let types: [DataType] = [.varchar, .int64, .int64]
        let calls = Self.integerCalls
        try Self.check(seed: seed, epochs: appendOnly ? 150 : 300, memoryLimited: true, make: { () throws(SluiceError) -> any StreamOperator in
            ProjectedInput(
                columns: [keyColumn, 2],
                inner: try IntegerHashAggregate(
                    inputTypes: [types[keyColumn], types[2]], groupCount: 1,
                    aggregates: calls.map { call in
                        var call = call
                        call.argument = call.argument.map { _ in 1 }
                        return call
                    },
                    stateTableID: 7, appendOnlyInput: appendOnly))
        }, changes: { random, _ in Self.integerRows(&random, live: &live, keys: 4000, deletes: !appendOnly) })
    }

    /// Groups kept through a barrier that is no checkpoint, some touched after, then many new
    /// groups: a slot the eviction freed goes to one group only (the hand passes the untouched
    /// slots twice in one eviction).
    @Test func evictedSlotsGoToOneGroupEach() throws {
        let directory = NSTemporaryDirectory() + "sluice-spill-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let calls = [AggregateCall(kind: .countStar, argument: nil, resultType: .int64), AggregateCall(kind: .sum, argument: 1, resultType: .numeric)]
        var limited: any StreamOperator = try IntegerHashAggregate(inputTypes: [.int64, .int64], groupCount: 1, aggregates: calls, stateTableID: 7, appendOnlyInput: true)
        var reference: any StreamOperator = try IntegerHashAggregate(inputTypes: [.int64, .int64], groupCount: 1, aggregates: calls, stateTableID: 7, appendOnlyInput: true)
        limited.enableCheckpoints()
        limited.useMemory(StateMemory(limit: 1, spillDirectory: directory))
        let epochs: [(keys: Range<Int64>, mode: StateWriter.Mode)] = [
            (0 ..< 2000, .none), (1000 ..< 2000, .changes), (2000 ..< 6000, .changes), (0 ..< 6000, .none), (3000 ..< 9000, .changes),
            (0 ..< 9000, .changes),
        ]
        for (epoch, (keys, mode)) in epochs.enumerated() {
            var output = OutputBuffer()
            var referenceOutput = OutputBuffer()
            let chunk = StreamChunk(ops: [ChangeOp](repeating: .insert, count: keys.count), data: Chunk(columns: [
                Column(type: .int64, storage: .int64(Array(keys))), Column(type: .int64, storage: .int64(keys.map { $0 * 3 + Int64(epoch) })),
            ]))
            try limited.process(chunk, from: 0, into: &output)
            try reference.process(chunk, from: 0, into: &referenceOutput)
            var state = StateWriter(mode: mode)
            try limited.finishEpoch(Barrier(epoch: UInt64(epoch + 1)), state: &state, into: &output)
            var ignored = StateWriter()
            try reference.finishEpoch(Barrier(epoch: UInt64(epoch + 1)), state: &ignored, into: &referenceOutput)
            #expect(Self.rendered(output.drain()) == Self.rendered(referenceOutput.drain()), "epoch \(epoch)")
        }
    }

    /// The general aggregate: min and max in ordered state, string_agg, count DISTINCT; under a
    /// memory limit, its groups' and ordered states' pages are evicted at every barrier.
    @Test(arguments: [(UInt64(11), false), (12, false), (13, true)])
    func theGeneralAggregateRestores(seed: UInt64, memoryLimited: Bool) throws {
        var live: [[Value]] = []
        let calls: [AggregateCall] = [
            AggregateCall(kind: .countStar, argument: nil, resultType: .int64),
            AggregateCall(kind: .avg, argument: 2, resultType: .numeric),
            AggregateCall(kind: .min, argument: 2, resultType: .int64),
            AggregateCall(kind: .count, argument: 1, distinct: true, resultType: .int64),
        ]
        try Self.check(seed: seed, epochs: memoryLimited ? 300 : 40, memoryLimited: memoryLimited, make: { () throws(SluiceError) -> any StreamOperator in
            try StreamHashAggregate(inputTypes: [.varchar, .int64, .int64], groupCount: 1, aggregates: calls, stateTableID: 20)
        }, changes: { random, _ in Self.integerRows(&random, live: &live, keys: memoryLimited ? 3000 : 7, deletes: true) })
    }

    /// Both sides of an inner and of a left join; under a memory limit, their pages are evicted
    /// at every barrier and read back by the probes.
    @Test(arguments: [(UInt64(21), JoinKind.inner, false), (22, .left, false), (23, .inner, true), (24, .left, true)])
    func theJoinRestores(seed: UInt64, kind: JoinKind, memoryLimited: Bool) throws {
        var live: [[[Value]]] = [[], []]
        try Self.check(seed: seed, epochs: memoryLimited ? 300 : 40, inputs: 2, memoryLimited: memoryLimited, make: { () throws(SluiceError) -> any StreamOperator in
            try StreamHashJoin(
                leftTypes: [.varchar, .int64, .int64], rightTypes: [.varchar, .int64, .int64], kind: kind, leftKeys: [1], rightKeys: [1],
                residual: nil, stateTableID: 30)
        }, changes: { random, input in Self.integerRows(&random, live: &live[input], keys: memoryLimited ? 3000 : 5, deletes: true) })
    }
}

/// Feeds an operator some columns of its input (the tests' rows have more than it takes).
private struct ProjectedInput: StreamOperator {
    let columns: [Int]
    var inner: any StreamOperator

    mutating func process(_ chunk: StreamChunk, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {
        try inner.process(StreamChunk(ops: chunk.ops, data: Chunk(columns: columns.map { chunk.data.columns[$0] }, count: chunk.count)), from: input, into: &output)
    }

    mutating func finishEpoch(_ barrier: Barrier, state: inout StateWriter, into output: inout OutputBuffer) throws(SluiceError) {
        try inner.finishEpoch(barrier, state: &state, into: &output)
    }

    mutating func restore(_ tables: RestoredTables) throws(SluiceError) { try inner.restore(tables) }
    mutating func enableCheckpoints() { inner.enableCheckpoints() }
    mutating func useMemory(_ memory: StateMemory) { inner.useMemory(memory) }
}
