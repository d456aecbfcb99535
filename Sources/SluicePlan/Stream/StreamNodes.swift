import SluiceCore
import SluiceExpr

/// The change stream of a table, source or materialized view, starting with its current rows
/// (backfill), projected to the scan's columns (indexes into its schema).
package struct ScanNode: StreamNode, Equatable {
    package var table: TableScan

    package var operatorName: String { "StreamTableScan" }
    package var explainFields: String { "table: \(table.tableName), columns: \(table.columns)" }
    package var inputs: [StreamPlan] { [] }
    package var outputTypes: [DataType] { table.columnTypes }
    package var isAppendOnly: Bool { table.isAppendOnly }
    package var watermarkColumns: [Int] {
        guard let column = table.watermarkColumn else { return [] }
        return table.columns.indices.filter { table.columns[$0] == column }
    }
}

/// Constant rows, emitted once when the view is created.
package struct ValuesNode: StreamNode, Equatable {
    package var rows: [[ScalarExpr]]
    package var types: [DataType]

    package var operatorName: String { "StreamValues" }
    package var explainFields: String { "rows: \(rows.count)" }
    package var inputs: [StreamPlan] { [] }
    package var outputTypes: [DataType] { types }
    package var isAppendOnly: Bool { true }
}

/// Rows of `input` where `predicate` holds, then one output column per expression: a fused
/// filter and project.
package struct ProjectNode: StreamNode, Equatable {
    package var input: StreamPlan
    package var predicate: ScalarExpr?
    package var expressions: [ScalarExpr]

    package var operatorName: String { "StreamProject" }
    package var explainFields: String {
        (predicate.map { "filter: \($0), " } ?? "") + "exprs: [\(expressions.map(\.description).joined(separator: ", "))]"
    }
    package var inputs: [StreamPlan] { [input] }
    package var outputTypes: [DataType] { expressions.map(\.type) }
    package var isAppendOnly: Bool { input.isAppendOnly }

    /// The input's key, where every key column is passed on unchanged.
    package var streamKey: [Int]? {
        guard let key = input.streamKey else { return nil }
        var mapped: [Int] = []
        for column in key {
            guard let output = expressions.firstIndex(where: { if case .column(column, _) = $0 { true } else { false } }) else {
                return nil
            }
            mapped.append(output)
        }
        return mapped
    }

    package var watermarkColumns: [Int] {
        let carried = input.watermarkColumns
        return expressions.indices.filter { position in carried.contains { expressions[position].isNonDecreasing(in: $0) } }
    }

    /// True when the node passes its input's columns on as they are (a filter alone).
    package var isIdentity: Bool {
        expressions.enumerated().allSatisfy { $0.element == .column($0.offset, $0.element.type) }
    }
}

/// Retractable GROUP BY over the first `groupCount` columns of `input`.
package struct HashAggregateNode: StreamNode, Equatable {
    package var input: StreamPlan
    package var groupCount: Int
    package var aggregates: [AggregateCall]

    package var operatorName: String { "StreamHashAgg" }
    package var explainFields: String {
        "group_key: \(Array(0 ..< groupCount)), aggs: [\(aggregates.map(\.explainText).joined(separator: ", "))]"
    }
    package var inputs: [StreamPlan] { [input] }
    package var outputTypes: [DataType] { Array(input.outputTypes.prefix(groupCount)) + aggregates.map(\.resultType) }
    package var isAppendOnly: Bool { false }
    package var streamKey: [Int]? { Array(0 ..< groupCount) }
    package var watermarkColumns: [Int] { input.watermarkColumns.filter { $0 < groupCount } }
}

/// Incremental equi-join (inner or left outer), bag semantics.
package struct HashJoinNode: StreamNode, Equatable {
    package var join: StreamHashJoinPlan
    /// A lookup join (`FOR SYSTEM_TIME AS OF PROCTIME()`): left rows are joined with the right
    /// side as it is when they arrive and are not kept; right changes emit nothing.
    package var isLookup = false

    package var operatorName: String { isLookup ? "StreamTemporalJoin" : "StreamHashJoin" }
    package var explainFields: String {
        "type: \(join.kind.rawValue), left_keys: \(join.leftKeys), right_keys: \(join.rightKeys)\(join.residual.map { ", condition: \($0)" } ?? "")"
    }
    package var inputs: [StreamPlan] { [join.left, join.right] }
    package var outputTypes: [DataType] {
        switch join.kind {
        case .semi, .anti: join.left.outputTypes
        case .inner, .left, .right, .full: join.left.outputTypes + join.right.outputTypes
        }
    }
    /// An inner or semi join of append-only inputs only adds rows (a match never goes away); a
    /// lookup join only adds rows when its left side does (right changes emit nothing).
    package var isAppendOnly: Bool {
        if isLookup { return join.left.isAppendOnly }
        return (join.kind == .inner || join.kind == .semi) && join.left.isAppendOnly && join.right.isAppendOnly
    }
    /// A lookup join passes its stream side's watermarks on; another join those its condition
    /// bounds (``EquiJoin/watermarkColumns``).
    package var watermarkColumns: [Int] { isLookup ? join.left.watermarkColumns : join.watermarkColumns }
}

/// The changes of all inputs, merged (UNION ALL).
package struct UnionNode: StreamNode, Equatable {
    package var inputs: [StreamPlan]

    package var operatorName: String { "StreamUnion" }
    package var explainFields: String { "all: true" }
    package var outputTypes: [DataType] { inputs.first?.outputTypes ?? [] }
    package var isAppendOnly: Bool { inputs.allSatisfy(\.isAppendOnly) }
    /// A column every input's watermark passes carries the least of them.
    package var watermarkColumns: [Int] {
        guard let first = inputs.first else { return [] }
        return first.watermarkColumns.filter { column in inputs.allSatisfy { $0.watermarkColumns.contains(column) } }
    }
}

extension StreamPlan {
    package static func scan(_ table: TableScan) -> StreamPlan { StreamPlan(ScanNode(table: table)) }

    package static func values(rows: [[ScalarExpr]], types: [DataType]) -> StreamPlan {
        StreamPlan(ValuesNode(rows: rows, types: types))
    }

    package static func project(input: StreamPlan, predicate: ScalarExpr?, expressions: [ScalarExpr]) -> StreamPlan {
        StreamPlan(ProjectNode(input: input, predicate: predicate, expressions: expressions))
    }

    package static func hashAggregate(input: StreamPlan, groupCount: Int, aggregates: [AggregateCall]) -> StreamPlan {
        StreamPlan(HashAggregateNode(input: input, groupCount: groupCount, aggregates: aggregates))
    }

    package static func hashJoin(_ join: StreamHashJoinPlan) -> StreamPlan { StreamPlan(HashJoinNode(join: join)) }
    package static func lookupJoin(_ join: StreamHashJoinPlan) -> StreamPlan { StreamPlan(HashJoinNode(join: join, isLookup: true)) }

    package static func union(inputs: [StreamPlan]) -> StreamPlan { StreamPlan(UnionNode(inputs: inputs)) }
}

/// A select list with set-returning functions: each input row becomes as many rows as its
/// longest expanded array (`expands`), the other columns repeated and shorter arrays padded
/// with NULL, as PostgreSQL runs several set-returning functions in lockstep. Each output row
/// carries its input row's change, so a delete takes back exactly what the insert gave.
package struct ProjectSetNode: StreamNode, Equatable {
    package var input: StreamPlan
    package var expressions: [ScalarExpr]
    package var expands: [Bool]

    package var operatorName: String { "StreamProjectSet" }
    package var explainFields: String {
        "exprs: [\(zip(expressions, expands).map { $1 ? "expand(\($0))" : $0.description }.joined(separator: ", "))]"
    }
    package var inputs: [StreamPlan] { [input] }
    package var outputTypes: [DataType] {
        zip(expressions, expands).map { expression, expands in
            if expands, case .list(let element) = expression.type { return element }
            return expression.type
        }
    }
    package var isAppendOnly: Bool { input.isAppendOnly }
    package var watermarkColumns: [Int] {
        let carried = input.watermarkColumns
        return expressions.indices.filter { position in carried.contains { expressions[position].isNonDecreasing(in: $0) } }
    }
}

/// A set-returning function in FROM over constants (`generate_series(1, 10)`): its rows,
/// emitted once when the view is created.
package struct TableFunctionNode: StreamNode, Equatable {
    package var function: TableFunction
    package var arguments: [ScalarExpr]
    package var types: [DataType]

    package var operatorName: String { "StreamTableFunction" }
    package var explainFields: String { "\(function.rawValue)(\(arguments.map(\.description).joined(separator: ", ")))" }
    package var inputs: [StreamPlan] { [] }
    package var outputTypes: [DataType] { types }
    package var isAppendOnly: Bool { true }
}

extension StreamPlan {
    package static func projectSet(input: StreamPlan, expressions: [ScalarExpr], expands: [Bool]) -> StreamPlan {
        StreamPlan(ProjectSetNode(input: input, expressions: expressions, expands: expands))
    }

    package static func tableFunction(_ function: TableFunction, arguments: [ScalarExpr], types: [DataType]) -> StreamPlan {
        StreamPlan(TableFunctionNode(function: function, arguments: arguments, types: types))
    }
}

/// `EMIT ON WINDOW CLOSE`: holds each row of `input` (a view's rows, told apart by `key`)
/// until the watermark on `windowColumn` passes it, then emits it once, final, and forgets it.
/// Its output only inserts: a window's row appears when the window closes and never changes.
package struct WindowCloseNode: StreamNode, Equatable {
    package var input: StreamPlan
    package var windowColumn: Int
    /// The columns that tell the input's rows apart (its stream key; all columns without one).
    package var key: [Int]

    package var operatorName: String { "StreamEowcGate" }
    package var explainFields: String { "window_column: \(windowColumn), key: \(key)" }
    package var inputs: [StreamPlan] { [input] }
    package var outputTypes: [DataType] { input.outputTypes }
    package var isAppendOnly: Bool { true }
    package var streamKey: [Int]? { input.streamKey }
    package var watermarkColumns: [Int] { input.watermarkColumns }
}

extension StreamPlan {
    package static func windowClose(input: StreamPlan, windowColumn: Int, key: [Int]) -> StreamPlan {
        StreamPlan(WindowCloseNode(input: input, windowColumn: windowColumn, key: key))
    }
}

/// Top-N: per group of rows with equal `groupColumns` (one group of all rows when empty), the
/// rows whose rank in `order` is within `lower < rank <= upper` (no upper bound when nil),
/// ranked as `rank` says (row numbers for ORDER BY … LIMIT, which orders ties by every column);
/// with `emitsRank`, each row's rank as one more column. `ORDER BY … LIMIT n OFFSET m` in a
/// view, `ROW_NUMBER()/RANK()/DENSE_RANK() OVER (PARTITION BY …) <= n`, and deduplication
/// (`ROW_NUMBER() … = 1`). Over an append-only input, rows ranked past the bound are dropped
/// for good (they can never rise).
package struct TopNNode: StreamNode, Equatable {
    package var input: StreamPlan
    package var groupColumns: [Int]
    package var order: [SortKey]
    package var rank: WindowFunctionKind
    package var lower: Int
    package var upper: Int?
    package var emitsRank: Bool

    package var operatorName: String { groupColumns.isEmpty ? "StreamTopN" : "StreamGroupTopN" }
    package var explainFields: String {
        let orderText = order.map { "$\($0.column)\($0.descending ? " DESC" : "")" }.joined(separator: ", ")
        var text = groupColumns.isEmpty ? "" : "group_key: \(groupColumns), "
        text += "order: [\(orderText)], \(rank.rawValue) in \(lower + 1)..." + (upper.map(String.init) ?? "")
        if input.isAppendOnly { text += ", append_only" }
        return text
    }
    package var inputs: [StreamPlan] { [input] }
    package var outputTypes: [DataType] { input.outputTypes + (emitsRank ? [.int64] : []) }
    package var isAppendOnly: Bool { false }
    /// A group column the watermark passes: the groups behind it change no more.
    package var watermarkColumns: [Int] { input.watermarkColumns.filter(groupColumns.contains) }
}

extension StreamPlan {
    package static func topN(
        input: StreamPlan, groupColumns: [Int], order: [SortKey], rank: WindowFunctionKind, lower: Int, upper: Int?, emitsRank: Bool
    ) -> StreamPlan {
        StreamPlan(TopNNode(input: input, groupColumns: groupColumns, order: order, rank: rank, lower: lower, upper: upper, emitsRank: emitsRank))
    }
}

/// Window functions over partitions (`sum(x) OVER (PARTITION BY k ORDER BY t RANGE …)`,
/// `lag`, `row_number()` unfiltered): each input row with one more column per call, kept up to
/// date as rows come and go (a change re-evaluates its partition).
package struct OverWindowNode: StreamNode, Equatable {
    package var input: StreamPlan
    package var partitionColumns: [Int]
    package var order: [SortKey]
    package var calls: [WindowCall]

    package var operatorName: String { "StreamOverWindow" }
    package var explainFields: String {
        let orderText = order.map { "$\($0.column)\($0.descending ? " DESC" : "")" }.joined(separator: ", ")
        return "partition_by: \(partitionColumns), order_by: [\(orderText)], calls: [\(calls.map(\.explainText).joined(separator: ", "))]"
    }
    package var inputs: [StreamPlan] { [input] }
    package var outputTypes: [DataType] { input.outputTypes + calls.map(\.resultType) }
    package var isAppendOnly: Bool { false }
}

extension StreamPlan {
    package static func overWindow(input: StreamPlan, partitionColumns: [Int], order: [SortKey], calls: [WindowCall]) -> StreamPlan {
        StreamPlan(OverWindowNode(input: input, partitionColumns: partitionColumns, order: order, calls: calls))
    }
}
