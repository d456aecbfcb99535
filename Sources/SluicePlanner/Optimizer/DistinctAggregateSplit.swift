import SluiceCore
import SluiceExpr
import SluicePlan

/// An aggregate whose every call is `DISTINCT` over one argument (`count(DISTINCT x)`, TPC-H
/// q16) as two: the distinct pairs of group keys and argument first, by a grouping with no
/// calls, then the calls without `DISTINCT` over those pairs. The first grouping is an ordinary
/// hash aggregate, which spills past its memory budget, where a set of seen values per group
/// would hold them all; and it hashes each row once, as a column, not a key of bytes per row.
/// Batch queries only (a view keeps the state layout its plan fingerprint names).
enum DistinctAggregateSplit {
    /// The calls that give the same result over the distinct values as over all of them with
    /// `DISTINCT`.
    static let splittable: Set<AggregateKind> = [.count, .sum, .avg, .min, .max]

    static func apply(_ plan: BatchPlan) -> BatchPlan {
        let rewritten = plan.mappingInputs(includingSubqueries: true) { apply($0) }
        guard case .hashAggregate(let input, let groupCount, let aggregates) = rewritten, let first = aggregates.first,
            let argument = first.argument,
            aggregates.allSatisfy({
                $0.distinct && $0.argument == argument && $0.filter == nil && $0.delimiter == nil && $0.orderBy.isEmpty
                    && splittable.contains($0.kind)
            })
        else { return rewritten }
        let types = input.outputTypes
        let pairs = BatchPlan.hashAggregate(
            input: .project(input: input, expressions: (0 ..< groupCount).map { .column($0, types[$0]) } + [.column(argument, types[argument])]),
            groupCount: groupCount + 1, aggregates: [])
        let calls = aggregates.map { call -> AggregateCall in
            var plain = call
            plain.distinct = false
            plain.argument = groupCount
            return plain
        }
        return .hashAggregate(input: pairs, groupCount: groupCount, aggregates: calls)
    }
}
