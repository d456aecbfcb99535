import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState
import Testing

@testable import SluiceDataflow

@Suite struct StreamHashJoinTests {
    /// `left(k bigint, s text) JOIN right(k bigint, t text) ON left.k = right.k`.
    func makeJoin(_ kind: JoinKind, residual: ScalarExpr? = nil) throws -> StreamHashJoin {
        try StreamHashJoin(
            leftTypes: [.int64, .varchar], rightTypes: [.int64, .varchar], kind: kind, leftKeys: [0], rightKeys: [0],
            residual: residual, stateTableID: 10)
    }

    let left: InputIndex = 0
    let right: InputIndex = 1

    @Test func innerJoinFollowsInsertsAndDeletesOnBothSides() throws {
        var join = try makeJoin(.inner)
        #expect(try run(&join, StreamChunk(pretty: """
             I T
            + 1 a
            + 2 b
            """), from: left) == [])
        #expect(try run(&join, StreamChunk(pretty: """
             I T
            + 1 x
            + 3 y
            """), from: right) == [["+", "1", "a", "1", "x"]])
        #expect(try run(&join, StreamChunk(pretty: """
             I T
            + 3 c
            - 1 a
            """), from: left) == [["+", "3", "c", "3", "y"], ["-", "1", "a", "1", "x"]])
        _ = try barrier(&join, 1)
        #expect(try run(&join, StreamChunk(pretty: """
             I T
            - 3 y
            - 1 x
            """), from: right) == [["-", "3", "c", "3", "y"]])
        #expect(try run(&join, StreamChunk(pretty: """
             I T
            - 2 b
            - 3 c
            """), from: left) == [])
    }

    @Test func duplicatesOnBothSidesMultiply() throws {
        var join = try makeJoin(.inner)
        _ = try run(&join, StreamChunk(pretty: """
             I T
            + 1 a
            + 1 a
            """), from: left)
        #expect(try run(&join, StreamChunk(pretty: """
             I T
            + 1 x
            + 1 x
            """), from: right) == Array(repeating: ["+", "1", "a", "1", "x"], count: 4))
        _ = try barrier(&join, 1)
        // A third copy of the left row meets both right copies.
        #expect(try run(&join, StreamChunk(pretty: """
             I T
            + 1 a
            """), from: left) == Array(repeating: ["+", "1", "a", "1", "x"], count: 2))
        // Removing one right copy retracts its pairing with each of the three left copies.
        #expect(try run(&join, StreamChunk(pretty: """
             I T
            - 1 x
            """), from: right) == Array(repeating: ["-", "1", "a", "1", "x"], count: 3))
        #expect(try run(&join, StreamChunk(pretty: """
             I T
            - 1 a
            - 1 a
            """), from: left) == Array(repeating: ["-", "1", "a", "1", "x"], count: 2))
        #expect(try run(&join, StreamChunk(pretty: """
             I T
            - 1 x
            """), from: right) == [["-", "1", "a", "1", "x"]])
    }

    @Test func nullKeysNeverMatch() throws {
        var inner = try makeJoin(.inner)
        #expect(try run(&inner, StreamChunk(pretty: """
             I T
            + . a
            """), from: left) == [])
        #expect(try run(&inner, StreamChunk(pretty: """
             I T
            + . x
            """), from: right) == [])

        var outer = try makeJoin(.left)
        #expect(try run(&outer, StreamChunk(pretty: """
             I T
            + . a
            """), from: left) == [["+", ".", "a", ".", "."]])
        #expect(try run(&outer, StreamChunk(pretty: """
             I T
            + . x
            """), from: right) == [])
        #expect(try run(&outer, StreamChunk(pretty: """
             I T
            - . a
            """), from: left) == [["-", ".", "a", ".", "."]])
    }

    @Test func nullInAnyKeyColumnNeverMatches() throws {
        var join = try StreamHashJoin(
            leftTypes: [.int64, .varchar], rightTypes: [.int64, .varchar], kind: .left, leftKeys: [0, 1], rightKeys: [0, 1],
            residual: nil, stateTableID: 10)
        _ = try run(&join, StreamChunk(pretty: """
             I T
            + 1 .
            + 1 x
            """), from: right)
        #expect(try run(&join, StreamChunk(pretty: """
             I T
            + 1 .
            + 1 x
            """), from: left) == [["+", "1", ".", ".", "."], ["+", "1", "x", "1", "x"]])
    }

    @Test func leftJoinSwapsPaddedRowOnFirstAndLastMatch() throws {
        var join = try makeJoin(.left)
        #expect(try run(&join, StreamChunk(pretty: """
             I T
            + 1 a
            + 1 a
            + 2 b
            """), from: left) == [["+", "1", "a", ".", "."], ["+", "1", "a", ".", "."], ["+", "2", "b", ".", "."]])
        // First match: the padded copies go, the joined copies come.
        #expect(try run(&join, StreamChunk(pretty: """
             I T
            + 1 x
            """), from: right) == [
                ["-", "1", "a", ".", "."], ["-", "1", "a", ".", "."], ["+", "1", "a", "1", "x"], ["+", "1", "a", "1", "x"],
            ])
        _ = try barrier(&join, 1)
        // A second match only adds.
        #expect(try run(&join, StreamChunk(pretty: """
             I T
            + 1 y
            """), from: right) == [["+", "1", "a", "1", "y"], ["+", "1", "a", "1", "y"]])
        #expect(try run(&join, StreamChunk(pretty: """
             I T
            - 1 x
            """), from: right) == [["-", "1", "a", "1", "x"], ["-", "1", "a", "1", "x"]])
        // Last match gone: the padded copies return.
        #expect(try run(&join, StreamChunk(pretty: """
             I T
            - 1 y
            """), from: right) == [
                ["-", "1", "a", "1", "y"], ["-", "1", "a", "1", "y"], ["+", "1", "a", ".", "."], ["+", "1", "a", ".", "."],
            ])
        _ = try barrier(&join, 2)
        // A left row arriving after its match is joined at once; one without stays padded.
        _ = try run(&join, StreamChunk(pretty: """
             I T
            + 3 z
            """), from: right)
        #expect(try run(&join, StreamChunk(pretty: """
             I T
            + 3 c
            - 1 a
            - 2 b
            """), from: left) == [["+", "3", "c", "3", "z"], ["-", "1", "a", ".", "."], ["-", "2", "b", ".", "."]])
        // Insert and delete of the same right row in one chunk pass through the transitions.
        #expect(try run(&join, StreamChunk(pretty: """
             I T
            + 1 w
            - 1 w
            """), from: right) == [["-", "1", "a", ".", "."], ["+", "1", "a", "1", "w"], ["-", "1", "a", "1", "w"], ["+", "1", "a", ".", "."]])
    }

    @Test func residualDecidesMatchesAndDegree() throws {
        // left(k, v) LEFT JOIN right(k, w) ON left.k = right.k AND left.v < right.w
        var join = try StreamHashJoin(
            leftTypes: [.int64, .int64], rightTypes: [.int64, .int64], kind: .left, leftKeys: [0], rightKeys: [0],
            residual: .call(.comparison(.less, .int64), [.column(1, .int64), .column(3, .int64)]), stateTableID: 10)
        #expect(try run(&join, StreamChunk(pretty: """
             I I
            + 1 5
            """), from: left) == [["+", "1", "5", ".", "."]])
        // 5 < 3 is false and 5 < NULL is unknown: no match, the padded row stays.
        #expect(try run(&join, StreamChunk(pretty: """
             I I
            + 1 3
            + 1 .
            """), from: right) == [])
        #expect(try run(&join, StreamChunk(pretty: """
             I I
            + 1 9
            """), from: right) == [["-", "1", "5", ".", "."], ["+", "1", "5", "1", "9"]])
        #expect(try run(&join, StreamChunk(pretty: """
             I I
            + 1 10
            + 1 1
            """), from: left) == [["+", "1", "10", ".", "."], ["+", "1", "1", "1", "3"], ["+", "1", "1", "1", "9"]])
        #expect(try run(&join, StreamChunk(pretty: """
             I I
            - 1 9
            """), from: right) == [["-", "1", "1", "1", "9"], ["-", "1", "5", "1", "9"], ["+", "1", "5", ".", "."]])
        #expect(try run(&join, StreamChunk(pretty: """
             I I
            - 1 3
            """), from: right) == [["-", "1", "1", "1", "3"], ["+", "1", "1", ".", "."]])
    }

    @Test func updatePairsBecomeDeletesAndInserts() throws {
        var join = try makeJoin(.left)
        _ = try run(&join, StreamChunk(pretty: """
             I T
            + 1 x
            """), from: right)
        _ = try run(&join, StreamChunk(pretty: """
             I T
            + 1 a
            """), from: left)
        #expect(try run(&join, StreamChunk(pretty: """
             I T
            U- 1 a
            U+ 2 a
            """), from: left) == [["-", "1", "a", "1", "x"], ["+", "2", "a", ".", "."]])
        #expect(try run(&join, StreamChunk(pretty: """
             I T
            U- 1 x
            U+ 2 x
            """), from: right) == [["-", "2", "a", ".", "."], ["+", "2", "a", "2", "x"]])
        #expect(try run(&join, StreamChunk(pretty: """
             I T
            U- 2 x
            U+ 2 y
            """), from: right) == [["-", "2", "a", "2", "x"], ["+", "2", "a", ".", "."], ["-", "2", "a", ".", "."], ["+", "2", "a", "2", "y"]])
    }

    @Test func withoutKeysEveryPairIsACandidate() throws {
        // left(k, v) LEFT JOIN right(k, w) ON left.v < right.w
        var join = try StreamHashJoin(
            leftTypes: [.int64, .int64], rightTypes: [.int64, .int64], kind: .left, leftKeys: [], rightKeys: [],
            residual: .call(.comparison(.less, .int64), [.column(1, .int64), .column(3, .int64)]), stateTableID: 10)
        _ = try run(&join, StreamChunk(pretty: """
             I I
            + 1 5
            + . 1
            """), from: left)
        #expect(try run(&join, StreamChunk(pretty: """
             I I
            + 2 3
            """), from: right) == [["-", ".", "1", ".", "."], ["+", ".", "1", "2", "3"]])
    }

    @Test func outputComesInChunksOfPreferredSize() throws {
        var join = try makeJoin(.inner)
        let count = Chunk.preferredSize * 2 + 100
        let rights = StreamChunk(
            ops: Array(repeating: .insert, count: count),
            data: Chunk(columns: [
                Column(type: .int64, repeating: .int64(1), count: count),
                Column(type: .varchar, values: (0 ..< count).map { .string("r\($0)") }),
            ]))
        var output = OutputBuffer()
        try join.process(rights, from: right, into: &output)
        try join.process(StreamChunk(pretty: """
             I T
            + 1 a
            + 1 b
            """), from: left, into: &output)
        let chunks = output.drain()
        #expect(chunks.allSatisfy { $0.count <= Chunk.preferredSize && $0.ops.allSatisfy { $0 == .insert } })
        #expect(chunks.reduce(0) { $0 + $1.count } == 2 * count)
    }

    @Test func barrierRecordsBothStateTables() throws {
        var join = try makeJoin(.left)
        join.enableCheckpoints()
        _ = try run(&join, StreamChunk(pretty: """
             I T
            + 1 a
            + 1 a
            """), from: left)
        _ = try run(&join, StreamChunk(pretty: """
             I T
            + 1 x
            + 2 y
            """), from: right)
        var output = OutputBuffer()
        var state = StateWriter(mode: .changes)
        try join.finishEpoch(Barrier(epoch: 1), state: &state, into: &output)
        #expect(output.drain().isEmpty)
        #expect(state.pagedTables.map(\.table) == [10, 11])
        // One typed state row per distinct row, counted by its multiplicity; the left side of a
        // left join keeps the degree as its last column.
        let sides = state.pagedTables.map { $0.section() }
        #expect(sides[0].types == [.int64, .varchar, .int64] && sides[1].types == [.int64, .varchar])
        #expect(sides[0].counts == [2] && sides[1].counts == [1, 1])
        #expect((0 ..< sides[0].keys.count).map { sides[0].rows.row($0) } == [[.int64(1), .string("a"), .int64(1)]])
        #expect(Set((0 ..< sides[1].keys.count).map { sides[1].rows.row($0) }) == [[.int64(1), .string("x")], [.int64(2), .string("y")]])
    }

    @Test func rightAndFullJoinsAreRefused() {
        for kind in [JoinKind.right, .full] {
            do {
                _ = try makeJoin(kind)
                Issue.record("\(kind) join was accepted")
            } catch {
                #expect((error as? SluiceError)?.code == .featureNotSupported)
            }
        }
    }

    @Test func deleteOfAbsentRowIsCountedAndDropped() throws {
        var join = try makeJoin(.inner)
        #expect(try run(&join, StreamChunk(pretty: """
             I T
            - 1 a
            """), from: left) == [])
        _ = try barrier(&join, 1)
        #expect(join.leftState.table.inconsistencies == 1 && join.leftState.table.keyCount == 0)
        // The right side still joins with what the left side holds.
        _ = try run(&join, StreamChunk(pretty: """
             I T
            + 1 b
            """), from: left)
        #expect(try run(&join, StreamChunk(pretty: """
             I T
            + 1 x
            """), from: right) == [["+", "1", "b", "1", "x"]])
    }
}

/// The join's accumulated output equals a nested-loop join (inner, left, semi or anti) over the live rows of both sides,
/// through a seeded history of inserts, deletes and updates on both sides with duplicates and
/// NULLs, cut into random chunks and epochs.
@Suite struct StreamHashJoinOracleTests {
    // left(k bigint, v bigint, s text), right(w bigint, k bigint, s text)
    // ON left.k = right.k AND left.s = right.s [AND left.v < right.w]
    static let leftTypes: [DataType] = [.int64, .int64, .varchar]
    static let rightTypes: [DataType] = [.int64, .int64, .varchar]

    /// Also with keys read in slices of two or three rows (as a join without equalities reads a
    /// large side): a row's degree is carried across its slices and it is stored after the last.
    @Test(arguments: [JoinKind.inner, .left, .semi, .anti].flatMap { kind in
        [(kind, false, nil), (kind, true, nil), (kind, false, 2), (kind, true, 3)] as [(JoinKind, Bool, Int?)]
    })
    func maintainedJoinEqualsNestedLoopJoin(kind: JoinKind, withResidual: Bool, slice: Int?) throws {
        var random = SeededRandom(seed: withResidual ? 42 : 17)
        var join = try StreamHashJoin(
            leftTypes: Self.leftTypes, rightTypes: Self.rightTypes, kind: kind, leftKeys: [0, 2], rightKeys: [1, 2],
            residual: withResidual ? .call(.comparison(.less, .int64), [.column(1, .int64), .column(3, .int64)]) : nil,
            stateTableID: 1)
        if let slice { join.candidateSlice = slice }
        var live: [[[Value]]] = [[], []]
        var view: [[Value]: Int] = [:]
        var pending = PendingChanges()
        var epoch: UInt64 = 0
        var comparisons = 0

        func randomRow(side: Int) -> [Value] {
            func maybeNull(_ value: Value) -> Value { random.next(below: 10) == 0 ? .null : value }
            let key = maybeNull(.int64(Int64(random.next(below: 3))))
            let text = maybeNull(.string(["a", "b"][random.next(below: 2)]))
            let number = maybeNull(.int64(Int64(random.next(below: 12))))
            return side == 0 ? [key, number, text] : [number, key, text]
        }
        func flush() throws {
            guard let side = pending.side else { return }
            var output = OutputBuffer()
            try join.process(pending.chunk(types: side == 0 ? Self.leftTypes : Self.rightTypes), from: side, into: &output)
            pending = PendingChanges()
            for chunk in output.drain() {
                #expect(chunk.count <= Chunk.preferredSize)
                for rowIndex in 0 ..< chunk.count {
                    switch chunk.ops[rowIndex] {
                    case .insert: view[chunk.data.row(rowIndex), default: 0] += 1
                    case .delete: view[chunk.data.row(rowIndex), default: 0] -= 1
                    case .updateDelete, .updateInsert: Issue.record("join emitted an update half")
                    }
                }
            }
        }

        // Now and then a long run of changes to one side goes in one chunk, so that the join
        // probes it in several batches.
        var burst = 0
        var burstSide = 0
        for step in 1 ... 4000 {
            if burst == 0 && random.next(below: 120) == 0 {
                burst = 150 + random.next(below: 350)
                burstSide = random.next(below: 2)
            }
            let side = burst > 0 ? burstSide : random.next(below: 2)
            if pending.side != nil && pending.side != side { try flush() }
            let choice = random.next(below: 20)
            if choice < 6 && !live[side].isEmpty {
                let row = live[side].remove(at: random.next(below: live[side].count))
                pending.append(side: side, .delete, row)
            } else if choice < 9 && !live[side].isEmpty {
                let index = random.next(below: live[side].count)
                let new = randomRow(side: side)
                pending.append(side: side, .updateDelete, live[side][index])
                pending.append(side: side, .updateInsert, new)
                live[side][index] = new
            } else {
                // Often a copy of a live row, so duplicates are common on both sides.
                let row = choice < 13 && !live[side].isEmpty ? live[side][random.next(below: live[side].count)] : randomRow(side: side)
                live[side].append(row)
                pending.append(side: side, .insert, row)
            }
            if burst > 0 {
                burst -= 1
            } else if random.next(below: 6) == 0 {
                try flush()
            }
            if burst == 0 && random.next(below: 40) == 0 {
                try flush()
                epoch += 1
                var state = StateWriter()
                var output = OutputBuffer()
                try join.finishEpoch(Barrier(epoch: epoch), state: &state, into: &output)
                #expect(output.drain().isEmpty)
            }
            if step % 250 == 0 {
                try flush()
                view = view.filter { $0.value != 0 }
                let expected = Self.nestedLoopJoin(left: live[0], right: live[1], kind: kind, withResidual: withResidual)
                // Rows whose count differs, as (row, counted − expected), so a failure is short.
                var difference = view
                for (row, count) in expected { difference[row, default: 0] -= count }
                difference = difference.filter { $0.value != 0 }
                #expect(difference.isEmpty, "step \(step): \(difference.prefix(4))")
                comparisons += 1
            }
        }
        #expect(comparisons == 16)
    }

    /// The reference: every pair of live rows, compared value by value.
    static func nestedLoopJoin(left: [[Value]], right: [[Value]], kind: JoinKind, withResidual: Bool) -> [[Value]: Int] {
        func equal(_ a: Value, _ b: Value) -> Bool { !a.isNull && !b.isNull && a == b }
        var result: [[Value]: Int] = [:]
        for leftRow in left {
            var matched = false
            for rightRow in right where equal(leftRow[0], rightRow[1]) && equal(leftRow[2], rightRow[2]) {
                if withResidual {
                    guard case .int64(let v) = leftRow[1], case .int64(let w) = rightRow[0], v < w else { continue }
                }
                if kind == .inner || kind == .left { result[leftRow + rightRow, default: 0] += 1 }
                matched = true
            }
            switch kind {
            case .left where !matched: result[leftRow + [.null, .null, .null], default: 0] += 1
            case .semi where matched, .anti where !matched: result[leftRow, default: 0] += 1
            default: break
            }
        }
        return result
    }
}

/// Changes for one input waiting to be sent as a chunk.
private struct PendingChanges {
    var side: InputIndex?
    var ops: [ChangeOp] = []
    var rows: [[Value]] = []

    mutating func append(side: InputIndex, _ op: ChangeOp, _ row: [Value]) {
        self.side = side
        ops.append(op)
        rows.append(row)
    }

    func chunk(types: [DataType]) -> StreamChunk {
        StreamChunk(ops: ops, data: Chunk(columns: types.indices.map { columnIndex in
            Column(type: types[columnIndex], values: rows.map { $0[columnIndex] })
        }))
    }
}
