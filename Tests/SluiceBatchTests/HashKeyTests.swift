import SluiceCore
import SluiceExpr
import SluicePlan
import Testing

@testable import SluiceBatch

/// The hash joins and the hash aggregate compare keys through hashes and typed column compares;
/// these check them against plans that compare with SQL's `=` (a nested-loop join with an
/// equality predicate) and against groups counted by each row's printed key, over keys of every
/// layout (int, bigint, text, numerics equal at different scales, booleans, two columns), with
/// nulls and duplicates, in several chunks.
@Suite struct HashKeyTests {
    /// Random key columns of one type; numerics mix scales so that 1.5 and 1.50 meet.
    static func keyValues(_ type: DataType, count: Int, random: inout SplitMix64) -> [Value] {
        (0 ..< count).map { _ in
            if random.next() % 7 == 0 { return .null }
            let small = Int(random.next() % 12)
            switch type {
            case .int32: return .int32(Int32(small))
            case .int64: return .int64(Int64(small) - 6)
            case .varchar: return .string(small == 0 ? "" : String(repeating: "ab", count: small % 5) + "\(small)")
            case .numeric: return .decimal(Decimal(mantissa: Int128(small) * (random.next() % 2 == 0 ? 10 : 100), scale: random.next() % 2 == 0 ? 1 : 2))
            case .boolean: return .bool(small % 2 == 0)
            default: return .null
            }
        }
    }

    static func plan(_ columns: [[Value]], types: [DataType], chunkSize: Int) -> BatchPlan {
        // UNION ALL keeps each part its own chunk, so the operators see several chunks.
        let count = columns.first?.count ?? 0
        let parts = stride(from: 0, to: max(count, 1), by: chunkSize).map { start in
            values((start ..< min(count, start + chunkSize)).map { row in columns.map { $0[row] } }, types)
        }
        return .union(inputs: parts, distinct: false)
    }

    static func sorted(_ rows: [[Value]]) -> [String] { rows.map { "\($0)" }.sorted() }

    @Test(arguments: [[DataType.int32], [.int64], [.varchar], [.numeric], [.boolean], [.varchar, .int32], [.numeric, .int64]])
    func hashJoinsEqualNestedLoopJoinsOnEquality(types: [DataType]) throws {
        var random = SplitMix64(seed: UInt64(types.count * 31 + types.map(\.sqlName).joined().utf8.count))
        let left = types.map { Self.keyValues($0, count: 700, random: &random) }
        let right = types.map { Self.keyValues($0, count: 300, random: &random) }
        let leftPlan = Self.plan(left, types: types, chunkSize: 256)
        let rightPlan = Self.plan(right, types: types, chunkSize: 100)
        let width = types.count
        let equalities = types.enumerated().map { index, type in
            ScalarExpr.call(.comparison(.equal, type), [.column(index, type), .column(width + index, type)])
        }
        let predicate = equalities.count == 1 ? equalities[0] : ScalarExpr.and(equalities)
        for kind in [JoinKind.inner, .left, .right, .full, .semi, .anti] {
            let hashed = BatchPlan.hashJoin(
                HashJoin(left: leftPlan, right: rightPlan, kind: kind, leftKeys: Array(0 ..< width), rightKeys: Array(0 ..< width), residual: nil))
            let looped = BatchPlan.nestedLoopJoin(left: leftPlan, right: rightPlan, kind: kind, predicate: predicate)
            let expected = try run(looped)
            #expect(Self.sorted(try run(hashed)) == Self.sorted(expected), "\(types) \(kind)")
            if kind == .inner { #expect(!expected.isEmpty) }
        }
    }

    @Test(arguments: [[DataType.int32], [.varchar], [.numeric], [.boolean], [.varchar, .int32], [.numeric, .int64, .varchar]])
    func hashAggregateGroupsAsEqualKeys(types: [DataType]) throws {
        var random = SplitMix64(seed: UInt64(97 + types.count))
        let keys = types.map { Self.keyValues($0, count: 3000, random: &random) }
        let aggregate = BatchPlan.hashAggregate(
            input: Self.plan(keys, types: types, chunkSize: 1000), groupCount: types.count,
            aggregates: [AggregateCall(kind: .countStar, argument: nil, resultType: .int64)])
        // The oracle: rows counted by their key's text, numerics normalized (1.50 is 1.5).
        func text(_ value: Value) -> String {
            if case .decimal(let decimal) = value { return "\(decimal.normalized)" }
            return "\(value)"
        }
        var expected: [String: Int64] = [:]
        for row in 0 ..< 3000 { expected[keys.map { text($0[row]) }.joined(separator: "|"), default: 0] += 1 }
        var got: [String: Int64] = [:]
        for row in try run(aggregate) {
            let key = row.dropLast().map(text).joined(separator: "|")
            #expect(got[key] == nil, "group \(key) twice")
            if case .int64(let count) = row.last! { got[key] = count }
        }
        #expect(got == expected, "\(got.filter { expected[$0.key] != $0.value }) vs \(expected.filter { got[$0.key] != $0.value })")
        #expect(expected.count >= 3)
    }
}
