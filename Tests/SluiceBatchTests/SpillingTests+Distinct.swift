import Foundation
import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState
import Testing

@testable import SluiceBatch

/// DISTINCT aggregates whose (group, value) pairs pass the query's memory: the pairs not seen
/// by then are set aside on disk and deduplicated later, and the answers equal sets counted in
/// plain Swift.
extension SpillingTests {
    /// count(DISTINCT text), sum(DISTINCT bigint), count(*), count(DISTINCT bigint) FILTER
    /// (WHERE row < 20000) and max(DISTINCT text), grouped by `key` of the row.
    func distinctPlan(groupedBy key: ScalarExpr?) -> BatchPlan {
        let less = ScalarExpr.call(ScalarFunction.comparison(.less, .int64), [.column(2, .int64), .literal(.int64(20_000), .int64)])
        let groups = key.map { [$0] } ?? []
        let offset = groups.count
        return .hashAggregate(
            input: .project(input: scan(1), expressions: groups + [.column(1, .varchar), .column(0, .int64), less]), groupCount: offset,
            aggregates: [
                AggregateCall(kind: .count, argument: offset, distinct: true, resultType: .int64),
                AggregateCall(kind: .sum, argument: offset + 1, distinct: true, resultType: .numeric),
                AggregateCall(kind: .countStar, argument: nil, resultType: .int64),
                AggregateCall(kind: .count, argument: offset + 1, distinct: true, filter: offset + 2, resultType: .int64),
                AggregateCall(kind: .max, argument: offset, distinct: true, resultType: .varchar),
            ])
    }

    /// The answers of ``distinctPlan(groupedBy:)`` computed with sets, grouped by `key`.
    func distinctAnswers(_ rows: [(Int64?, String?, Int64?)], key: ((Int64?, String?, Int64?)) -> Value?) -> [String] {
        struct Group {
            var texts = Set<String>()
            var numbers = Set<Int64>()
            var count: Int64 = 0
            var filtered = Set<Int64>()
        }
        var groups: [String: (key: Value?, group: Group)] = [:]
        for row in rows {
            let value = key(row)
            var entry = groups["\(String(describing: value))"] ?? (value, Group())
            if let text = row.1 { entry.group.texts.insert(text) }
            if let number = row.0 {
                entry.group.numbers.insert(number)
                if row.2! < 20_000 { entry.group.filtered.insert(number) }
            }
            entry.group.count += 1
            groups["\(String(describing: value))"] = entry
        }
        return groups.values.map { key, group in
            let sum: Value = group.numbers.isEmpty ? .null : .decimal(SluiceCore.Decimal(group.numbers.reduce(0, +)))
            let max: Value = group.texts.max().map(Value.string) ?? .null
            let values: [Value] = [.int64(Int64(group.texts.count)), sum, .int64(group.count), .int64(Int64(group.filtered.count)), max]
            return "\((key.map { [$0] } ?? []) + values)"
        }.sorted()
    }

    @Test func distinctAggregatesWithoutGroupsSpillTheirPairsAndStayExact() throws {
        let rows = randomRows(40_000, keys: 30_000, seed: 31)
        let (executor, memory) = executor([1: try table(rows)], limit: 200_000)
        let got = try executor.run(distinctPlan(groupedBy: nil)).flatMap(\.rows).map { "\($0)" }
        #expect(memory.spilledBytes > 0)
        #expect(got == distinctAnswers(rows, key: { _ in nil }))
        // About 25,000 distinct values in each of three sets, a few megabytes as pairs; the
        // aggregate held about its limit and the operators' minimum.
        #expect(memory.peak < 2 * 200_000, "peak \(memory.peak)")
        #expect(memory.reserved == 0)
    }

    /// Few groups, each with many values (the groups fit, their pairs do not), and many groups
    /// (both spill); under a limit the empty tables nearly fill, too.
    @Test(arguments: [(Int64(3), 200_000), (3, 60_000), (4_000, 200_000)])
    func distinctAggregatesPerGroupSpillTheirPairsAndStayExact(modulus: Int64, limit: Int) throws {
        let rows = randomRows(40_000, keys: 30_000, seed: 32)
        let (executor, memory) = executor([1: try table(rows)], limit: limit)
        let key = ScalarExpr.call(ScalarFunction.arithmetic(.modulo, .int64)!, [.column(2, .int64), .literal(.int64(modulus), .int64)])
        let got = try executor.run(distinctPlan(groupedBy: key)).flatMap(\.rows).map { "\($0)" }.sorted()
        #expect(memory.spilledBytes > 0)
        #expect(got == distinctAnswers(rows, key: { .int64($0.2! % modulus) }))
        #expect(memory.reserved == 0)
    }

    /// Without a spill directory a DISTINCT set past the limit still fails with 53200, naming
    /// the aggregate.
    @Test func aDistinctSetPastTheLimitWithoutASpillDirectoryFailsWith53200() throws {
        let rows = randomRows(20_000, keys: 20_000, seed: 33)
        let memory = QueryMemory(limit: 200_000)
        let executor = BatchExecutor(tables: TestTables(stores: [1: try table(rows)]), context: EvaluationContext(), memory: memory)
        #expect {
            _ = try executor.run(distinctPlan(groupedBy: nil))
        } throws: { error in
            (error as? SluiceError)?.code == .outOfMemory && "\(error)".contains("DISTINCT")
        }
    }
}
