import SluiceCore
import SluiceExpr
import SluicePlan

/// Removes columns no operator above needs: scans read only the columns the query uses, and
/// projections compute only the expressions that are read.
///
/// `prune` returns the rewritten plan and, for each output column of the original plan, its
/// index in the new plan's output (nil when dropped).
package enum ColumnPruning {
    /// `plan` with every column it does not need to produce removed; its output is unchanged.
    package static func optimize(_ plan: BatchPlan) -> BatchPlan {
        let all = Set(plan.outputTypes.indices)
        let (pruned, mapping) = prune(plan, required: all)
        // Put the outputs back in their original order if pruning reordered or dropped any.
        if mapping.enumerated().allSatisfy({ $0.element == $0.offset }) && pruned.outputTypes.count == mapping.count { return pruned }
        let types = plan.outputTypes
        return .project(input: pruned, expressions: mapping.enumerated().map { .column($0.element!, types[$0.offset]) })
    }

    static func prune(_ plan: BatchPlan, required: Set<Int>) -> (BatchPlan, [Int?]) {
        switch plan {
        case .scan(var scan):
            let kept = scan.columns.indices.filter { required.contains($0) }
            var mapping = [Int?](repeating: nil, count: scan.columns.count)
            for (newIndex, oldIndex) in kept.enumerated() { mapping[oldIndex] = newIndex }
            scan.columns = kept.map { scan.columns[$0] }
            scan.columnTypes = kept.map { scan.columnTypes[$0] }
            return (.scan(scan), mapping)
        case .project(let input, let expressions):
            let kept = expressions.indices.filter { required.contains($0) }
            var needed = Set<Int>()
            for index in kept { needed.formUnion(expressions[index].referencedColumns) }
            let (newInput, inputMapping) = prune(input, required: needed)
            var mapping = [Int?](repeating: nil, count: expressions.count)
            for (newIndex, oldIndex) in kept.enumerated() { mapping[oldIndex] = newIndex }
            let rewritten = kept.map { expressions[$0].remappingColumns { inputMapping[$0]! } }
            return (.project(input: newInput, expressions: rewritten), mapping)
        case .filter(let input, let predicate):
            let (newInput, mapping) = prune(input, required: required.union(predicate.referencedColumns))
            return (.filter(input: newInput, predicate: predicate.remappingColumns { mapping[$0]! }), mapping)
        case .sort(let input, let keys):
            let (newInput, mapping) = prune(input, required: required.union(keys.map(\.column)))
            return (.sort(input: newInput, keys: keys.map { SortKey(column: mapping[$0.column]!, descending: $0.descending, nullsFirst: $0.nullsFirst) }), mapping)
        case .limit(let input, let limit, let offset):
            let (newInput, mapping) = prune(input, required: required)
            return (.limit(input: newInput, limit: limit, offset: offset), mapping)
        case .topN(let input, let keys, let limit, let offset):
            let (newInput, mapping) = prune(input, required: required.union(keys.map(\.column)))
            let newKeys = keys.map { SortKey(column: mapping[$0.column]!, descending: $0.descending, nullsFirst: $0.nullsFirst) }
            return (.topN(input: newInput, keys: newKeys, limit: limit, offset: offset), mapping)
        case .hashJoin(var join):
            let leftWidth = join.left.outputTypes.count
            let rightWidth = join.right.outputTypes.count
            let residual = join.residual?.referencedColumns ?? []
            let outputsRight = join.kind != .semi && join.kind != .anti
            // Columns of the joined row that are read: by the parent (only left ones for semi and
            // anti joins, which output the left side) and by the residual predicate.
            let read = (outputsRight ? required : Set(required.filter { $0 < leftWidth })).union(residual)
            let leftRequired = Set(read.filter { $0 < leftWidth }).union(join.leftKeys)
            let rightRequired = Set(read.filter { $0 >= leftWidth && $0 < leftWidth + rightWidth }.map { $0 - leftWidth }).union(join.rightKeys)
            let (left, leftMapping) = prune(join.left, required: leftRequired)
            let (right, rightMapping) = prune(join.right, required: rightRequired)
            let newLeftWidth = left.outputTypes.count
            let joined = leftMapping + rightMapping.map { $0.map { $0 + newLeftWidth } }
            join.left = left
            join.right = right
            join.leftKeys = join.leftKeys.map { leftMapping[$0]! }
            join.rightKeys = join.rightKeys.map { rightMapping[$0]! }
            join.residual = join.residual?.remappingColumns { joined[$0]! }
            return (.hashJoin(join), outputsRight ? joined : leftMapping)
        case .nestedLoopJoin(let leftPlan, let rightPlan, let kind, let predicate):
            let leftWidth = leftPlan.outputTypes.count
            let outputsRight = kind != .semi && kind != .anti
            let read = (outputsRight ? required : Set(required.filter { $0 < leftWidth })).union(predicate?.referencedColumns ?? [])
            let (left, leftMapping) = prune(leftPlan, required: Set(read.filter { $0 < leftWidth }))
            let (right, rightMapping) = prune(rightPlan, required: Set(read.filter { $0 >= leftWidth }.map { $0 - leftWidth }))
            let newLeftWidth = left.outputTypes.count
            let joined = leftMapping + rightMapping.map { $0.map { $0 + newLeftWidth } }
            return (
                .nestedLoopJoin(left: left, right: right, kind: kind, predicate: predicate?.remappingColumns { joined[$0]! }),
                outputsRight ? joined : leftMapping
            )
        case .hashAggregate(let input, let groupCount, let aggregates):
            // Every input column of an aggregate is a key or an argument; prune below it.
            let (newInput, mapping) = prune(input, required: Set(input.outputTypes.indices))
            return (.hashAggregate(input: reordered(newInput, mapping, input.outputTypes), groupCount: groupCount, aggregates: aggregates), identity(plan))
        case .values, .tableFunction:
            return (plan, identity(plan))
        case .union(let inputs, let distinct):
            return (.union(inputs: inputs.map(optimize), distinct: distinct), identity(plan))
        case .setOperation(let left, let right, let kind, let all):
            return (.setOperation(left: optimize(left), right: optimize(right), kind: kind, all: all), identity(plan))
        case .maxOneRow(let input):
            return (.maxOneRow(input: optimize(input)), identity(plan))
        case .window(let input, let partitionColumns, let orderColumns, let functions):
            // Row numbers depend on every input row: the input is kept whole.
            return (.window(input: optimize(input), partitionColumns: partitionColumns, orderColumns: orderColumns, functions: functions), identity(plan))
        case .overWindow(let input, let partitionColumns, let order, let calls):
            return (.overWindow(input: optimize(input), partitionColumns: partitionColumns, order: order, calls: calls), identity(plan))
        case .apply(let input, let subquery, let kind):
            // The subquery's outer references index the input row: keep the input whole.
            return (.apply(input: optimize(input), subquery: optimize(subquery), kind: kind), identity(plan))
        case .projectSet(let input, let expressions, let expands):
            var needed = Set<Int>()
            for expression in expressions { needed.formUnion(expression.referencedColumns) }
            let (newInput, mapping) = prune(input, required: needed)
            return (.projectSet(input: newInput, expressions: expressions.map { $0.remappingColumns { mapping[$0]! } }, expands: expands), identity(plan))
        }
    }

    private static func identity(_ plan: BatchPlan) -> [Int?] {
        plan.outputTypes.indices.map { $0 }
    }

    /// `plan` projected back to the full original column order (for nodes that need all columns).
    private static func reordered(_ plan: BatchPlan, _ mapping: [Int?], _ types: [DataType]) -> BatchPlan {
        if mapping.enumerated().allSatisfy({ $0.element == $0.offset }) && plan.outputTypes.count == mapping.count { return plan }
        return .project(input: plan, expressions: mapping.enumerated().map { .column($0.element!, types[$0.offset]) })
    }
}
