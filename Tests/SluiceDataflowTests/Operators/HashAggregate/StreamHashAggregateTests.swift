import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState
import Testing

@testable import SluiceDataflow

@Suite struct StreamHashAggregateTests {
    func makeAggregate() throws -> StreamHashAggregate {
        try StreamHashAggregate(
            inputTypes: [.varchar, .int64], groupCount: 1,
            aggregates: [
                AggregateCall(kind: .countStar, argument: nil, resultType: .int64),
                AggregateCall(kind: .sum, argument: 1, resultType: .numeric),
            ], stateTableID: 1)
    }

    @Test func groupsAppearChangeAndVanishAcrossEpochs() throws {
        var aggregate = try makeAggregate()
        _ = try run(&aggregate, StreamChunk(pretty: """
             T I
            + a 1
            + a 2
            + b 5
            """))
        #expect(try barrier(&aggregate, 1) == [["+", "a", "2", "3"], ["+", "b", "1", "5"]])
        _ = try run(&aggregate, StreamChunk(pretty: """
             T I
            - a 1
            U- b 5
            U+ b 7
            """))
        #expect(try barrier(&aggregate, 2) == [["U-", "a", "2", "3"], ["U+", "a", "1", "2"], ["U-", "b", "1", "5"], ["U+", "b", "1", "7"]])
        _ = try run(&aggregate, StreamChunk(pretty: """
             T I
            - a 2
            """))
        // The group's count reached zero: it disappears.
        #expect(try barrier(&aggregate, 3) == [["-", "a", "1", "2"]])
        // An epoch that changes nothing emits nothing; inserting and deleting the same row too.
        _ = try run(&aggregate, StreamChunk(pretty: """
             T I
            + c 1
            - c 1
            """))
        #expect(try barrier(&aggregate, 4) == [])
    }

    @Test func sumOfOnlyNullsIsNullAndCountOfColumnSkipsNulls() throws {
        var aggregate = try StreamHashAggregate(
            inputTypes: [.varchar, .int64], groupCount: 1,
            aggregates: [
                AggregateCall(kind: .count, argument: 1, resultType: .int64),
                AggregateCall(kind: .sum, argument: 1, resultType: .numeric),
                AggregateCall(kind: .avg, argument: 1, resultType: .numeric),
            ], stateTableID: 1)
        _ = try run(&aggregate, StreamChunk(pretty: """
             T I
            + a .
            + b 1
            + b 2
            """))
        // PostgreSQL: SELECT g, count(v), sum(v), avg(v) … gives a|0|NULL|NULL and b|2|3|1.5000000000000000.
        #expect(try barrier(&aggregate, 1) == [["+", "a", "0", ".", "."], ["+", "b", "2", "3", "1.5000000000000000"]])
    }

    @Test func globalAggregateHasItsRowFromTheFirstBarrier() throws {
        var aggregate = try StreamHashAggregate(
            inputTypes: [.int64], groupCount: 0,
            aggregates: [AggregateCall(kind: .countStar, argument: nil, resultType: .int64), AggregateCall(kind: .sum, argument: 0, resultType: .numeric)],
            stateTableID: 1)
        #expect(try barrier(&aggregate, 1) == [["+", "0", "."]])
        _ = try run(&aggregate, StreamChunk(pretty: """
             I
            + 4
            """))
        #expect(try barrier(&aggregate, 2) == [["U-", "0", "."], ["U+", "1", "4"]])
        _ = try run(&aggregate, StreamChunk(pretty: """
             I
            - 4
            """))
        #expect(try barrier(&aggregate, 3) == [["U-", "1", "4"], ["U+", "0", "."]])
    }

    /// The view kept from the operator's changes equals a recomputation from scratch after every
    /// barrier, over a seeded history of inserts and deletes cut into random chunks and epochs.
    @Test func maintainedViewEqualsRecomputationThroughRandomHistory() throws {
        var random = SeededRandom(seed: 7)
        var aggregate = try makeAggregate()
        var live: [(String, Int64)] = []
        var view: [String: [String]] = [:]
        var pending: [(ChangeOp, String, Int64)] = []
        for epoch in 1 ... 300 {
            for _ in 0 ..< Int(random.next() % 12) {
                if !live.isEmpty && random.next() % 3 == 0 {
                    let index = Int(random.next() % UInt64(live.count))
                    let row = live.remove(at: index)
                    pending.append((.delete, row.0, row.1))
                } else {
                    let row = (["a", "b", "c", "d"][Int(random.next() % 4)], Int64(random.next() % 100) - 50)
                    live.append(row)
                    pending.append((.insert, row.0, row.1))
                }
                if random.next() % 4 == 0 {
                    try feed(&aggregate, &pending)
                }
            }
            try feed(&aggregate, &pending)
            for change in try barrier(&aggregate, UInt64(epoch)) {
                switch change[0] {
                case "+", "U+": view[change[1]] = Array(change.dropFirst(2))
                default: view[change[1]] = nil
                }
            }
            var expected: [String: [String]] = [:]
            for group in Set(live.map(\.0)) {
                let values = live.filter { $0.0 == group }.map(\.1)
                expected[group] = [String(values.count), String(values.reduce(0, +))]
            }
            #expect(view == expected, "epoch \(epoch)")
        }
    }

    private func feed(_ aggregate: inout StreamHashAggregate, _ pending: inout [(ChangeOp, String, Int64)]) throws {
        if pending.isEmpty { return }
        let chunk = StreamChunk(
            ops: pending.map(\.0),
            data: Chunk(columns: [Column(type: .varchar, values: pending.map { .string($0.1) }), Column(type: .int64, values: pending.map { .int64($0.2) })]))
        var output = OutputBuffer()
        try aggregate.process(chunk, from: 0, into: &output)
        pending = []
    }
}
