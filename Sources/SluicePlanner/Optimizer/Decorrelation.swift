import SluiceCore
import SluiceExpr
import SluicePlan

/// Turns correlated subqueries — an apply, which runs its subquery once per input row — into
/// joins that run once, after Neumann and Kemper's "Unnesting Arbitrary Queries" in the forms
/// that matter most:
/// - `EXISTS (…)` / `NOT EXISTS (…)` as a filter becomes a semi / anti join of the input with
///   the subquery, its correlated conjuncts pulled up into the join condition (equalities as hash
///   keys, the rest as the residual);
/// - a scalar subquery over an aggregate without GROUP BY becomes a left join of the input with
///   the aggregate grouped by the subquery's side of its correlated equalities; a row with no
///   group gets the aggregate's value over no rows (`count` is 0, not NULL: the "count bug").
///   Correlated by other comparisons (`t2.v < t1.v`), the aggregate is grouped by the *domain*:
///   the distinct values of the outer columns those comparisons read, joined with the subquery's
///   rows on them; the input then meets its group by equality on those columns. A NULL outer
///   value makes a comparison unknown, so its row has no group and rightly gets the value over
///   no rows.
/// - a LATERAL subquery becomes a join of the input with the subquery, its correlated conjuncts
///   lifted into the condition (a left join for `LEFT JOIN LATERAL … ON true`); over an aggregate
///   without GROUP BY it is joined as a scalar subquery is, with all its values.
///
/// A subquery in another form stays an apply, and is optimized on its own.
struct Decorrelation {
    var pushdown: PredicatePushdown

    func apply(input: BatchPlan, subquery: BatchPlan, kind: ApplyKind, predicates: [ScalarExpr]) -> BatchPlan {
        let width = input.outputTypes.count
        let (onValue, below) = predicates.partitioned { $0.referencedColumns.contains { $0 >= width } }
        if kind == .exists, onValue.count == 1 {
            let marker = ScalarExpr.column(width, .boolean)
            let anti: Bool? = onValue[0] == marker ? false : (onValue[0] == .not(marker) ? true : nil)
            if let anti, let joined = existsJoin(input: input, subquery: subquery, anti: anti) {
                // The join keeps the rows the filter kept; the value column is then a constant.
                let appended = BatchPlan.project(input: joined, expressions: input.identityExpressions + [.literal(.bool(!anti), .boolean)])
                return pushdown.push(appended, below)
            }
        }
        if kind == .scalar, let joined = aggregateJoin(input: input, subquery: subquery, values: 1) {
            return pushdown.push(joined, predicates)
        }
        if kind.isLateral, let joined = lateralJoin(input: input, subquery: subquery, left: kind == .lateralLeft) {
            return pushdown.push(joined, predicates)
        }
        let kept = BatchPlan.apply(input: pushdown.push(input, below), subquery: pushdown.push(subquery, []), kind: kind)
        return PredicatePushdown.filtered(kept, onValue)
    }

    /// The input's rows with (or, `anti`, without) a row of the subquery.
    private func existsJoin(input: BatchPlan, subquery: BatchPlan, anti: Bool) -> BatchPlan? {
        guard let (plan, correlated) = pullUp(subquery, forExists: true) else { return nil }
        let width = input.outputTypes.count
        if correlated.isEmpty {
            return .nestedLoopJoin(left: input, right: .limit(input: plan, limit: 1, offset: 0), kind: anti ? .anti : .semi, predicate: nil)
        }
        let condition = correlated.map { $0.remappingColumns { $0 + width }.outerReferencesAsColumns }
        return .join(input, plan, kind: anti ? .anti : .semi, on: condition)
    }

    /// The input's rows joined with the rows of a LATERAL subquery: its correlated conjuncts
    /// lifted into the join's condition (a LEFT JOIN LATERAL … ON true keeps the input rows
    /// without any); or, for a subquery over an aggregate without GROUP BY (one row per input
    /// row), the aggregate's values joined as a scalar subquery's value is.
    private func lateralJoin(input: BatchPlan, subquery: BatchPlan, left: Bool) -> BatchPlan? {
        let width = input.outputTypes.count
        let subqueryWidth = subquery.outputTypes.count
        if let joined = aggregateJoin(input: input, subquery: subquery, values: nil) { return joined }
        guard let (plan, correlated) = pullUp(subquery, forExists: false), !correlated.isEmpty, !plan.hasOuterReference else { return nil }
        let condition = correlated.map { $0.remappingColumns { $0 + width }.outerReferencesAsColumns }
        let joined = BatchPlan.join(input, plan, kind: left ? .left : .inner, on: condition)
        // The columns the lifted conjuncts needed beyond the subquery's own are dropped again.
        if plan.outputTypes.count == subqueryWidth { return joined }
        let types = joined.outputTypes
        return .project(input: joined, expressions: (0 ..< width + subqueryWidth).map { .column($0, types[$0]) })
    }

    /// The input's rows, each with the values of a subquery over an aggregate without GROUP BY
    /// for it appended (`values` of them when given: a scalar subquery's one).
    private func aggregateJoin(input: BatchPlan, subquery: BatchPlan, values expectedValues: Int?) -> BatchPlan? {
        var projections: [[ScalarExpr]] = []
        var node = subquery
        while case .project(let inner, let expressions) = node {
            guard !expressions.contains(where: \.hasOuterReference) else { return nil }
            projections.append(expressions)
            node = inner
        }
        guard case .hashAggregate(let aggregateInput, 0, let aggregates) = node,
            let (plan, correlated) = pullUp(aggregateInput, forExists: false), !correlated.isEmpty
        else { return nil }

        // Correlated conjuncts `inner = outer` group the aggregate by the inner side; any other
        // comparison groups it by the domain of the outer columns (below).
        var innerKeys: [ScalarExpr] = []
        var outerKeys: [ScalarExpr] = []
        var byDomain = false
        for conjunct in correlated {
            guard let (a, b) = conjunct.comparisonOperands else { return nil }
            let sides: (inner: ScalarExpr, outer: ScalarExpr)
            if !a.hasOuterReference, !a.referencedColumns.isEmpty, b.referencedColumns.isEmpty, !b.isVolatile {
                sides = (a, b)
            } else if !b.hasOuterReference, !b.referencedColumns.isEmpty, a.referencedColumns.isEmpty, !a.isVolatile {
                sides = (b, a)
            } else {
                return nil
            }
            if conjunct.equalityOperands == nil {
                byDomain = true
            } else {
                innerKeys.append(sides.inner)
                outerKeys.append(sides.outer)
            }
        }
        var grouped: BatchPlan
        let keyCount: Int
        if byDomain {
            // The outer columns' distinct values, joined with the rows each would select.
            var outerColumns: [Int] = []
            for conjunct in correlated {
                conjunct.visit { node in
                    if case .call(let reference, let operands) = node, operands.isEmpty, let index = OuterReference.index(of: reference),
                        !outerColumns.contains(index)
                    {
                        outerColumns.append(index)
                    }
                }
            }
            let inputTypes = input.outputTypes
            keyCount = outerColumns.count
            let domain = BatchPlan.hashAggregate(
                input: .project(input: input, expressions: outerColumns.map { .column($0, inputTypes[$0]) }), groupCount: keyCount, aggregates: [])
            let condition = correlated.map { conjunct in
                conjunct.remappingColumns { $0 + keyCount }.rewritten { node in
                    if case .call(let reference, let operands) = node, operands.isEmpty, let index = OuterReference.index(of: reference) {
                        return .column(outerColumns.firstIndex(of: index)!, reference.resultType)
                    }
                    return node
                }
            }
            let selected = BatchPlan.join(domain, plan, kind: .inner, on: condition)
            grouped = .hashAggregate(input: selected, groupCount: keyCount, aggregates: aggregates.map { $0.shifted(by: keyCount) })
            innerKeys = outerColumns.map { .column($0, inputTypes[$0]) }
            outerKeys = outerColumns.map { .call(OuterReference.function($0, type: inputTypes[$0]), []) }
        } else {
            // The aggregate, grouped by the inner keys first.
            keyCount = innerKeys.count
            let keyed = BatchPlan.project(input: plan, expressions: innerKeys + plan.identityExpressions)
            grouped = .hashAggregate(input: keyed, groupCount: keyCount, aggregates: aggregates.map { $0.shifted(by: keyCount) })
        }
        var value: [ScalarExpr] = aggregates.enumerated().map { .column(keyCount + $0.offset, $0.element.resultType) }
        var empty: [ScalarExpr] = aggregates.map {
            $0.kind == .count || $0.kind == .countStar ? .literal(.int64(0), $0.resultType) : .literal(.null, $0.resultType)
        }
        for expressions in projections.reversed() {
            value = expressions.map { $0.substituting(value) }
            empty = expressions.map { $0.substituting(empty) }
        }
        guard !value.isEmpty, expectedValues.map({ value.count == $0 }) ?? true else { return nil }
        let keyColumns = innerKeys.enumerated().map { ScalarExpr.column($0.offset, $0.element.type) }
        let right = BatchPlan.project(input: grouped, expressions: value + keyColumns)

        let width = input.outputTypes.count
        let firstKey = width + value.count
        let condition = outerKeys.enumerated().map { index, outer in
            ScalarExpr.call(
                .comparison(.equal, outer.type), [outer.outerReferencesAsColumns, .column(firstKey + index, innerKeys[index].type)])
        }
        let joined = BatchPlan.join(input, right, kind: .left, on: condition)
        let results = value.indices.map { index -> ScalarExpr in
            let result = ScalarExpr.column(width + index, value[index].type)
            let whenEmpty = ConstantFolding(context: EvaluationContext()).fold(empty[index])
            // No group gives NULL, as the subquery over no rows would, unless it says otherwise.
            if case .literal(let constant, _) = whenEmpty, constant.isNull { return result }
            return .caseWhen(
                [CaseBranch(condition: .isNull(.column(firstKey, innerKeys[0].type), negated: false), result: whenEmpty)],
                otherwise: result, value[index].type)
        }
        return .project(input: joined, expressions: input.identityExpressions + results)
    }

    /// The subquery with its correlated conjuncts lifted out of it: the plan that is left (its
    /// output columns those of the subquery, then any its conjuncts read that the subquery's
    /// projections dropped) and the conjuncts, over that plan's columns and outer references.
    /// Nil when a correlation sits where it cannot be lifted from.
    private func pullUp(_ plan: BatchPlan, forExists: Bool) -> (BatchPlan, [ScalarExpr])? {
        if !plan.hasOuterReference { return (plan, []) }
        switch plan {
        case .filter(let input, let predicate):
            guard let (lifted, correlated) = pullUp(input, forExists: forExists) else { return nil }
            let (outer, kept) = predicate.conjuncts.partitioned(\.hasOuterReference)
            if outer.contains(where: \.isVolatile) { return nil }
            return (PredicatePushdown.filtered(lifted, kept), correlated + outer)
        case .project(let input, let expressions):
            guard !expressions.contains(where: \.hasOuterReference), let (lifted, correlated) = pullUp(input, forExists: forExists)
            else { return nil }
            if correlated.isEmpty { return (.project(input: lifted, expressions: expressions), []) }
            let needed = correlated.reduce(into: Set<Int>()) { $0.formUnion($1.referencedColumns) }.sorted()
            let types = lifted.outputTypes
            var position: [Int: Int] = [:]
            for (index, column) in needed.enumerated() { position[column] = expressions.count + index }
            let widened = expressions + needed.map { ScalarExpr.column($0, types[$0]) }
            return (.project(input: lifted, expressions: widened), correlated.map { $0.remappingColumns { position[$0]! } })
        case .nestedLoopJoin(let left, let right, .inner, let predicate):
            guard let (newLeft, leftCorrelated) = pullUp(left, forExists: forExists),
                let (newRight, rightCorrelated) = pullUp(right, forExists: forExists),
                newLeft.outputTypes.count == left.outputTypes.count
            else { return nil }
            let width = left.outputTypes.count
            let (outer, kept) = (predicate?.conjuncts ?? []).partitioned(\.hasOuterReference)
            if outer.contains(where: \.isVolatile) { return nil }
            let joined = BatchPlan.nestedLoopJoin(left: newLeft, right: newRight, kind: .inner, predicate: .conjunction(kept))
            return (joined, leftCorrelated + rightCorrelated.map { $0.remappingColumns { $0 + width } } + outer)
        case .hashJoin(var join) where join.kind == .inner:
            guard let (newLeft, leftCorrelated) = pullUp(join.left, forExists: forExists),
                let (newRight, rightCorrelated) = pullUp(join.right, forExists: forExists),
                newLeft.outputTypes.count == join.left.outputTypes.count
            else { return nil }
            let width = join.left.outputTypes.count
            let (outer, kept) = (join.residual?.conjuncts ?? []).partitioned(\.hasOuterReference)
            if outer.contains(where: \.isVolatile) { return nil }
            join.left = newLeft
            join.right = newRight
            join.residual = .conjunction(kept)
            return (.hashJoin(join), leftCorrelated + rightCorrelated.map { $0.remappingColumns { $0 + width } } + outer)
        case .sort(let input, let keys):
            guard let (lifted, correlated) = pullUp(input, forExists: forExists) else { return nil }
            return (.sort(input: lifted, keys: keys), correlated)
        case .limit(let input, let limit, 0) where forExists && limit != 0:
            // Whether a row exists does not depend on how many more there are.
            return pullUp(input, forExists: forExists)
        default:
            return nil
        }
    }
}

extension AggregateCall {
    /// The call over an input with `count` more columns in front.
    func shifted(by count: Int) -> AggregateCall {
        var call = self
        call.argument = argument.map { $0 + count }
        call.delimiter = delimiter.map { $0 + count }
        call.filter = filter.map { $0 + count }
        call.orderBy = orderBy.map { SortKey(column: $0.column + count, descending: $0.descending, nullsFirst: $0.nullsFirst) }
        return call
    }
}
