import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

/// `GROUP BY GROUPING SETS (…)`, `ROLLUP (…)`, `CUBE (…)` and `()`: the GROUP BY list becomes
/// its grouping sets (the cross product of its elements' sets, as in PostgreSQL), each a list of
/// the grouping columns it keeps.
///
/// The plan groups every set at once: the aggregate's input is one copy of the rows per
/// non-empty set (UNION ALL), the columns outside the set made NULL and the set's number added as
/// one more group key, so that a NULL of a rolled-up column is not the NULL of a row. An empty
/// set is a global aggregate of its own (one row even over no rows, as in PostgreSQL). Both
/// shapes also maintain incrementally in materialized views. `grouping(…)` reads the set number.
struct GroupingSets {
    /// The distinct grouping columns, in order of first appearance.
    var columns: [Expression]
    /// Each set's columns, as indexes into `columns`.
    var sets: [[Int]]

    /// The grouping sets of `groupBy`, or nil when it is a plain list of expressions.
    static func of(_ groupBy: [Expression]) throws(SluiceError) -> GroupingSets? {
        guard groupBy.contains(where: isConstruct) else { return nil }
        var product: [[Expression]] = [[]]
        for element in groupBy {
            let sets = try expand(element)
            var next: [[Expression]] = []
            for prefix in product {
                for set in sets { next.append(prefix + set) }
            }
            product = next
            if product.count > 4096 { throw SluiceError(.programLimitExceeded, "too many grouping sets present (maximum 4096)") }
        }
        var result = GroupingSets(columns: [], sets: [])
        for set in product {
            var indexes: [Int] = []
            for expression in set {
                let index = result.columns.firstIndex(of: expression) ?? {
                    result.columns.append(expression)
                    return result.columns.count - 1
                }()
                if !indexes.contains(index) { indexes.append(index) }
            }
            result.sets.append(indexes)
        }
        return result
    }

    private static func isConstruct(_ expression: Expression) -> Bool {
        switch expression.node {
        case .function(let call): ["grouping sets", "rollup", "cube"].contains(call.name.name) && call.name.qualifier.isEmpty
        case .row(let items, _): items.isEmpty
        default: false
        }
    }

    /// The sets one element stands for.
    private static func expand(_ element: Expression) throws(SluiceError) -> [[Expression]] {
        // A parenthesized list is one set of several columns.
        func columns(_ item: Expression) -> [Expression] {
            if case .row(let items, _) = item.node { return items }
            return [item]
        }
        guard case .function(let call) = element.node, call.name.qualifier.isEmpty else { return [columns(element)] }
        switch call.name.name {
        case "grouping sets":
            var sets: [[Expression]] = []
            for item in call.arguments { sets += try expand(item) }
            return sets
        case "rollup":
            // (a, b, c), (a, b), (a), ().
            let items = call.arguments.map(columns)
            return (0 ... items.count).reversed().map { Array(items.prefix($0).joined()) }
        case "cube":
            // Every subset, the whole list first.
            let items = call.arguments.map(columns)
            guard items.count <= 12 else { throw SluiceError(.programLimitExceeded, "CUBE is limited to 12 elements") }
            return (0 ..< (1 << items.count)).reversed().map { mask in
                Array(items.indices.filter { mask & (1 << (items.count - 1 - $0)) != 0 }.map { items[$0] }.joined())
            }
        default:
            return [columns(element)]
        }
    }
}

extension Binder {
    /// The aggregate's plan for grouping sets: `input` projected to `projected` (the group
    /// columns first, then the aggregates' inputs), grouped once per set. Its output: the group
    /// columns, the set number, then the aggregates.
    static func groupingSetsPlan(
        input: BatchPlan, projected: [ScalarExpr], groupCount: Int, sets: [[Int]], aggregates: [AggregateCall]
    ) -> BatchPlan {
        let base = BatchPlan.project(input: input, expressions: projected)
        let types = projected.map(\.type)
        func keys(_ set: [Int], _ number: Int) -> [ScalarExpr] {
            (0 ..< groupCount).map { set.contains($0) ? .column($0, types[$0]) : .literal(.null, types[$0]) } + [.literal(.int32(Int32(number)), .int32)]
        }
        // The aggregates read the projected columns after the set number.
        func shifted(_ column: Int) -> Int { column >= groupCount ? column + 1 : column }
        let grouped = aggregates.map { call -> AggregateCall in
            var call = call
            call.argument = call.argument.map(shifted)
            call.delimiter = call.delimiter.map(shifted)
            call.filter = call.filter.map(shifted)
            call.orderBy = call.orderBy.map { SortKey(column: shifted($0.column), descending: $0.descending, nullsFirst: $0.nullsFirst) }
            return call
        }
        var parts: [BatchPlan] = []
        let copies = sets.enumerated().filter { !$0.element.isEmpty }.map { number, set in
            BatchPlan.project(input: base, expressions: keys(set, number) + (groupCount ..< projected.count).map { .column($0, types[$0]) })
        }
        if !copies.isEmpty {
            let input = copies.count == 1 ? copies[0] : .union(inputs: copies, distinct: false)
            parts.append(.hashAggregate(input: input, groupCount: groupCount + 1, aggregates: grouped))
        }
        for (number, set) in sets.enumerated() where set.isEmpty {
            let global = BatchPlan.hashAggregate(input: base, groupCount: 0, aggregates: aggregates)
            parts.append(.project(input: global, expressions: keys(set, number) + aggregates.enumerated().map { .column($0.offset, $0.element.resultType) }))
        }
        return parts.count == 1 ? parts[0] : .union(inputs: parts, distinct: false)
    }

    /// `grouping(a, b, …)`: a bit per argument, the first the highest, set when the row's
    /// grouping set leaves that column out.
    mutating func bindGroupingCall(_ call: FunctionCall, mapping: AggregateMapping, position: Int?) throws(SluiceError) -> ScalarExpr {
        guard !call.arguments.isEmpty, call.arguments.count <= 31 else {
            throw SluiceError(.syntaxError, "GROUPING must have fewer than 32 arguments", position: position)
        }
        var columns: [Int] = []
        for argument in call.arguments {
            var below = ExpressionContext(scope: mapping.fromScope, clause: "GROUPING")
            let bound = try bindExpression(argument, &below)
            guard let index = mapping.groupExpressions.firstIndex(of: bound) else {
                throw SluiceError(
                    .groupingError, "arguments to GROUPING must be grouping expressions of the associated query level",
                    position: argument.position.errorPosition)
            }
            columns.append(index)
        }
        // Plain GROUP BY: every column is in the one set.
        guard let sets = mapping.groupingSets else { return .literal(.int32(0), .int32) }
        let masks = sets.map { set in
            columns.reduce(Int32(0)) { mask, column in (mask << 1) | (set.contains(column) ? 0 : 1) }
        }
        return .call(GroupingFunctions.grouping(masks: masks), [.column(mapping.groupExpressions.count, .int32)])
    }
}
