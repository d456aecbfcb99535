import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState
import Testing

@testable import SluiceDataflow

/// The aggregates that keep ordered per-group state: min, max, DISTINCT, string_agg, array_agg;
/// and bool_and / bool_or, FILTER, and the state the operator writes.
@Suite struct StreamHashAggregateOrderedStateTests {
    func aggregate(_ inputTypes: [DataType], groupCount: Int = 1, _ calls: [AggregateCall], stateTableID: Int = 10) throws -> StreamHashAggregate {
        try StreamHashAggregate(inputTypes: inputTypes, groupCount: groupCount, aggregates: calls, stateTableID: stateTableID)
    }

    @Test func deletingTheCurrentMaximumShowsTheNextOne() throws {
        var op = try aggregate([.varchar, .int64], [
            AggregateCall(kind: .min, argument: 1, resultType: .int64),
            AggregateCall(kind: .max, argument: 1, resultType: .int64),
        ])
        _ = try run(&op, StreamChunk(pretty: """
             T I
            + a 1
            + a 5
            + a 9
            + a 9
            + b .
            """))
        // b has only a NULL: min and max over no values are NULL, but the group exists.
        #expect(try barrier(&op, 1) == [["+", "a", "1", "9"], ["+", "b", ".", "."]])
        _ = try run(&op, StreamChunk(pretty: """
             T I
            - a 9
            """))
        // One of the two nines is left: nothing changed.
        #expect(try barrier(&op, 2) == [])
        _ = try run(&op, StreamChunk(pretty: """
             T I
            - a 9
            """))
        #expect(try barrier(&op, 3) == [["U-", "a", "1", "9"], ["U+", "a", "1", "5"]])
        _ = try run(&op, StreamChunk(pretty: """
             T I
            - a 1
            + b 4
            """))
        #expect(try barrier(&op, 4) == [["U-", "a", "1", "5"], ["U+", "a", "5", "5"], ["U-", "b", ".", "."], ["U+", "b", "4", "4"]])
    }

    @Test func deletingTheLastRowOfAGroupDeletesTheGroup() throws {
        var op = try aggregate([.varchar, .varchar], [
            AggregateCall(kind: .max, argument: 1, resultType: .varchar),
            AggregateCall(kind: .stringAgg, argument: 1, resultType: .varchar),
            AggregateCall(kind: .arrayAgg, argument: 1, resultType: .list(.varchar)),
        ])
        _ = try run(&op, StreamChunk(pretty: """
             T T
            + a x
            + a y
            """))
        #expect(try barrier(&op, 1) == [["+", "a", "y", "xy", "{x,y}"]])
        _ = try run(&op, StreamChunk(pretty: """
             T T
            - a y
            - a x
            """))
        #expect(try barrier(&op, 2) == [["-", "a", "y", "xy", "{x,y}"]])
        // Its ordered state is gone with it: the group comes back fresh.
        _ = try run(&op, StreamChunk(pretty: """
             T T
            + a z
            """))
        #expect(try barrier(&op, 3) == [["+", "a", "z", "z", "{z}"]])
    }

    @Test func updatePairsMoveRowsBetweenGroupsAndValues() throws {
        var op = try aggregate([.varchar, .int64], [
            AggregateCall(kind: .countStar, argument: nil, resultType: .int64),
            AggregateCall(kind: .max, argument: 1, resultType: .int64),
        ])
        _ = try run(&op, StreamChunk(pretty: """
             T I
            + a 3
            + a 7
            """))
        #expect(try barrier(&op, 1) == [["+", "a", "2", "7"]])
        _ = try run(&op, StreamChunk(pretty: """
             T I
            U- a 7
            U+ a 2
            U- a 3
            U+ b 3
            """))
        #expect(try barrier(&op, 2) == [["U-", "a", "2", "7"], ["U+", "a", "1", "2"], ["+", "b", "1", "3"]])
    }

    @Test func stringAggAndArrayAggFollowTheirOrderByAndKeepNulls() throws {
        // string_agg(s, d ORDER BY k DESC), array_agg(s ORDER BY k), array_agg(s) (by value, NULLs last).
        var op = try aggregate([.varchar, .varchar, .varchar, .int64], [
            AggregateCall(kind: .stringAgg, argument: 1, delimiter: 2, orderBy: [SortKey(column: 3, descending: true)], resultType: .varchar),
            AggregateCall(kind: .arrayAgg, argument: 1, orderBy: [SortKey(column: 3)], resultType: .list(.varchar)),
            AggregateCall(kind: .arrayAgg, argument: 1, resultType: .list(.varchar)),
        ])
        _ = try run(&op, StreamChunk(pretty: """
             T T T I
            + g b - 2
            + g . + 3
            + g a ; 1
            + g c . .
            """))
        // DESC puts the NULL key first; each element after the first brings its own delimiter,
        // a NULL one counting as empty; string_agg skips the NULL value, array_agg keeps it.
        #expect(try barrier(&op, 1) == [["+", "g", "c-b;a", "{a,b,NULL,c}", "{a,b,c,NULL}"]])
        _ = try run(&op, StreamChunk(pretty: """
             T T T I
            - g c . .
            """))
        #expect(try barrier(&op, 2) == [["U-", "g", "c-b;a", "{a,b,NULL,c}", "{a,b,c,NULL}"], ["U+", "g", "b;a", "{a,b,NULL}", "{a,b,NULL}"]])
    }

    @Test func distinctAggregatesCountEachValueOnceWhileAnyCopyIsLive() throws {
        var op = try aggregate([.varchar, .int64], [
            AggregateCall(kind: .count, argument: 1, distinct: true, resultType: .int64),
            AggregateCall(kind: .sum, argument: 1, distinct: true, resultType: .numeric),
            AggregateCall(kind: .avg, argument: 1, distinct: true, resultType: .numeric),
            AggregateCall(kind: .arrayAgg, argument: 1, distinct: true, resultType: .list(.int64)),
            AggregateCall(kind: .count, argument: 1, resultType: .int64),
        ])
        _ = try run(&op, StreamChunk(pretty: """
             T I
            + a 2
            + a 2
            + a 4
            + a .
            + a .
            """))
        // array_agg(DISTINCT x) keeps one NULL, sorted last, as in Postgres.
        #expect(try barrier(&op, 1) == [["+", "a", "2", "6", "3.0000000000000000", "{2,4,NULL}", "3"]])
        _ = try run(&op, StreamChunk(pretty: """
             T I
            - a 2
            - a .
            """))
        #expect(try barrier(&op, 2) == [
            ["U-", "a", "2", "6", "3.0000000000000000", "{2,4,NULL}", "3"], ["U+", "a", "2", "6", "3.0000000000000000", "{2,4,NULL}", "2"],
        ])
        _ = try run(&op, StreamChunk(pretty: """
             T I
            - a 2
            - a .
            """))
        #expect(try barrier(&op, 3) == [
            ["U-", "a", "2", "6", "3.0000000000000000", "{2,4,NULL}", "2"], ["U+", "a", "1", "4", "4.0000000000000000", "{4}", "1"],
        ])
    }

    @Test func boolAndAndBoolOrCountTrueAndFalseInputs() throws {
        var op = try aggregate([.varchar, .boolean], [
            AggregateCall(kind: .boolAnd, argument: 1, resultType: .boolean),
            AggregateCall(kind: .boolOr, argument: 1, resultType: .boolean),
        ])
        _ = try run(&op, StreamChunk(pretty: """
             T B
            + a t
            + a f
            + b .
            """))
        #expect(try barrier(&op, 1) == [["+", "a", "f", "t"], ["+", "b", ".", "."]])
        _ = try run(&op, StreamChunk(pretty: """
             T B
            - a f
            """))
        #expect(try barrier(&op, 2) == [["U-", "a", "f", "t"], ["U+", "a", "t", "t"]])
    }

    @Test func filterAppliesToOrderedAggregates() throws {
        // max(v) FILTER (WHERE keep), string_agg(s, ',') FILTER (WHERE keep), count(DISTINCT v) FILTER (WHERE keep).
        var op = try aggregate([.varchar, .int64, .boolean, .varchar, .varchar], [
            AggregateCall(kind: .max, argument: 1, filter: 2, resultType: .int64),
            AggregateCall(kind: .stringAgg, argument: 3, delimiter: 4, filter: 2, resultType: .varchar),
            AggregateCall(kind: .count, argument: 1, distinct: true, filter: 2, resultType: .int64),
        ])
        _ = try run(&op, StreamChunk(pretty: """
             T I B T T
            + a 9 f x ,
            + a 4 t y ,
            + a 3 . z ,
            + a 1 t w ,
            """))
        #expect(try barrier(&op, 1) == [["+", "a", "4", "w,y", "2"]])
        _ = try run(&op, StreamChunk(pretty: """
             T I B T T
            - a 4 t y ,
            - a 1 t w ,
            """))
        #expect(try barrier(&op, 2) == [["U-", "a", "4", "w,y", "2"], ["U+", "a", ".", ".", "0"]])
    }

    @Test func extremesKeepEqualValuesOfDifferentScaleApart() throws {
        var op = try aggregate([.numeric], groupCount: 0, [AggregateCall(kind: .max, argument: 0, resultType: .numeric)])
        func feed(_ op: inout StreamHashAggregate, _ ops: [ChangeOp], _ decimals: [Decimal]) throws {
            var output = OutputBuffer()
            try op.process(StreamChunk(ops: ops, data: Chunk(columns: [Column(type: .numeric, values: decimals.map(Value.decimal))])), from: 0, into: &output)
        }
        let (oneFiftyHundredths, oneFiveTenths) = (Decimal(mantissa: 150, scale: 2), Decimal(mantissa: 15, scale: 1))
        try feed(&op, [.insert, .insert], [oneFiftyHundredths, oneFiveTenths])
        #expect(try barrier(&op, 1) == [["+", "1.50"]])
        // Equal as numbers, but 1.5 is what is left, and shows as itself.
        try feed(&op, [.delete], [oneFiftyHundredths])
        #expect(try barrier(&op, 2) == [["U-", "1.50"], ["U+", "1.5"]])
    }

    @Test func everyStateTableIsWrittenEachEpochUnderItsOwnID() throws {
        var op = try aggregate([.varchar, .int64, .varchar], [
            AggregateCall(kind: .min, argument: 1, resultType: .int64),
            AggregateCall(kind: .count, argument: 1, distinct: true, resultType: .int64),
            AggregateCall(kind: .max, argument: 1, resultType: .int64),
            AggregateCall(kind: .stringAgg, argument: 2, resultType: .varchar),
        ], stateTableID: 40)
        // min and max share one ordered state.
        #expect(op.stateTableIDs == [40, 41, 42, 43])
        op.enableCheckpoints()
        _ = try run(&op, StreamChunk(pretty: """
             T I T
            + a 1 x
            + a 1 y
            """))
        var output = OutputBuffer()
        var state = StateWriter(mode: .changes)
        try op.finishEpoch(Barrier(epoch: 1), state: &state, into: &output)
        let changed = state.pagedTables.map { $0.section() }
        #expect(changed.map(\.table) == [40, 41, 42, 43])
        #expect(changed.map(\.keys.count) == [1, 1, 1, 2])
        // The two equal values are one entry of multiplicity two, typed as the argument.
        #expect(changed[1].types == [.int64] && changed[1].counts == [2] && changed[1].rows.row(0) == [.int64(1)])
        _ = try run(&op, StreamChunk(pretty: """
             T I T
            - a 1 x
            - a 1 y
            """))
        var second = StateWriter(mode: .changes)
        try op.finishEpoch(Barrier(epoch: 2), state: &second, into: &output)
        #expect(second.pagedTables.map { $0.section().removed.count } == [1, 1, 1, 2])
    }

    @Test func distinctWithOrderByOverOtherColumnsIsRefused() {
        #expect(throws: SluiceError.self) {
            try StreamHashAggregate(
                inputTypes: [.varchar, .int64], groupCount: 0,
                aggregates: [AggregateCall(kind: .arrayAgg, argument: 0, distinct: true, orderBy: [SortKey(column: 1)], resultType: .list(.varchar))],
                stateTableID: 1)
        }
        // ORDER BY the argument itself is fine.
        #expect(throws: Never.self) {
            try StreamHashAggregate(
                inputTypes: [.varchar, .int64], groupCount: 0,
                aggregates: [AggregateCall(kind: .arrayAgg, argument: 0, distinct: true, orderBy: [SortKey(column: 0, descending: true)], resultType: .list(.varchar))],
                stateTableID: 1)
        }
    }
}
