import SluiceCore
import SluiceExpr

extension ScalarExpr {
    /// This expression rebuilt bottom-up, with `transform` applied to every node.
    package func rewritten(_ transform: (ScalarExpr) -> ScalarExpr) -> ScalarExpr {
        let rebuilt: ScalarExpr
        switch self {
        case .column, .literal: rebuilt = self
        case .call(let function, let arguments): rebuilt = .call(function, arguments.map { $0.rewritten(transform) })
        case .cast(let operand, let type): rebuilt = .cast(operand.rewritten(transform), type)
        case .not(let operand): rebuilt = .not(operand.rewritten(transform))
        case .isNull(let operand, let negated): rebuilt = .isNull(operand.rewritten(transform), negated: negated)
        case .and(let operands): rebuilt = .and(operands.map { $0.rewritten(transform) })
        case .or(let operands): rebuilt = .or(operands.map { $0.rewritten(transform) })
        case .coalesce(let operands, let type): rebuilt = .coalesce(operands.map { $0.rewritten(transform) }, type)
        case .caseWhen(let branches, let otherwise, let type):
            rebuilt = .caseWhen(
                branches.map { CaseBranch(condition: $0.condition.rewritten(transform), result: $0.result.rewritten(transform)) },
                otherwise: otherwise?.rewritten(transform), type)
        }
        return transform(rebuilt)
    }
}

extension BatchPlan {
    /// This plan with `transform` applied to every expression node, in nested plans too.
    package func rewritingExpressions(_ transform: (ScalarExpr) -> ScalarExpr) -> BatchPlan {
        func expression(_ value: ScalarExpr) -> ScalarExpr { value.rewritten(transform) }
        switch self {
        case .scan: return self
        case .values(let rows, let types): return .values(rows: rows.map { $0.map(expression) }, types: types)
        case .filter(let input, let predicate):
            return .filter(input: input.rewritingExpressions(transform), predicate: expression(predicate))
        case .project(let input, let expressions):
            return .project(input: input.rewritingExpressions(transform), expressions: expressions.map(expression))
        case .projectSet(let input, let expressions, let expands):
            return .projectSet(input: input.rewritingExpressions(transform), expressions: expressions.map(expression), expands: expands)
        case .hashAggregate(let input, let groupCount, let aggregates):
            return .hashAggregate(input: input.rewritingExpressions(transform), groupCount: groupCount, aggregates: aggregates)
        case .hashJoin(var join):
            join.left = join.left.rewritingExpressions(transform)
            join.right = join.right.rewritingExpressions(transform)
            join.residual = join.residual.map(expression)
            return .hashJoin(join)
        case .nestedLoopJoin(let left, let right, let kind, let predicate):
            return .nestedLoopJoin(
                left: left.rewritingExpressions(transform), right: right.rewritingExpressions(transform), kind: kind,
                predicate: predicate.map(expression))
        case .sort(let input, let keys): return .sort(input: input.rewritingExpressions(transform), keys: keys)
        case .topN(let input, let keys, let limit, let offset):
            return .topN(input: input.rewritingExpressions(transform), keys: keys, limit: limit, offset: offset)
        case .limit(let input, let limit, let offset): return .limit(input: input.rewritingExpressions(transform), limit: limit, offset: offset)
        case .union(let inputs, let distinct): return .union(inputs: inputs.map { $0.rewritingExpressions(transform) }, distinct: distinct)
        case .setOperation(let left, let right, let kind, let all):
            return .setOperation(left: left.rewritingExpressions(transform), right: right.rewritingExpressions(transform), kind: kind, all: all)
        case .maxOneRow(let input): return .maxOneRow(input: input.rewritingExpressions(transform))
        case .tableFunction(let function, let arguments, let types):
            return .tableFunction(function, arguments: arguments.map(expression), types: types)
        case .apply(let input, let subquery, let kind):
            // The subquery's own outer references belong to this apply, not to an enclosing one.
            return .apply(input: input.rewritingExpressions(transform), subquery: subquery, kind: kind)
        case .window(let input, let partitionColumns, let orderColumns, let functions):
            return .window(
                input: input.rewritingExpressions(transform), partitionColumns: partitionColumns, orderColumns: orderColumns, functions: functions)
        case .overWindow(let input, let partitionColumns, let order, let calls):
            return .overWindow(input: input.rewritingExpressions(transform), partitionColumns: partitionColumns, order: order, calls: calls)
        }
    }

    /// This plan with each direct input replaced by `transform` of it; an apply's subquery too
    /// when `includingSubqueries`.
    package func mappingInputs(includingSubqueries: Bool = false, _ transform: (BatchPlan) -> BatchPlan) -> BatchPlan {
        switch self {
        case .scan, .values, .tableFunction: return self
        case .filter(let input, let predicate): return .filter(input: transform(input), predicate: predicate)
        case .project(let input, let expressions): return .project(input: transform(input), expressions: expressions)
        case .projectSet(let input, let expressions, let expands): return .projectSet(input: transform(input), expressions: expressions, expands: expands)
        case .hashAggregate(let input, let groupCount, let aggregates): return .hashAggregate(input: transform(input), groupCount: groupCount, aggregates: aggregates)
        case .hashJoin(var join):
            join.left = transform(join.left)
            join.right = transform(join.right)
            return .hashJoin(join)
        case .nestedLoopJoin(let left, let right, let kind, let predicate):
            return .nestedLoopJoin(left: transform(left), right: transform(right), kind: kind, predicate: predicate)
        case .sort(let input, let keys): return .sort(input: transform(input), keys: keys)
        case .topN(let input, let keys, let limit, let offset): return .topN(input: transform(input), keys: keys, limit: limit, offset: offset)
        case .limit(let input, let limit, let offset): return .limit(input: transform(input), limit: limit, offset: offset)
        case .union(let inputs, let distinct): return .union(inputs: inputs.map(transform), distinct: distinct)
        case .setOperation(let left, let right, let kind, let all): return .setOperation(left: transform(left), right: transform(right), kind: kind, all: all)
        case .maxOneRow(let input): return .maxOneRow(input: transform(input))
        case .apply(let input, let subquery, let kind):
            return .apply(input: transform(input), subquery: includingSubqueries ? transform(subquery) : subquery, kind: kind)
        case .window(let input, let partitionColumns, let orderColumns, let functions):
            return .window(input: transform(input), partitionColumns: partitionColumns, orderColumns: orderColumns, functions: functions)
        case .overWindow(let input, let partitionColumns, let order, let calls):
            return .overWindow(input: transform(input), partitionColumns: partitionColumns, order: order, calls: calls)
        }
    }

    /// The subquery of an apply with its outer references replaced by the values of `row`.
    package func bindingOuterReferences(to row: [Value], types: [DataType]) -> BatchPlan {
        rewritingExpressions { node in
            if case .call(let function, _) = node, let index = OuterReference.index(of: function), index < row.count {
                return .literal(row[index], types[index])
            }
            return node
        }
    }
}
