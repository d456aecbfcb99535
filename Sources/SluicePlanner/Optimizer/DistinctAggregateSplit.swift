import SluiceCore
import SluiceExpr
import SluicePlan

/// An aggregate whose `DISTINCT` calls share one argument (`count(DISTINCT x)`, TPC-H q16) as
/// two: a grouping by the group keys and that argument first, then the calls without `DISTINCT`
/// over its rows, one per distinct value. The first grouping is an ordinary hash aggregate,
/// which spills past its memory budget, where a set of seen values per group would hold them
/// all; and it hashes each row once, as a column, not a key of bytes per row.
///
/// Calls without `DISTINCT` beside them (`count(*), count(DISTINCT user)`) are computed in the
/// first grouping, per group and value, and combined in the second: counts summed, sums summed,
/// the extremes and the boolean and bit aggregates taken again. Other calls (`avg`, `string_agg`,
/// sums of floating-point numbers, whose rounding would change) leave the aggregate as it is.
/// Batch queries only (a view keeps the state layout its plan fingerprint names).
enum DistinctAggregateSplit {
    /// The calls that give the same result over the distinct values as over all of them with
    /// `DISTINCT`.
    static let splittable: Set<AggregateKind> = [.count, .sum, .avg, .min, .max]

    static func apply(_ plan: BatchPlan) -> BatchPlan {
        let rewritten = plan.mappingInputs(includingSubqueries: true) { apply($0) }
        guard case .hashAggregate(let input, let groupCount, let aggregates) = rewritten,
            let argument = aggregates.first(where: \.distinct)?.argument
        else { return rewritten }
        let types = input.outputTypes
        let distinct = aggregates.filter(\.distinct)
        let plain = aggregates.filter { !$0.distinct }
        guard distinct.allSatisfy({ $0.argument == argument && $0.filter == nil && $0.delimiter == nil && $0.orderBy.isEmpty && splittable.contains($0.kind) }),
            plain.allSatisfy({ combinable($0, types: types) })
        else { return rewritten }
        // First: per group and value, the plain calls over the input's columns they read.
        var columns: [ScalarExpr] = (0 ..< groupCount).map { .column($0, types[$0]) } + [.column(argument, types[argument])]
        func column(_ index: Int) -> Int {
            if let known = columns.firstIndex(of: .column(index, types[index])) { return known }
            columns.append(.column(index, types[index]))
            return columns.count - 1
        }
        let partials = plain.map { call -> AggregateCall in
            var partial = call
            partial.argument = call.argument.map(column)
            partial.filter = call.filter.map(column)
            if call.kind == .count || call.kind == .countStar { partial.resultType = .int64 }
            return partial
        }
        let first = BatchPlan.hashAggregate(input: .project(input: input, expressions: columns), groupCount: groupCount + 1, aggregates: partials)
        // Then: per group, the distinct calls over the values and the partials combined.
        var nextPartial = groupCount + 1
        let calls = aggregates.map { call -> AggregateCall in
            var outer = call
            outer.filter = nil
            if call.distinct {
                outer.distinct = false
                outer.argument = groupCount
                return outer
            }
            outer.argument = nextPartial
            nextPartial += 1
            if call.kind == .count || call.kind == .countStar { outer.kind = .sum }
            return outer
        }
        let second = BatchPlan.hashAggregate(input: first, groupCount: groupCount, aggregates: calls)
        guard groupCount == 0, plain.contains(where: { $0.kind == .count || $0.kind == .countStar }) else { return second }
        // Without groups and without rows the sums of counts have nothing to add: 0, not NULL.
        return .project(
            input: second,
            expressions: aggregates.enumerated().map { index, call in
                let value = ScalarExpr.column(index, call.resultType)
                guard !call.distinct, call.kind == .count || call.kind == .countStar else { return value }
                return .coalesce([value, .literal(.int64(0), .int64)], .int64)
            })
    }

    /// Whether a call without `DISTINCT` can be computed per group and value and combined.
    private static func combinable(_ call: AggregateCall, types: [DataType]) -> Bool {
        guard call.delimiter == nil, call.orderBy.isEmpty else { return false }
        switch call.kind {
        case .count, .countStar, .min, .max, .boolAnd, .boolOr, .bitAnd, .bitOr, .bitXor:
            return true
        case .sum:
            guard let argument = call.argument else { return false }
            switch types[argument] {
            case .int16, .int32, .int64, .decimal, .interval: return true
            default: return false
            }
        case .avg, .stringAgg, .arrayAgg:
            return false
        }
    }
}
