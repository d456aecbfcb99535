import SluiceCore
import SluiceExpr

/// A stream plan: how a materialized view keeps its rows up to date, as a plain value. The
/// planner builds it from the view's batch plan, the dataflow runtime turns it into operators,
/// EXPLAIN prints it.
///
/// Every node consumes and produces change streams (insert, delete and update ops). The root's
/// output is what the view materializes.
package indirect enum StreamPlan: Sendable, Equatable {
    /// The change stream of a table or materialized view, starting with its current rows
    /// (backfill), projected to `columns` (indexes into its schema).
    case scan(TableScan)
    /// Constant rows, emitted once when the view is created.
    case values(rows: [[ScalarExpr]], types: [DataType])
    /// Rows of `input` where `predicate` holds, then one output column per expression: a fused
    /// filter and project.
    case project(input: StreamPlan, predicate: ScalarExpr?, expressions: [ScalarExpr])
    /// Retractable GROUP BY over the first `groupCount` columns of `input`.
    case hashAggregate(input: StreamPlan, groupCount: Int, aggregates: [AggregateCall])
    /// Incremental equi-join (inner or left outer), bag semantics.
    case hashJoin(StreamHashJoinPlan)
    /// The changes of all inputs, merged (UNION ALL).
    case union(inputs: [StreamPlan])

    /// The types of the columns this plan produces.
    package var outputTypes: [DataType] {
        switch self {
        case .scan(let scan): scan.columnTypes
        case .values(_, let types): types
        case .project(_, _, let expressions): expressions.map(\.type)
        case .hashAggregate(let input, let groupCount, let aggregates):
            Array(input.outputTypes.prefix(groupCount)) + aggregates.map(\.resultType)
        case .hashJoin(let join): join.left.outputTypes + join.right.outputTypes
        case .union(let inputs): inputs.first?.outputTypes ?? []
        }
    }

    /// The inputs of this node, left to right.
    /// Whether the plan's change stream only ever inserts: sources, and what filters, projects,
    /// inner-joins or unions only such streams.
    package var isAppendOnly: Bool {
        switch self {
        case .scan(let scan): scan.isAppendOnly
        case .values: true
        case .project(let input, _, _): input.isAppendOnly
        case .hashAggregate: false
        case .hashJoin(let join): join.kind == .inner && join.left.isAppendOnly && join.right.isAppendOnly
        case .union(let inputs): inputs.allSatisfy(\.isAppendOnly)
        }
    }

    /// Output columns whose values tell the plan's current rows apart (its stream key): an
    /// aggregate's group key, carried through projections that pass it on unchanged; nil when
    /// no such columns are known, and the rows are then told apart by all their values.
    package var streamKey: [Int]? {
        switch self {
        case .hashAggregate(_, let groupCount, _):
            return Array(0 ..< groupCount)
        case .project(let input, _, let expressions):
            guard let key = input.streamKey else { return nil }
            var mapped: [Int] = []
            for column in key {
                guard let output = expressions.firstIndex(where: { if case .column(column, _) = $0 { true } else { false } }) else {
                    return nil
                }
                mapped.append(output)
            }
            return mapped
        case .scan, .values, .hashJoin, .union:
            return nil
        }
    }

    package var inputs: [StreamPlan] {
        switch self {
        case .scan, .values: []
        case .project(let input, _, _), .hashAggregate(let input, _, _): [input]
        case .hashJoin(let join): [join.left, join.right]
        case .union(let inputs): inputs
        }
    }

    /// Ids of the relations the plan reads, each once, in first-seen order.
    package var scannedRelations: [Int] {
        var ids: [Int] = []
        func visit(_ plan: StreamPlan) {
            if case .scan(let scan) = plan, !ids.contains(scan.tableID) { ids.append(scan.tableID) }
            for input in plan.inputs { visit(input) }
        }
        visit(self)
        return ids
    }
}

/// An incremental equi-join of two change streams (`.inner` or `.left`), bag semantics.
package typealias StreamHashJoinPlan = EquiJoin<StreamPlan>

extension StreamPlan: CustomStringConvertible {
    /// The plan as an indented tree, one operator a line, materialize not included.
    package var description: String {
        var lines: [String] = []
        render(into: &lines, depth: 0)
        return lines.joined(separator: "\n")
    }

    /// The lines EXPLAIN CREATE MATERIALIZED VIEW prints: the materialize node, then the plan.
    package func explainLines(viewName: String, columns: [String]) -> [String] {
        var lines = ["StreamMaterialize { view: \(viewName), columns: [\(columns.joined(separator: ", "))] }"]
        render(into: &lines, depth: 1)
        return lines
    }

    private func render(into lines: inout [String], depth: Int) {
        let indent = String(repeating: "  ", count: depth) + (depth > 0 ? "└─" : "")
        switch self {
        case .scan(let scan):
            lines.append("\(indent)StreamTableScan { table: \(scan.tableName), columns: \(scan.columns) }")
        case .values(let rows, _):
            lines.append("\(indent)StreamValues { rows: \(rows.count) }")
        case .project(let input, let predicate, let expressions):
            var text = "\(indent)StreamProject { "
            if let predicate { text += "filter: \(predicate), " }
            text += "exprs: [\(expressions.map(\.description).joined(separator: ", "))] }"
            lines.append(text)
            input.render(into: &lines, depth: depth + 1)
        case .hashAggregate(let input, let groupCount, let aggregates):
            lines.append("\(indent)StreamHashAgg { group_key: \(Array(0 ..< groupCount)), aggs: [\(aggregates.map(\.explainText).joined(separator: ", "))] }")
            input.render(into: &lines, depth: depth + 1)
        case .hashJoin(let join):
            lines.append("\(indent)StreamHashJoin { type: \(join.kind.rawValue), left_keys: \(join.leftKeys), right_keys: \(join.rightKeys)\(join.residual.map { ", condition: \($0)" } ?? "") }")
            join.left.render(into: &lines, depth: depth + 1)
            join.right.render(into: &lines, depth: depth + 1)
        case .union(let inputs):
            lines.append("\(indent)StreamUnion { all: true }")
            for input in inputs { input.render(into: &lines, depth: depth + 1) }
        }
    }
}
