import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

/// Window functions in the select list and ORDER BY: each call becomes a sort of the rows
/// (after WHERE, GROUP BY and HAVING) by its partition and order expressions and a
/// ``SluicePlan/BatchPlan/window(input:partitionColumns:orderColumns:functions:)`` that
/// appends its value as a hidden column, which the call then binds to.
///
/// Only the ranking functions (`row_number`, `rank`, `dense_rank`) are supported; aggregates
/// over windows are not yet.
extension Binder {
    /// The window calls in `expressions`, each once, in the order met.
    func collectWindowCalls(_ expressions: [Expression]) -> [FunctionCall] {
        var calls: [FunctionCall] = []
        for expression in expressions {
            Self.walk(expression) { node in
                if case .function(let call) = node.node, call.over != nil {
                    if !calls.contains(call) { calls.append(call) }
                    return false
                }
                return true
            }
        }
        return calls
    }

    /// `input` with one hidden column per window call appended; `columns` maps each call to its
    /// column, for ``ExpressionContext/windows``.
    mutating func bindWindows(
        _ calls: [FunctionCall], input: BoundQuery, aggregates: AggregateMapping?
    ) throws(SluiceError) -> (query: BoundQuery, columns: [FunctionCall: Int]) {
        var query = input
        var columns: [FunctionCall: Int] = [:]
        for call in calls {
            let name = call.name.name
            guard case .specification(let specification)? = call.over, specification.baseName == nil else {
                throw SluiceError(.featureNotSupported, "named windows are not supported yet")
            }
            let kind: WindowFunctionKind
            switch name {
            case "row_number": kind = .rowNumber
            case "rank": kind = .rank
            case "dense_rank": kind = .denseRank
            default: throw SluiceError(.featureNotSupported, "window function \(name) is not supported yet")
            }
            guard call.arguments.isEmpty, !call.isStar, !call.isDistinct, call.filter == nil, call.orderBy.isEmpty else {
                throw SluiceError(.undefinedFunction, "function \(name) with these arguments does not exist")
            }
            var context = ExpressionContext(scope: query.scope, clause: "window definitions", aggregates: aggregates)
            context.allowsSubqueries = false
            var extra: [ScalarExpr] = []
            for expression in specification.partitionBy + specification.orderBy.map(\.expression) {
                let bound = try bindExpression(expression, &context)
                extra.append(bound.type == .unknown ? try coerce(bound, to: .varchar, position: nil) : bound)
            }
            let width = query.scope.entries.count
            let partitionColumns = Array(width ..< width + specification.partitionBy.count)
            let orderColumns = Array(width + specification.partitionBy.count ..< width + extra.count)
            let keys = partitionColumns.map { SortKey(column: $0) }
                + zip(orderColumns, specification.orderBy).map { SortKey(column: $0, descending: $1.ascending == false, nullsFirst: $1.nullsFirst) }
            var plan = BatchPlan.project(input: query.plan, expressions: query.scope.types.enumerated().map { .column($0.offset, $0.element) } + extra)
            if !keys.isEmpty { plan = .sort(input: plan, keys: keys) }
            plan = .window(input: plan, partitionColumns: partitionColumns, orderColumns: orderColumns, functions: [kind])
            var entries = query.scope.entries
            entries += extra.map { Scope.Entry(qualifier: nil, name: "?window?", type: $0.type, isHidden: true) }
            entries.append(Scope.Entry(qualifier: nil, name: "?window?", type: .int64, isHidden: true))
            columns[call] = entries.count - 1
            query = BoundQuery(plan: plan, scope: Scope(entries: entries))
        }
        return (query, columns)
    }
}
