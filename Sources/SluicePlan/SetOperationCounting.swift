import SluiceCore
import SluiceExpr

/// INTERSECT and EXCEPT [ALL] as an aggregate, the plan batch queries and views both run: both
/// sides' rows tagged and grouped by every column with a count for each side (NULLs equal, as
/// set operations compare them), then each row repeated as many times as the operation keeps it
/// (ALL: the smaller count, or the left count less the right's; else once or not at all). Views
/// expand the copies with a set-returning expansion, so they retract like any aggregate; batch
/// queries repeat each counted row a chunk at a time, and spill with the aggregate.
package enum SetOperationCounting {
    /// The rows of `left` `kind` `right`, counted: ``counted(left:right:)`` with each row
    /// expanded to ``copies(kind:all:left:right:)`` copies.
    package static func plan(left: BatchPlan, right: BatchPlan, kind: SetOperationKind, all: Bool) -> BatchPlan {
        let columns = left.outputTypes.enumerated().map { ScalarExpr.column($0.offset, $0.element) }
        let width = columns.count
        let expanded = BatchPlan.projectSet(
            input: counted(left: left, right: right),
            expressions: columns + [.call(copiesArray(kind: kind, all: all), [.column(width, .int64), .column(width + 1, .int64)])],
            expands: Array(repeating: false, count: width) + [true])
        return .project(input: expanded, expressions: columns)
    }

    /// Each distinct row of either side (NULLs equal) with its number of rows on the left, then
    /// on the right.
    package static func counted(left: BatchPlan, right: BatchPlan) -> BatchPlan {
        let types = left.outputTypes
        let columns = types.enumerated().map { ScalarExpr.column($0.offset, $0.element) }
        func tagged(_ plan: BatchPlan, isLeft: Bool) -> BatchPlan {
            .project(input: plan, expressions: columns + [.literal(.bool(isLeft), .boolean), .literal(.bool(!isLeft), .boolean)])
        }
        let width = types.count
        return .hashAggregate(
            input: .union(inputs: [tagged(left, isLeft: true), tagged(right, isLeft: false)], distinct: false), groupCount: width,
            aggregates: [
                AggregateCall(kind: .countStar, argument: nil, filter: width, resultType: .int64),
                AggregateCall(kind: .countStar, argument: nil, filter: width + 1, resultType: .int64),
            ])
    }

    /// How many copies of a row with `left` and `right` occurrences the operation keeps.
    package static func copies(kind: SetOperationKind, all: Bool, left: Int64, right: Int64) -> Int64 {
        GroupingFunctions.copies(intersect: kind == .intersect, all: all, left: left, right: right)
    }

    /// How many copies of a group's row the operation keeps, from the two sides' counts, as
    /// an array of that many elements (for the expansion).
    private static func copiesArray(kind: SetOperationKind, all: Bool) -> ScalarFunction {
        GroupingFunctions.copiesArray(intersect: kind == .intersect, all: all)
    }
}
