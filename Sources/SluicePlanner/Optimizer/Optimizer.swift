import SluiceCore
import SluiceExpr
import SluicePlan

/// The logical optimizer, shared by batch queries and materialized views: it rewrites a bound
/// `BatchPlan` into an equivalent one that does less work.
///
/// The passes, in order:
/// 1. constant folding (batch queries only: a view's expressions are evaluated later, in its
///    own context);
/// 2. predicate pushdown, which also decorrelates subqueries as it meets them (an EXISTS or
///    NOT EXISTS filter becomes a semi or anti join, a correlated scalar subquery a left join
///    with an aggregate grouped by the correlation keys) and orders each tree of inner joins
///    greedily on estimated cardinalities, equalities between its inputs becoming hash keys; a
///    semi or anti join moves below the inner joins to the input whose columns it reads;
/// 3. aggregate key reduction (batch queries only): an aggregate joined on its group keys reads
///    only rows whose keys the other side has, when a cheap input of that side has them;
///    Then an aggregate of `DISTINCT` calls over one argument groups the distinct values first
///    (``DistinctAggregateSplit``);
/// 4. column pruning;
/// 5. index selection (batch queries with a table that has indexes): a filtered scan reads only
///    the key range of the index its equalities and comparisons narrow most;
/// 6. top-N selection (batch queries only): a limit over a sort keeps only the rows it returns
///    (``TopNSelection``).
package struct Optimizer: Sendable {
    /// The stored row count of a table or view by catalog id, when known.
    package var rowCount: @Sendable (Int) -> Int?
    /// The estimated number of distinct values of a stored column (table id, column number), when
    /// known.
    package var distinctValues: @Sendable (Int, Int) -> Double?
    /// The context constant expressions are evaluated in; nil leaves them alone.
    package var foldingContext: EvaluationContext?
    /// The table of a catalog id when it has secondary indexes (nil: none, or not a table).
    package var indexedTable: @Sendable (Int) -> RelationDefinition? = { _ in nil }

    package init(
        rowCount: @escaping @Sendable (Int) -> Int? = { _ in nil }, distinctValues: @escaping @Sendable (Int, Int) -> Double? = { _, _ in nil },
        foldingContext: EvaluationContext? = nil
    ) {
        self.rowCount = rowCount
        self.distinctValues = distinctValues
        self.foldingContext = foldingContext
    }

    package func optimize(_ plan: BatchPlan) -> BatchPlan {
        var result = plan
        if let foldingContext { result = ConstantFolding(context: foldingContext).fold(result) }
        let estimator = CardinalityEstimator(rowCount: rowCount, distinctValues: distinctValues)
        result = PredicatePushdown(estimator: estimator).push(result, [])
        if foldingContext != nil {
            result = AggregateKeyReduction(estimator: estimator).apply(result)
            result = DistinctAggregateSplit.apply(result)
            result = JoinBuildSide(estimator: estimator).apply(result)
        }
        result = ColumnPruning.optimize(result)
        if foldingContext != nil {
            result = IndexSelection(indexedTable: indexedTable).apply(result)
            result = TopNSelection.apply(result)
        }
        return result
    }
}

// MARK: - Expression helpers shared by the passes

extension ScalarExpr {

    /// One predicate from conjuncts: nil for none, the conjunct itself for one.
    static func conjunction(_ conjuncts: [ScalarExpr]) -> ScalarExpr? {
        switch conjuncts.count {
        case 0: nil
        case 1: conjuncts[0]
        default: .and(conjuncts)
        }
    }

    /// True when the expression calls a function whose result is not fixed by its arguments
    /// (`random()`, `now()`); references to an outer query's row are not counted.
    var isVolatile: Bool {
        var volatile = false
        visit {
            if case .call(let function, _) = $0, !function.isDeterministic, OuterReference.index(of: function) == nil { volatile = true }
        }
        return volatile
    }

    /// True when the expression refers to the row of an enclosing query (a correlated subquery's
    /// outer reference).
    var hasOuterReference: Bool {
        var found = false
        visit { if case .call(let function, _) = $0, OuterReference.index(of: function) != nil { found = true } }
        return found
    }

    /// This expression with outer references replaced by columns of `input` (outer column `i`
    /// becomes column `i`).
    var outerReferencesAsColumns: ScalarExpr {
        rewritten { node in
            if case .call(let function, _) = node, let index = OuterReference.index(of: function) {
                return .column(index, function.resultType)
            }
            return node
        }
    }

    /// `lhs = rhs` when this is an equality of two operands.
    var equalityOperands: (ScalarExpr, ScalarExpr)? {
        if case .call(let function, let arguments) = self, function.name == "=", arguments.count == 2 {
            return (arguments[0], arguments[1])
        }
        return nil
    }

    /// The operands of a comparison (`=`, `<>`, `<`, `<=`, `>`, `>=`): unknown when either is NULL.
    var comparisonOperands: (ScalarExpr, ScalarExpr)? {
        if case .call(let function, let arguments) = self, ["=", "<>", "<", "<=", ">", ">="].contains(function.name), arguments.count == 2 {
            return (arguments[0], arguments[1])
        }
        return nil
    }
}

extension BatchPlan {
    /// True when an expression anywhere in the plan refers to the row of an enclosing query.
    /// The subqueries of applies inside are not searched: their outer references are their own.
    var hasOuterReference: Bool {
        var found = false
        _ = rewritingExpressions { node in
            if case .call(let function, _) = node, OuterReference.index(of: function) != nil { found = true }
            return node
        }
        return found
    }

    /// Columns `0 ..< outputTypes.count` as expressions.
    var identityExpressions: [ScalarExpr] {
        outputTypes.enumerated().map { .column($0.offset, $0.element) }
    }

    /// A join of `left` and `right` on `conjuncts` (over left columns then right columns):
    /// equalities between a left and a right expression become hash keys (computed into extra
    /// columns when they are not plain columns, and dropped again above the join); the rest is
    /// the residual. Without keys, a nested-loop join.
    static func join(_ left: BatchPlan, _ right: BatchPlan, kind: JoinKind, on conjuncts: [ScalarExpr]) -> BatchPlan {
        let leftTypes = left.outputTypes
        let rightTypes = right.outputTypes
        let leftWidth = leftTypes.count
        var leftKeys: [ScalarExpr] = []
        var rightKeys: [ScalarExpr] = []
        var residual: [ScalarExpr] = []
        for conjunct in conjuncts {
            if let (a, b) = conjunct.equalityOperands, a.type == b.type, !a.isVolatile, !b.isVolatile {
                let (aColumns, bColumns) = (a.referencedColumns, b.referencedColumns)
                if !aColumns.isEmpty, !bColumns.isEmpty {
                    if aColumns.allSatisfy({ $0 < leftWidth }) && bColumns.allSatisfy({ $0 >= leftWidth }) {
                        leftKeys.append(a)
                        rightKeys.append(b.remappingColumns { $0 - leftWidth })
                        continue
                    }
                    if bColumns.allSatisfy({ $0 < leftWidth }) && aColumns.allSatisfy({ $0 >= leftWidth }) {
                        leftKeys.append(b)
                        rightKeys.append(a.remappingColumns { $0 - leftWidth })
                        continue
                    }
                }
            }
            residual.append(conjunct)
        }
        if leftKeys.isEmpty {
            return .nestedLoopJoin(left: left, right: right, kind: kind, predicate: .conjunction(residual))
        }
        // Keys that are not plain columns are computed as extra columns at the end of each side.
        func keyed(_ plan: BatchPlan, _ keys: [ScalarExpr], _ types: [DataType]) -> (BatchPlan, [Int], [ScalarExpr]) {
            var extra: [ScalarExpr] = []
            var indexes: [Int] = []
            for key in keys {
                if case .column(let index, _) = key {
                    indexes.append(index)
                } else if let existing = extra.firstIndex(of: key) {
                    indexes.append(types.count + existing)
                } else {
                    extra.append(key)
                    indexes.append(types.count + extra.count - 1)
                }
            }
            if extra.isEmpty { return (plan, indexes, []) }
            return (.project(input: plan, expressions: plan.identityExpressions + extra), indexes, extra)
        }
        let (keyedLeft, leftIndexes, leftExtra) = keyed(left, leftKeys, leftTypes)
        let (keyedRight, rightIndexes, rightExtra) = keyed(right, rightKeys, rightTypes)
        let newLeftWidth = leftWidth + leftExtra.count
        let predicate = ScalarExpr.conjunction(residual)?.remappingColumns { $0 < leftWidth ? $0 : $0 + leftExtra.count }
        let joined = BatchPlan.hashJoin(
            HashJoin(left: keyedLeft, right: keyedRight, kind: kind, leftKeys: leftIndexes, rightKeys: rightIndexes, residual: predicate))
        if leftExtra.isEmpty && rightExtra.isEmpty { return joined }
        let outputsRight = kind != .semi && kind != .anti
        var expressions = leftTypes.enumerated().map { ScalarExpr.column($0.offset, $0.element) }
        if outputsRight {
            expressions += rightTypes.enumerated().map { ScalarExpr.column(newLeftWidth + $0.offset, $0.element) }
        }
        return .project(input: joined, expressions: expressions)
    }
}
