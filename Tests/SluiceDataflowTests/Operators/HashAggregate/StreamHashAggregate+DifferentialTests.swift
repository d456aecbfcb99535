import SluiceBatch
import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState
import Testing

@testable import SluiceDataflow

/// The stream aggregate against the batch executor: a seeded history of inserts, deletes and
/// update pairs, cut into random chunks and epochs, deleting the current extremes often. After
/// every barrier the rows kept from the operator's changes equal the batch hashAggregate over
/// the live rows, aggregate by aggregate.
@Suite struct StreamHashAggregateDifferentialTests {
    /// Input columns: g text, h bigint (the group keys), i bigint, s text, d numeric(10,2),
    /// b boolean, f boolean (a FILTER), o bigint not null (an ORDER BY key), dl text (a
    /// delimiter), comma text (always ',').
    static let inputTypes: [DataType] = [
        .varchar, .int64, .int64, .varchar, .decimal(precision: 10, scale: 2), .boolean, .boolean, .int64, .varchar, .varchar,
    ]
    static let (g, h, i, s, d, b, f, o, dl, comma) = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9)

    static let decimalType = inputTypes[d]

    static let aggregates: [AggregateCall] = [
        AggregateCall(kind: .countStar, argument: nil, resultType: .int64),
        AggregateCall(kind: .count, argument: i, resultType: .int64),
        AggregateCall(kind: .sum, argument: i, resultType: .numeric),
        AggregateCall(kind: .avg, argument: d, resultType: .numeric),
        AggregateCall(kind: .min, argument: i, resultType: .int64),
        AggregateCall(kind: .max, argument: i, resultType: .int64),
        AggregateCall(kind: .min, argument: s, resultType: .varchar),
        AggregateCall(kind: .max, argument: s, resultType: .varchar),
        AggregateCall(kind: .min, argument: d, resultType: decimalType),
        AggregateCall(kind: .max, argument: d, resultType: decimalType),
        AggregateCall(kind: .max, argument: b, resultType: .boolean),
        AggregateCall(kind: .max, argument: i, filter: f, resultType: .int64),
        AggregateCall(kind: .min, argument: s, filter: f, resultType: .varchar),
        AggregateCall(kind: .count, argument: i, filter: f, resultType: .int64),
        AggregateCall(kind: .count, argument: i, distinct: true, resultType: .int64),
        AggregateCall(kind: .sum, argument: d, distinct: true, resultType: .numeric),
        AggregateCall(kind: .avg, argument: i, distinct: true, filter: f, resultType: .numeric),
        AggregateCall(kind: .count, argument: s, distinct: true, resultType: .int64),
        AggregateCall(kind: .boolAnd, argument: b, resultType: .boolean),
        AggregateCall(kind: .boolOr, argument: b, resultType: .boolean),
        AggregateCall(kind: .boolAnd, argument: b, filter: f, resultType: .boolean),
        AggregateCall(kind: .stringAgg, argument: s, delimiter: dl, resultType: .varchar),
        AggregateCall(kind: .stringAgg, argument: s, delimiter: dl, orderBy: [SortKey(column: o, descending: true)], resultType: .varchar),
        AggregateCall(kind: .stringAgg, argument: s, delimiter: comma, distinct: true, resultType: .varchar),
        AggregateCall(kind: .stringAgg, argument: s, delimiter: comma, distinct: true, orderBy: [SortKey(column: s, descending: true)], resultType: .varchar),
        AggregateCall(kind: .arrayAgg, argument: i, resultType: .list(.int64)),
        AggregateCall(kind: .arrayAgg, argument: d, orderBy: [SortKey(column: i, nullsFirst: true)], resultType: .list(decimalType)),
        AggregateCall(kind: .arrayAgg, argument: s, filter: f, orderBy: [SortKey(column: b, descending: true), SortKey(column: o)], resultType: .list(.varchar)),
        AggregateCall(kind: .arrayAgg, argument: o, distinct: true, resultType: .list(.int64)),
        AggregateCall(kind: .arrayAgg, argument: o, distinct: true, filter: f, orderBy: [SortKey(column: o, descending: true)], resultType: .list(.int64)),
    ]

    /// The same aggregate as the batch executor must compute it to give the stream's order:
    /// the stream breaks ORDER BY ties by the value (ascending, NULLs last) and then the
    /// delimiter (ascending, NULLs first), and orders by the value without ORDER BY; the batch
    /// executor keeps ties in input order. Its DISTINCT dedups after sorting, so the same key
    /// order gives the same elements.
    static func oracleCall(_ call: AggregateCall) -> AggregateCall {
        guard call.kind == .stringAgg || call.kind == .arrayAgg, let argument = call.argument else { return call }
        var oracle = call
        oracle.orderBy.append(SortKey(column: argument, descending: false, nullsFirst: false))
        if call.kind == .stringAgg, let delimiter = call.delimiter {
            oracle.orderBy.append(SortKey(column: delimiter, descending: false, nullsFirst: true))
        }
        return oracle
    }

    typealias Row = [Value]

    struct History {
        var random: SplitMix64
        var live: [Row] = []

        mutating func pick<T>(_ choices: [T]) -> T { choices[random.next(below: choices.count)] }
        mutating func maybeNull(_ value: Value, oneIn chance: Int) -> Value { random.next(below: chance) == 0 ? .null : value }

        mutating func newRow() -> Row {
            [
                maybeNull(.string(pick(["a", "b", "c"])), oneIn: 12),
                .int64(Int64(random.next(below: 2))),
                maybeNull(.int64(Int64(random.next(below: 41)) - 20), oneIn: 7),
                maybeNull(.string(pick(["", "a", "ab", "b", "bb", "ä", "z"])), oneIn: 6),
                maybeNull(.decimal(Decimal(mantissa: Int128(random.next(below: 1_001)) - 500, scale: 2)), oneIn: 6),
                maybeNull(.bool(random.next(below: 2) == 0), oneIn: 5),
                maybeNull(.bool(random.next(below: 3) != 0), oneIn: 6),
                .int64(Int64(random.next(below: 8))),
                maybeNull(.string(pick([",", ";", "--"])), oneIn: 5),
                .string(","),
            ]
        }

        /// A live row to delete: often one holding a current extreme of its group.
        mutating func victim() -> Int {
            let someRow = random.next(below: live.count)
            let column = pick([i, s, d, o])
            guard random.next(below: 2) == 0 else { return someRow }
            let group = Array(live[someRow][0 ..< 2])
            let members = live.indices.filter { Array(live[$0][0 ..< 2]) == group && !live[$0][column].isNull }
            guard let first = members.first else { return someRow }
            let wantsMax = random.next(below: 2) == 0
            return members.reduce(first) { best, index in
                let order = ValueOrdering.compare(live[index][column], live[best][column])
                return (wantsMax ? order > 0 : order < 0) ? index : best
            }
        }
    }

    @Test(arguments: [(groupCount: 2, seed: UInt64(11)), (groupCount: 1, seed: 12), (groupCount: 0, seed: 13)])
    func maintainedViewEqualsTheBatchAggregate(groupCount: Int, seed: UInt64) throws {
        var op = try StreamHashAggregate(inputTypes: Self.inputTypes, groupCount: groupCount, aggregates: Self.aggregates, stateTableID: 1)
        var history = History(random: SplitMix64(seed: seed))
        var view: [[String]: Int] = [:]
        var pending: [(ChangeOp, Row)] = []
        var operations = 0
        var groupDeletions = 0
        for epoch in 1 ... 120 {
            for _ in 0 ..< history.random.next(below: 40) {
                operations += 1
                let roll = history.random.next(below: 10)
                // Phases of many and of few live rows: groups empty out and come back.
                let deleteShare = history.live.count > (epoch / 15 % 2 == 0 ? 60 : 5) ? 6 : 3
                if !history.live.isEmpty && roll < deleteShare {
                    pending.append((.delete, history.live.remove(at: history.victim())))
                } else if !history.live.isEmpty && roll < deleteShare + 2 {
                    // An update: the same row with some columns changed, as an adjacent pair.
                    let old = history.live.remove(at: history.victim())
                    var new = history.newRow()
                    for column in 0 ..< new.count where history.random.next(below: 2) == 0 { new[column] = old[column] }
                    history.live.append(new)
                    pending += [(.updateDelete, old), (.updateInsert, new)]
                } else {
                    let row = history.newRow()
                    history.live.append(row)
                    pending.append((.insert, row))
                }
                if history.random.next(below: 6) == 0 { try feed(&op, &pending) }
            }
            try feed(&op, &pending)
            var output = OutputBuffer()
            var state = StateWriter(mode: .everything)
            try op.finishEpoch(Barrier(epoch: UInt64(epoch)), state: &state, into: &output)
            #expect(state.pagedTables.map(\.table) == op.stateTableIDs)
            for chunk in output.drain() {
                for rowIndex in 0 ..< chunk.count {
                    let row = chunk.data.row(rowIndex).map(Self.text)
                    if chunk.ops[rowIndex].isInsertion {
                        view[row, default: 0] += 1
                    } else {
                        if chunk.ops[rowIndex] == .delete { groupDeletions += 1 }
                        #expect(view[row] != nil, "epoch \(epoch): the operator retracted a row it never emitted: \(row)")
                        view[row, default: 0] -= 1
                        if view[row] == 0 { view[row] = nil }
                    }
                }
            }
            let expected = try batchRows(history.live, groupCount: groupCount)
            let actual = view.flatMap { row, count in [[String]](repeating: row, count: count) }
            let sortedActual = actual.sorted { $0.lexicographicallyPrecedes($1) }
            #expect(sortedActual == expected, "epoch \(epoch)")
            if sortedActual != expected {
                for (mine, theirs) in zip(sortedActual, expected) where mine != theirs {
                    for (index, pair) in zip(mine, theirs).enumerated() where pair.0 != pair.1 {
                        Issue.record("column \(index): stream \(pair.0) batch \(pair.1)")
                    }
                }
                return
            }
        }
        #expect(operations > 1_500)
        #expect(groupCount == 0 || groupDeletions > 10)
    }

    /// The batch hashAggregate over `rows`, one aggregate at a time (the batch executor allows
    /// one ORDER BY per query), joined on the group keys; each row as text, sorted.
    func batchRows(_ rows: [Row], groupCount: Int) throws -> [[String]] {
        let store = TableStore(types: Self.inputTypes, primaryKey: [])
        if !rows.isEmpty {
            try store.insert(Chunk(columns: Self.inputTypes.indices.map { column in Column(type: Self.inputTypes[column], values: rows.map { $0[column] }) }))
        }
        let executor = BatchExecutor(tables: OneTable(store: store), context: EvaluationContext())
        let scan = BatchPlan.scan(TableScan(tableID: 1, tableName: "t", columns: Array(Self.inputTypes.indices), columnTypes: Self.inputTypes))
        var byGroup: [[String]: [String]] = [:]
        for call in Self.aggregates {
            let result = try executor.runToChunk(.hashAggregate(input: scan, groupCount: groupCount, aggregates: [Self.oracleCall(call)]))
            for rowIndex in 0 ..< result.count {
                let row = result.row(rowIndex).map(Self.text)
                byGroup[Array(row.prefix(groupCount)), default: []].append(row[groupCount])
            }
        }
        return byGroup.map { $0.key + $0.value }.sorted { $0.lexicographicallyPrecedes($1) }
    }

    static func text(_ value: Value) -> String { value.isNull ? "NULL" : value.textForm }

    private func feed(_ op: inout StreamHashAggregate, _ pending: inout [(ChangeOp, Row)]) throws {
        if pending.isEmpty { return }
        let columns = Self.inputTypes.indices.map { column in Column(type: Self.inputTypes[column], values: pending.map { $0.1[column] }) }
        var output = OutputBuffer()
        try op.process(StreamChunk(ops: pending.map(\.0), data: Chunk(columns: columns)), from: 0, into: &output)
        pending = []
    }
}

private struct OneTable: TableProvider {
    var store: TableStore
    func store(for tableID: Int) -> TableStore? { tableID == 1 ? store : nil }
}
