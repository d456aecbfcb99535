import SluiceCore
import SluiceExpr
import SluicePlan

/// Evaluates the parts of expressions that read no column once, at planning time:
/// `DATE '1998-12-01' - INTERVAL '90' DAY` becomes a date literal, `1 + 2` becomes 3, and an
/// AND or OR with a constant operand is simplified. An expression whose evaluation fails (a
/// division by zero in a branch that may never run) is left as it is, to fail, or not, at run
/// time as it would have.
struct ConstantFolding {
    var context: EvaluationContext

    func fold(_ plan: BatchPlan) -> BatchPlan {
        let folded = plan.rewritingExpressions(fold)
        // Applies keep their subqueries out of the rewrite above; fold those too.
        return folded.rewritingSubqueries { fold($0) }
    }

    /// `expression` with its constant parts evaluated.
    func fold(_ expression: ScalarExpr) -> ScalarExpr {
        switch expression {
        case .literal, .column:
            return expression
        case .and(let operands):
            // TRUE operands vanish; a FALSE one decides (NULL does not: NULL AND FALSE is FALSE).
            let kept = operands.filter { $0 != .literal(.bool(true), .boolean) }
            if kept.contains(.literal(.bool(false), .boolean)) { return .literal(.bool(false), .boolean) }
            if kept.isEmpty { return .literal(.bool(true), .boolean) }
            return kept.count == 1 ? kept[0] : .and(kept)
        case .or(let operands):
            let kept = operands.filter { $0 != .literal(.bool(false), .boolean) }
            if kept.contains(.literal(.bool(true), .boolean)) { return .literal(.bool(true), .boolean) }
            if kept.isEmpty { return .literal(.bool(false), .boolean) }
            return kept.count == 1 ? kept[0] : .or(kept)
        default:
            guard expression.isConstant, !expression.isVolatile else { return expression }
            do {
                let column = try ExpressionEvaluator.evaluate(expression, on: Chunk(columns: [], count: 1), context: context)
                guard column.count == 1 else { return expression }
                return .literal(column.value(at: 0), expression.type)
            } catch {
                return expression
            }
        }
    }
}

extension BatchPlan {
    /// This plan with `transform` applied to the subquery of every apply, at any depth.
    func rewritingSubqueries(_ transform: (BatchPlan) -> BatchPlan) -> BatchPlan {
        switch self {
        case .apply(let input, let subquery, let kind):
            return .apply(input: input.rewritingSubqueries(transform), subquery: transform(subquery), kind: kind)
        default:
            return mappingInputs { $0.rewritingSubqueries(transform) }
        }
    }
}
