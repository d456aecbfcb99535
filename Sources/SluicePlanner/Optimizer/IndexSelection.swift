import SluiceCore
import SluiceExpr
import SluicePlan

/// Turns a filtered scan of a table with secondary indexes into an index lookup: the filter's
/// conjuncts `column = constant` on the index's first key columns, then `column <, <=, >, >=
/// constant` on the next one, give the key range read. The filter stays above the scan and keeps
/// checking every conjunct, so the range only needs to hold the rows the filter keeps.
struct IndexSelection {
    var indexedTable: (Int) -> RelationDefinition?

    func apply(_ plan: BatchPlan) -> BatchPlan {
        // (An index holds the stored columns, not the hidden row id: a scan reading it stays one.)
        if case .filter(.scan(var scan), let predicate) = plan, scan.index == nil, let table = indexedTable(scan.tableID),
           scan.columns.allSatisfy({ $0 < table.columns.count }), let lookup = bestLookup(for: predicate, scan: scan, table: table) {
            scan.index = lookup
            return .filter(input: .scan(scan), predicate: predicate)
        }
        return plan.mappingInputs(includingSubqueries: true, apply)
    }

    /// What the conjuncts say of one table column.
    private struct Constraint {
        var equal: Value?
        var lower: IndexLookup.Bound?
        var upper: IndexLookup.Bound?
    }

    private func bestLookup(for predicate: ScalarExpr, scan: TableScan, table: RelationDefinition) -> IndexLookup? {
        var constraints: [Int: Constraint] = [:]
        for conjunct in predicate.conjuncts {
            guard let (column, op, value) = comparison(conjunct, scan: scan, table: table) else { continue }
            var constraint = constraints[column] ?? Constraint()
            switch op {
            case "=": constraint.equal = constraint.equal ?? value
            case ">": constraint.lower = constraint.lower ?? IndexLookup.Bound(value: value, inclusive: false)
            case ">=": constraint.lower = constraint.lower ?? IndexLookup.Bound(value: value, inclusive: true)
            case "<": constraint.upper = constraint.upper ?? IndexLookup.Bound(value: value, inclusive: false)
            default: constraint.upper = constraint.upper ?? IndexLookup.Bound(value: value, inclusive: true)
            }
            constraints[column] = constraint
        }
        guard !constraints.isEmpty else { return nil }
        var best: (score: Int, lookup: IndexLookup)?
        for index in table.indexList {
            var prefix: [Value] = []
            for key in index.keys {
                guard let value = constraints[key.column]?.equal else { break }
                prefix.append(value)
            }
            var lookup = IndexLookup(
                indexID: index.id, indexName: index.name, keyNames: index.keys.map { table.columns[$0.column].name }, prefix: prefix)
            var score = prefix.count * 2
            if prefix.count < index.keys.count, let constraint = constraints[index.keys[prefix.count].column],
               constraint.lower != nil || constraint.upper != nil {
                lookup.lower = constraint.lower
                lookup.upper = constraint.upper
                score += 1
            }
            lookup.keyNames = Array(lookup.keyNames.prefix(prefix.count + (score % 2)))
            if score > 0, score > best?.score ?? 0 { best = (score, lookup) }
        }
        return best?.lookup
    }

    /// `column op constant` (or `constant op column`, turned around) for a comparison of a
    /// scanned table column with a non-null constant of exactly the column's type: the table
    /// column, the operator and the constant.
    private func comparison(_ conjunct: ScalarExpr, scan: TableScan, table: RelationDefinition) -> (Int, String, Value)? {
        guard case .call(let function, let arguments) = conjunct, arguments.count == 2 else { return nil }
        let mirrored = ["=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="]
        guard let mirror = mirrored[function.name] else { return nil }
        let (columnSide, constantSide, op): (ScalarExpr, ScalarExpr, String)
        if case .column = arguments[0] {
            (columnSide, constantSide, op) = (arguments[0], arguments[1], function.name)
        } else {
            (columnSide, constantSide, op) = (arguments[1], arguments[0], mirror)
        }
        guard case .column(let position, let type) = columnSide, position < scan.columns.count,
              case .literal(let value, let constantType) = constantSide, !value.isNull
        else { return nil }
        let column = scan.columns[position]
        guard table.columns[column].type == type, let converted = Self.value(value, of: constantType, as: type) else { return nil }
        return (column, op, converted)
    }

    /// `value` (of `type`) as a value of the column's type `target`, when that is the same
    /// number or text (integer widths differ), else nil.
    static func value(_ value: Value, of type: DataType, as target: DataType) -> Value? {
        if type == target { return value }
        let integer: Int64?
        switch value {
        case .int16(let v): integer = Int64(v)
        case .int32(let v): integer = Int64(v)
        case .int64(let v): integer = v
        default: integer = nil
        }
        guard let integer else { return nil }
        switch target {
        case .int16: return Int16(exactly: integer).map(Value.int16)
        case .int32: return Int32(exactly: integer).map(Value.int32)
        case .int64: return .int64(integer)
        default: return nil
        }
    }
}
