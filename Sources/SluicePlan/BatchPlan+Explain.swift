import SluiceCore
import SluiceExpr

extension BatchPlan: CustomStringConvertible {
    /// The plan as an indented tree, one operator a line (EXPLAIN output).
    package var description: String {
        var lines: [String] = []
        render(into: &lines, depth: 0)
        return lines.joined(separator: "\n")
    }

    private func render(into lines: inout [String], depth: Int) {
        let indent = String(repeating: "  ", count: depth) + (depth > 0 ? "└─" : "")
        switch self {
        case .scan(let scan):
            if let index = scan.index {
                lines.append("\(indent)BatchIndexScan { table: \(scan.tableName), index: \(index.indexName), range: [\(index.rangeDescription)], columns: \(scan.columns) }")
            } else {
                lines.append("\(indent)BatchScan { table: \(scan.tableName), columns: \(scan.columns) }")
            }
        case .values(let rows, _):
            lines.append("\(indent)BatchValues { rows: \(rows.count) }")
        case .filter(let input, let predicate):
            lines.append("\(indent)BatchFilter { predicate: \(predicate) }")
            input.render(into: &lines, depth: depth + 1)
        case .project(let input, let expressions):
            lines.append("\(indent)BatchProject { exprs: [\(expressions.map(\.description).joined(separator: ", "))] }")
            input.render(into: &lines, depth: depth + 1)
        case .projectSet(let input, let expressions, _):
            lines.append("\(indent)BatchProjectSet { exprs: [\(expressions.map(\.description).joined(separator: ", "))] }")
            input.render(into: &lines, depth: depth + 1)
        case .hashAggregate(let input, let groupCount, let aggregates):
            lines.append("\(indent)BatchHashAgg { group_key: \(Array(0 ..< groupCount)), aggs: [\(aggregates.map(\.explainText).joined(separator: ", "))] }")
            input.render(into: &lines, depth: depth + 1)
        case .hashJoin(let join):
            lines.append(
                "\(indent)BatchHashJoin { type: \(join.kind.rawValue), left_keys: \(join.leftKeys), right_keys: \(join.rightKeys)"
                    + "\(join.residual.map { ", condition: \($0)" } ?? "")\(join.buildsLeft ? ", build: left" : "") }")
            join.left.render(into: &lines, depth: depth + 1)
            join.right.render(into: &lines, depth: depth + 1)
        case .nestedLoopJoin(let left, let right, let kind, let predicate):
            lines.append("\(indent)BatchNestedLoopJoin { type: \(kind.rawValue)\(predicate.map { ", condition: \($0)" } ?? "") }")
            left.render(into: &lines, depth: depth + 1)
            right.render(into: &lines, depth: depth + 1)
        case .sort(let input, let keys):
            let text = keys.map { "$\($0.column) \($0.descending ? "DESC" : "ASC")" }.joined(separator: ", ")
            lines.append("\(indent)BatchSort { order: [\(text)] }")
            input.render(into: &lines, depth: depth + 1)
        case .topN(let input, let keys, let limit, let offset):
            let text = keys.map { "$\($0.column) \($0.descending ? "DESC" : "ASC")" }.joined(separator: ", ")
            lines.append("\(indent)BatchTopN { order: [\(text)], limit: \(limit), offset: \(offset) }")
            input.render(into: &lines, depth: depth + 1)
        case .limit(let input, let limit, let offset):
            lines.append("\(indent)BatchLimit { limit: \(limit.map(String.init) ?? "all"), offset: \(offset) }")
            input.render(into: &lines, depth: depth + 1)
        case .union(let inputs, let distinct):
            lines.append("\(indent)BatchUnion { all: \(!distinct) }")
            for input in inputs { input.render(into: &lines, depth: depth + 1) }
        case .apply(let input, let subquery, let kind):
            lines.append("\(indent)BatchApply { kind: \(kind.rawValue) }")
            input.render(into: &lines, depth: depth + 1)
            subquery.render(into: &lines, depth: depth + 1)
        case .tableFunction(let function, let arguments, _):
            lines.append("\(indent)BatchTableFunction { \(function.rawValue)(\(arguments.map(\.description).joined(separator: ", "))) }")
        case .window(let input, let partitionColumns, let orderColumns, let functions):
            let calls = functions.map { "\($0.rawValue)()" }.joined(separator: ", ")
            lines.append("\(indent)BatchWindow { partition_by: \(partitionColumns), order_by: \(orderColumns), calls: [\(calls)] }")
            input.render(into: &lines, depth: depth + 1)
        case .overWindow(let input, let partitionColumns, let order, let calls):
            let orderText = order.map { "$\($0.column)\($0.descending ? " DESC" : "")" }.joined(separator: ", ")
            lines.append(
                "\(indent)BatchOverWindow { partition_by: \(partitionColumns), order_by: [\(orderText)], calls: [\(calls.map(\.explainText).joined(separator: ", "))] }")
            input.render(into: &lines, depth: depth + 1)
        case .maxOneRow(let input):
            lines.append("\(indent)BatchMaxOneRow")
            input.render(into: &lines, depth: depth + 1)
        case .setOperation(let left, let right, let kind, let all):
            lines.append("\(indent)Batch\(kind == .intersect ? "Intersect" : "Except") { all: \(all) }")
            left.render(into: &lines, depth: depth + 1)
            right.render(into: &lines, depth: depth + 1)
        }
    }
}

extension AggregateCall {
    /// The call as EXPLAIN shows it: `sum($1)`, `count(DISTINCT $0)`, `count(*)`.
    package var explainText: String {
        if kind == .countStar { return "count(*)" }
        return "\(kind.rawValue)(\(distinct ? "DISTINCT " : "")\(argument.map { "$\($0)" } ?? "*"))"
    }
}
