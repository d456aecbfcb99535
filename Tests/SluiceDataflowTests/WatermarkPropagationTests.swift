import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState
import Testing

@testable import SluiceDataflow

/// Watermarks through unions, joins and top-N, and the state they let go.
@Suite struct WatermarkPropagationTests {
    func advance<Operator: StreamOperator>(_ op: inout Operator, column: Int, to value: Int64, from input: InputIndex = 0) throws -> [Watermark] {
        var output = OutputBuffer()
        try op.advance(to: Watermark(column: column, value: .int64(value)), from: input, into: &output)
        return output.drainWatermarks()
    }

    /// Runs a barrier and returns its rows and the watermarks it passes on.
    func finish<Operator: StreamOperator>(_ op: inout Operator, _ epoch: UInt64) throws -> (rows: [[String]], watermarks: [Watermark]) {
        var output = OutputBuffer()
        var state = StateWriter()
        try op.finishEpoch(Barrier(epoch: epoch), state: &state, into: &output)
        return (output.drain().flatMap(\.changes), output.drainWatermarks())
    }

    @Test func unionPassesTheLeastOfItsInputsWatermarks() throws {
        var union = StreamUnion(inputCount: 2)
        #expect(try advance(&union, column: 0, to: 5, from: 0) == [])
        #expect(try advance(&union, column: 0, to: 3, from: 1) == [Watermark(column: 0, value: .int64(3))])
        // Input 1 still holds the least.
        #expect(try advance(&union, column: 0, to: 7, from: 0) == [])
        #expect(try advance(&union, column: 0, to: 10, from: 1) == [Watermark(column: 0, value: .int64(7))])
        // A watermark that goes back changes nothing.
        #expect(try advance(&union, column: 0, to: 6, from: 0) == [])
        // Each column on its own.
        #expect(try advance(&union, column: 1, to: 1, from: 0) == [])
    }

    /// `l(w, s) JOIN r(w, t) ON l.w = r.w`: a window join, each side's `w` watermarked.
    func windowJoin() throws -> StreamHashJoin {
        var join = try StreamHashJoin(
            leftTypes: [.int64, .int64], rightTypes: [.int64, .int64], kind: .inner, leftKeys: [0], rightKeys: [0], residual: nil,
            stateTableID: 10)
        let plan = EquiJoin<StreamPlan>(
            left: .values(rows: [], types: [.int64, .int64]), right: .values(rows: [], types: [.int64, .int64]), kind: .inner,
            leftKeys: [0], rightKeys: [0], residual: nil)
        join.watermarks = JoinWatermarks(
            bounds: plan.timeBounds, leftTypes: [.int64, .int64], rightTypes: [.int64, .int64], passesRight: true,
            context: EvaluationContext())
        return join
    }

    @Test func windowJoinPassesTheLesserWatermarkAndDropsClosedWindows() throws {
        var join = try windowJoin()
        _ = try run(&join, StreamChunk(pretty: """
             I I
            + 1 10
            + 2 20
            + 4 40
            """), from: 0)
        #expect(try run(&join, StreamChunk(pretty: """
             I I
            + 1 100
            + 3 300
            """), from: 1) == [["+", "1", "10", "1", "100"]])
        // The left side alone: its rows may still meet right rows from 2 on, which can come
        // while the right side has no watermark.
        #expect(try advance(&join, column: 0, to: 2, from: 0) == [])
        #expect(try advance(&join, column: 0, to: 3, from: 1) == [
            Watermark(column: 0, value: .int64(2)), Watermark(column: 2, value: .int64(2)),
        ])
        _ = try finish(&join, 1)
        // Left rows below 3 and right rows below 2 can meet nothing more, and are gone: a
        // right row at 2 (which the right watermark says will not come) finds no left row.
        #expect(try run(&join, StreamChunk(pretty: """
             I I
            + 2 200
            """), from: 1) == [])
        // Rows at or past the watermarks are still there.
        #expect(try run(&join, StreamChunk(pretty: """
             I I
            + 4 400
            """), from: 1) == [["+", "4", "40", "4", "400"]])
        #expect(try run(&join, StreamChunk(pretty: """
             I I
            + 3 30
            """), from: 0) == [["+", "3", "30", "3", "300"]])
    }

    @Test func intervalJoinBoundsComeFromTheResidualsComparisons() throws {
        // l.ts BETWEEN r.ts AND r.ts + 10, over (ts) and (ts).
        let types: [DataType] = [.int64]
        let plan = EquiJoin<StreamPlan>(
            left: .values(rows: [], types: types), right: .values(rows: [], types: types), kind: .inner, leftKeys: [], rightKeys: [],
            residual: .and([
                .call(.comparison(.greaterOrEqual, .int64), [.column(0, .int64), .column(1, .int64)]),
                .call(.comparison(.lessOrEqual, .int64), [.column(0, .int64), .column(1, .int64)]),
            ]))
        let bounds = plan.timeBounds
        #expect(bounds.count == 2)
        #expect(bounds.contains { $0.side == .left && $0.column == 0 && $0.otherColumn == 0 })
        #expect(bounds.contains { $0.side == .right && $0.column == 0 && $0.otherColumn == 0 })
    }

    @Test func groupTopNDropsGroupsTheWatermarkClosed() throws {
        // The top row per window (column 0) by price (column 1), descending.
        var topN = StreamTopN(
            types: [.int64, .int64], groupColumns: [0], order: [SortKey(column: 1, descending: true)], rank: .rowNumber, lower: 0,
            upper: 1, emitsRank: false, appendOnly: false, stateTableID: 10)
        topN.cleaning = WatermarkCleaning(column: 0, type: .int64, stateTableID: 109)
        _ = try run(&topN, StreamChunk(pretty: """
             I I
            + 1 5
            + 2 7
            """))
        #expect(try finish(&topN, 1).rows.sorted { $0.lexicographicallyPrecedes($1) } == [["+", "1", "5"], ["+", "2", "7"]])
        #expect(try advance(&topN, column: 0, to: 2) == [])
        // Held until the barrier, after the rows it follows.
        #expect(try finish(&topN, 2).watermarks == [Watermark(column: 0, value: .int64(2))])
        // A row for the closed window comes too late; one for the open window still ranks.
        _ = try run(&topN, StreamChunk(pretty: """
             I I
            + 1 9
            + 2 8
            """))
        #expect(try finish(&topN, 3).rows == [["-", "2", "7"], ["+", "2", "8"]])
        // A watermark on another column is not the group's.
        #expect(try advance(&topN, column: 1, to: 100) == [])
        #expect(try finish(&topN, 4).watermarks == [])
    }
}

/// Temporal filters: rows cross `now()` bounds as the barriers' times move on.
@Suite struct StreamTemporalFilterTests {
    /// Rows of (id bigint, ts timestamptz), `ts` in microseconds.
    func chunk(_ rows: [(ChangeOp, Int64, Int64)]) -> StreamChunk {
        StreamChunk(
            ops: rows.map(\.0),
            data: Chunk(columns: [
                Column(type: .int64, storage: .int64(rows.map(\.1))), Column(type: .timestamptz, storage: .int64(rows.map(\.2))),
            ]))
    }

    /// The op and id of each change.
    func ids(_ chunks: [StreamChunk]) -> [[String]] {
        chunks.flatMap(\.changes).map { [$0[0], $0[1]] }
    }

    func filter(lower: Bool) throws -> StreamTemporalFilter {
        let bound = TemporalFilterNode.Bound(now: .call(try FunctionRegistry.resolve(name: "now", argumentTypes: []), []), inclusive: !lower)
        return StreamTemporalFilter(
            types: [.int64, .timestamptz], time: .column(1, .timestamptz), lower: lower ? bound : nil, upper: lower ? nil : bound,
            stateTableID: 10, context: EvaluationContext())
    }

    func process(_ op: inout StreamTemporalFilter, _ rows: [(ChangeOp, Int64, Int64)]) throws -> [[String]] {
        var output = OutputBuffer()
        try op.process(chunk(rows), from: 0, into: &output)
        return ids(output.drain())
    }

    func barrier(_ op: inout StreamTemporalFilter, _ epoch: UInt64, at time: Int64) throws -> [[String]] {
        var output = OutputBuffer()
        var state = StateWriter()
        try op.finishEpoch(Barrier(epoch: epoch, timestamp: time), state: &state, into: &output)
        return ids(output.drain())
    }

    @Test func rowsLeaveWhenTheLowerBoundPassesThem() throws {
        // ts > now()
        var op = try filter(lower: true)
        // Before the first barrier, every row waits for it.
        #expect(try process(&op, [(.insert, 1, 150), (.insert, 2, 250), (.insert, 3, 50)]) == [])
        #expect(try barrier(&op, 1, at: 100) == [["+", "1"], ["+", "2"]])
        // A row already behind the bound is dropped; the others pass at once, deletes too.
        #expect(try process(&op, [(.insert, 4, 80), (.insert, 5, 300), (.delete, 2, 250)]) == [["+", "5"], ["-", "2"]])
        #expect(try barrier(&op, 2, at: 200) == [["-", "1"]])
        // The clock going back moves nothing.
        #expect(try barrier(&op, 3, at: 150) == [])
        // An update whose new time is behind the bound is the old row's delete.
        #expect(try process(&op, [(.updateDelete, 5, 300), (.updateInsert, 5, 100)]) == [["-", "5"]])
        #expect(try barrier(&op, 4, at: 400) == [])
        #expect(op.stateBytes < 200)
    }

    @Test func rowsShowWhenTheUpperBoundReachesThem() throws {
        // ts <= now()
        var op = try filter(lower: false)
        #expect(try barrier(&op, 1, at: 100) == [])
        #expect(try process(&op, [(.insert, 1, 50), (.insert, 2, 150), (.insert, 3, 300), (.insert, 4, 200)]) == [["+", "1"]])
        // Inclusive: the row exactly at the bound shows.
        #expect(try barrier(&op, 2, at: 200) == [["+", "2"], ["+", "4"]])
        // A waiting row deleted never shows; a shown row's delete passes at once.
        #expect(try process(&op, [(.delete, 3, 300), (.delete, 1, 50)]) == [["-", "1"]])
        #expect(try barrier(&op, 3, at: 400) == [])
    }
}
