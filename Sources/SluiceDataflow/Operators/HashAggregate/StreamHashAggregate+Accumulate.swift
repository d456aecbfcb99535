import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

/// The values an epoch's chunk adds to or takes from the set of distinct values of one ordered
/// state: those that entered (first equal value in) or left (last one out), with their groups'
/// slots. DISTINCT count, sum and avg fold them, a chunk at a time.
struct DistinctChanges {
    var slots: [Int32] = []
    var signs: [Int8] = []
    var values: ColumnBuilder

    init(type: DataType) {
        values = ColumnBuilder(type: type, capacity: 0)
    }
}

extension StreamHashAggregate {
    /// Adds the rows of `data` with sign 1 to the entries of every ordered state under their
    /// groups' keys (row `i`'s key is `groupKeys`' key `i`), or takes those with -1 away. min,
    /// max, string_agg and array_agg stage their entries a chunk at a time, typed (the values
    /// gathered from the input's columns, the keys written straight into the table's staged
    /// keys); their multiplicities net out when the table commits at the barrier. DISTINCT
    /// entries must know at once whether a value entered or left its group's set, and keep the
    /// first of equal values: those go one at a time, and a value that entered or left goes to
    /// `distinct`, for the DISTINCT aggregates' counters.
    func accumulateOrdered(groupKeys: KeyBuffer, slots: [Int32], _ data: Chunk, signs: [Int8], distinct: inout [DistinctChanges]) throws(SluiceError) {
        for (stateIndex, ordered) in orderedStates.enumerated() {
            var rows = Array(0 ..< data.count)
            if let filter = ordered.shape.filter { rows.removeAll { !Self.isTrue(data.columns[filter], $0) } }
            switch ordered.shape {
            case .extremes(let argument, _):
                let column = data.columns[argument]
                if column.hasNulls { rows.removeAll { column.isNull($0) } }
                ordered.entries.stage(Chunk(columns: [column.gather(rows)], count: rows.count), counts: rows.map { Int32(signs[$0]) }) { bytes, index in
                    let row = rows[index]
                    groupKeys.appendKey(row, to: &bytes)
                    MemcomparableEncoding.append(column, row: row, to: &bytes)
                    MemcomparableEncoding.appendExactForm(column, row: row, to: &bytes)
                }
            case .distinctValues(let argument, _):
                let column = data.columns[argument]
                let source = ordered.entries.addPayloads(Chunk(columns: [column], count: data.count))
                var entryKey: [UInt8] = []
                for rowIndex in rows where !column.isNull(rowIndex) {
                    entryKey.removeAll(keepingCapacity: true)
                    groupKeys.appendKey(rowIndex, to: &entryKey)
                    MemcomparableEncoding.append(column, row: rowIndex, to: &entryKey)
                    let change = try ordered.entries.adjust(entryKey, by: Int64(signs[rowIndex]), payload: (source, Int32(rowIndex)))
                    // The first equal value in, or the last one out: the set of distinct values changed.
                    guard (change.before == 0) != (change.after == 0) else { continue }
                    distinct[stateIndex].slots.append(slots[rowIndex])
                    distinct[stateIndex].signs.append(signs[rowIndex])
                    ordered.entries.append(change.payload, column: 0, to: &distinct[stateIndex].values)
                }
            case .elements(let elements) where elements.distinct:
                // (An entry is a distinct value and delimiter: its payload stays the first that
                // came in, as the table's commit, which takes the newest row, would not keep.)
                let column = data.columns[elements.argument]
                var payloads = [column]
                if elements.kind == .stringAgg {
                    payloads.append(elements.delimiter.map { data.columns[$0] } ?? Column(type: .varchar, repeating: .null, count: data.count))
                }
                let source = ordered.entries.addPayloads(Chunk(columns: payloads, count: data.count))
                let delimiterType = elements.delimiter.map { inputTypes[$0] } ?? .varchar
                for rowIndex in rows {
                    let value = column.value(at: rowIndex)
                    if value.isNull && elements.kind == .stringAgg { continue }
                    var entryKey = groupKeys.key(rowIndex)
                    for sortKey in elements.orderBy {
                        MemcomparableEncoding.append(
                            data.columns[sortKey.column].value(at: rowIndex), as: inputTypes[sortKey.column],
                            descending: sortKey.descending, nullsFirst: sortKey.nullsFirst, to: &entryKey)
                    }
                    MemcomparableEncoding.append(value, as: inputTypes[elements.argument], descending: false, nullsFirst: false, to: &entryKey)
                    if elements.kind == .stringAgg {
                        MemcomparableEncoding.append(payloads[1].value(at: rowIndex), as: delimiterType, to: &entryKey)
                    }
                    _ = try ordered.entries.adjust(entryKey, by: Int64(signs[rowIndex]), payload: (source, Int32(rowIndex)))
                }
            case .elements(let elements):
                let column = data.columns[elements.argument]
                if elements.kind == .stringAgg && column.hasNulls { rows.removeAll { column.isNull($0) } }
                var payload = [column.gather(rows)]
                let delimiter = elements.kind == .stringAgg ? elements.delimiter.map { data.columns[$0] } : nil
                if elements.kind == .stringAgg {
                    payload.append(delimiter?.gather(rows) ?? Column(type: .varchar, repeating: .null, count: rows.count))
                }
                let delimiterType = elements.delimiter.map { inputTypes[$0] } ?? .varchar
                ordered.entries.stage(Chunk(columns: payload, count: rows.count), counts: rows.map { Int32(signs[$0]) }) { bytes, index in
                    let row = rows[index]
                    groupKeys.appendKey(row, to: &bytes)
                    for sortKey in elements.orderBy {
                        MemcomparableEncoding.append(
                            data.columns[sortKey.column].value(at: row), as: inputTypes[sortKey.column],
                            descending: sortKey.descending, nullsFirst: sortKey.nullsFirst, to: &bytes)
                    }
                    let value = column.value(at: row)
                    MemcomparableEncoding.append(value, as: inputTypes[elements.argument], descending: false, nullsFirst: false, to: &bytes)
                    MemcomparableEncoding.appendExactForm(column, row: row, to: &bytes)
                    if elements.kind == .stringAgg {
                        let separator = delimiter?.value(at: row) ?? .null
                        MemcomparableEncoding.append(separator, as: delimiterType, to: &bytes)
                        MemcomparableEncoding.appendExactForm(separator, to: &bytes)
                    }
                }
            }
        }
    }

    /// The result types of the aggregates that read ordered state (min and max under deletes,
    /// string_agg, array_agg), in aggregate order.
    var orderedResultTypes: [DataType] {
        aggregates.indices.filter { counters[$0] == nil }.map { aggregates[$0].resultType }
    }

    /// Appends to `results` (a builder per ``orderedResultTypes``) the results of the aggregates
    /// that read ordered state, from the committed entries under `groupKey`: min and max copied
    /// from their page's typed column.
    func appendOrderedResults(groupKey: [UInt8], to results: inout [ColumnBuilder]) throws(SluiceError) {
        var next = 0
        for (index, call) in aggregates.enumerated() where counters[index] == nil {
            let ordered = orderedStates[layouts[index].orderedState!]
            switch call.kind {
            case .min, .max:
                let entry = call.kind == .min ? ordered.entries.table.first(withPrefix: groupKey) : ordered.entries.table.last(withPrefix: groupKey)
                if let entry {
                    results[next].append(entry.contents.rows.columns[0], row: entry.index)
                } else {
                    results[next].appendNull()
                }
            default:
                guard case .elements(let elements) = ordered.shape else {
                    throw SluiceError.internalError("\(call.kind.rawValue) reads the wrong kind of ordered state")
                }
                results[next].append(Self.collect(ordered.entries.entries(withPrefix: groupKey), elements))
            }
            next += 1
        }
    }

    /// string_agg's text or array_agg's array from a group's entries in order, each repeated
    /// by its multiplicity (once under DISTINCT); NULL when there are none. Each element after
    /// the first is preceded by its own delimiter, a NULL delimiter counting as empty.
    private static func collect(_ entries: [(count: Int64, payload: [Value])], _ elements: OrderedAggregateState.Elements) -> Value {
        if entries.isEmpty { return .null }
        if elements.kind == .arrayAgg {
            var values: [Value] = []
            for entry in entries {
                let repeats = elements.distinct ? 1 : Int(entry.count)
                for _ in 0 ..< repeats { values.append(entry.payload[0]) }
            }
            return .list(values)
        }
        var text = ""
        var isFirst = true
        for entry in entries {
            guard case .string(let value) = entry.payload[0] else { continue }
            let delimiter: String
            switch entry.payload[1] {
            case .null: delimiter = ""
            case .string(let string): delimiter = string
            case let other: delimiter = other.textForm
            }
            let repeats = elements.distinct ? 1 : Int(entry.count)
            for _ in 0 ..< repeats {
                if !isFirst { text += delimiter }
                text += value
                isFirst = false
            }
        }
        return isFirst ? .null : .string(text)
    }

    /// Whether row `rowIndex` of a boolean column is true (FILTER keeps only those).
    static func isTrue(_ column: Column, _ rowIndex: Int) -> Bool {
        if column.isNull(rowIndex) { return false }
        if case .bool(let values) = column.storage { return values[rowIndex] }
        return column.value(at: rowIndex) == .bool(true)
    }
}
