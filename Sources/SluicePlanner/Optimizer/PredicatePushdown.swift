import SluiceCore
import SluiceExpr
import SluicePlan

/// Moves each conjunct of each filter as far down the plan as it can go: through projections
/// (with the projected expressions substituted), sorts, unions, set operations, the group keys
/// of aggregates and the sides of joins. On its way it meets inner joins, which it reorders
/// (``JoinOrder``), and correlated subqueries, which it decorrelates (``Decorrelation``).
struct PredicatePushdown {
    var estimator: CardinalityEstimator

    /// `plan` with `predicates` (conjuncts over its output columns) applied, each as low as it
    /// can go.
    func push(_ plan: BatchPlan, _ predicates: [ScalarExpr]) -> BatchPlan {
        switch plan {
        case .filter(let input, let predicate):
            return push(input, predicates + predicate.conjuncts.flatMap(\.factoringOr))

        case .project(let input, let expressions):
            var below: [ScalarExpr] = []
            var above: [ScalarExpr] = []
            for predicate in predicates {
                let read = predicate.referencedColumns
                if predicate.isVolatile || read.contains(where: { expressions[$0].isVolatile }) {
                    above.append(predicate)
                } else {
                    below.append(predicate.substituting(expressions))
                }
            }
            return Self.filtered(.project(input: push(input, below), expressions: expressions), above)

        case .sort(let input, let keys):
            return .sort(input: push(input, predicates), keys: keys)

        case .hashAggregate(let input, let groupCount, let aggregates):
            // Conjuncts on group keys alone filter whole groups: they can filter the rows first.
            var below: [ScalarExpr] = []
            var above: [ScalarExpr] = []
            for predicate in predicates {
                let read = predicate.referencedColumns
                if groupCount > 0, !read.isEmpty, read.allSatisfy({ $0 < groupCount }), !predicate.isVolatile {
                    below.append(predicate)
                } else {
                    above.append(predicate)
                }
            }
            return Self.filtered(.hashAggregate(input: push(input, below), groupCount: groupCount, aggregates: aggregates), above)

        case .union(let inputs, let distinct):
            let (below, above) = predicates.partitioned { !$0.isVolatile }
            return Self.filtered(.union(inputs: inputs.map { push($0, below) }, distinct: distinct), above)

        case .setOperation(let left, let right, let kind, let all):
            // A row kept by the predicate meets only rows the predicate keeps (they are equal).
            let (below, above) = predicates.partitioned { !$0.isVolatile }
            return Self.filtered(.setOperation(left: push(left, below), right: push(right, below), kind: kind, all: all), above)

        case .nestedLoopJoin(_, _, .inner, _):
            return JoinOrder(pushdown: self).reorder(plan, predicates)
        case .hashJoin(let join) where join.kind == .inner:
            return JoinOrder(pushdown: self).reorder(plan, predicates)
        case .hashJoin(var join):
            if let sunk = sinkingSemiJoin(join) { return push(sunk, predicates) }
            let (left, right, above, residual) = pushIntoOuterJoin(
                left: join.left, right: join.right, kind: join.kind, predicates: predicates, residual: join.residual)
            join.left = left
            join.right = right
            join.residual = residual
            return Self.filtered(.hashJoin(join), above)
        case .nestedLoopJoin(let left, let right, let kind, let predicate):
            let (newLeft, newRight, above, residual) = pushIntoOuterJoin(
                left: left, right: right, kind: kind, predicates: predicates, residual: predicate)
            return Self.filtered(.nestedLoopJoin(left: newLeft, right: newRight, kind: kind, predicate: residual), above)

        case .apply(let input, let subquery, let kind):
            return Decorrelation(pushdown: self).apply(input: input, subquery: subquery, kind: kind, predicates: predicates)

        case .limit, .topN, .maxOneRow, .projectSet, .window, .overWindow:
            // A window's numbers count the rows below it: a filter stays above.
            return Self.filtered(plan.mappingInputs { push($0, []) }, predicates)
        case .scan, .values, .tableFunction:
            return Self.filtered(plan, predicates)
        }
    }

    /// Pushes what can be pushed into the sides of an outer, semi or anti join: a conjunct above
    /// the join that reads only the side whose rows all pass through (the left of a left, semi or
    /// anti join, the right of a right join) filters that side first; a conjunct of the join
    /// condition that reads only the side whose rows are matched (the right of a left, semi or
    /// anti join, the left of a right join) filters that side first.
    private func pushIntoOuterJoin(
        left: BatchPlan, right: BatchPlan, kind: JoinKind, predicates: [ScalarExpr], residual: ScalarExpr?
    ) -> (BatchPlan, BatchPlan, [ScalarExpr], ScalarExpr?) {
        let leftWidth = left.outputTypes.count
        var leftBelow: [ScalarExpr] = []
        var rightBelow: [ScalarExpr] = []
        var above: [ScalarExpr] = []
        for predicate in predicates {
            let read = predicate.referencedColumns
            if predicate.isVolatile || read.isEmpty {
                above.append(predicate)
            } else if kind != .right, kind != .full, read.allSatisfy({ $0 < leftWidth }) {
                leftBelow.append(predicate)
            } else if kind == .right, read.allSatisfy({ $0 >= leftWidth }) {
                rightBelow.append(predicate.remappingColumns { $0 - leftWidth })
            } else {
                above.append(predicate)
            }
        }
        var kept: [ScalarExpr] = []
        for conjunct in residual?.conjuncts ?? [] {
            let read = conjunct.referencedColumns
            if conjunct.isVolatile || read.isEmpty {
                kept.append(conjunct)
            } else if [.left, .semi, .anti].contains(kind), read.allSatisfy({ $0 >= leftWidth }) {
                rightBelow.append(conjunct.remappingColumns { $0 - leftWidth })
            } else if kind == .right, read.allSatisfy({ $0 < leftWidth }) {
                leftBelow.append(conjunct)
            } else {
                kept.append(conjunct)
            }
        }
        return (push(left, leftBelow), push(right, rightBelow), above, .conjunction(kept))
    }

    /// `plan` under a filter of `predicates`, or `plan` itself when there are none.
    static func filtered(_ plan: BatchPlan, _ predicates: [ScalarExpr]) -> BatchPlan {
        guard let predicate = ScalarExpr.conjunction(predicates) else { return plan }
        return .filter(input: plan, predicate: predicate)
    }
}

extension ScalarExpr {
    /// An OR whose every branch has the same conjunct, as that conjunct and the OR of what is
    /// left: `(a = b AND x) OR (a = b AND y)` is `a = b AND (x OR y)`, so the join condition in
    /// it can be a hash key (TPC-H q19).
    var factoringOr: [ScalarExpr] {
        guard case .or(let branches) = self, let first = branches.first else { return [self] }
        let branchConjuncts = branches.map(\.conjuncts)
        let common = first.conjuncts.filter { conjunct in !conjunct.isVolatile && branchConjuncts.allSatisfy { $0.contains(conjunct) } }
        if common.isEmpty { return [self] }
        var rest: [ScalarExpr] = []
        for conjuncts in branchConjuncts {
            let left = conjuncts.filter { !common.contains($0) }
            // A branch that was only the common part is true whenever they are: the OR is too.
            guard let remaining = ScalarExpr.conjunction(left) else { return common }
            rest.append(remaining)
        }
        return common + [.or(rest)]
    }

    /// This expression with column `i` replaced by `expressions[i]`.
    func substituting(_ expressions: [ScalarExpr]) -> ScalarExpr {
        rewritten { node in
            if case .column(let index, _) = node { return expressions[index] }
            return node
        }
    }
}

extension Array {
    /// The elements for which `belongs` holds, and the others.
    func partitioned(_ belongs: (Element) -> Bool) -> ([Element], [Element]) {
        var yes: [Element] = []
        var no: [Element] = []
        for element in self {
            if belongs(element) { yes.append(element) } else { no.append(element) }
        }
        return (yes, no)
    }
}
