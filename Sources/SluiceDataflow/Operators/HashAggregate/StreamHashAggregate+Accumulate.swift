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
    /// Adds row `rowIndex` of `data` to the entries of every ordered state under its group's key
    /// (`sign` 1), or takes it away (-1). A value entering or leaving a set of distinct values
    /// goes to `distinct`, for the DISTINCT aggregates' counters.
    func accumulateOrdered(
        groupKey: [UInt8], slot: Int32, _ data: Chunk, _ rowIndex: Int, sign: Int8, distinct: inout [DistinctChanges]
    ) throws(SluiceError) {
        for (stateIndex, ordered) in orderedStates.enumerated() {
            if let filter = ordered.shape.filter, !Self.isTrue(data.columns[filter], rowIndex) { continue }
            switch ordered.shape {
            case .extremes(let argument, _):
                let value = data.columns[argument].value(at: rowIndex)
                if value.isNull { continue }
                var entryKey = groupKey
                MemcomparableEncoding.append(value, as: inputTypes[argument], to: &entryKey)
                MemcomparableEncoding.appendExactForm(value, to: &entryKey)
                _ = try ordered.entries.adjust(entryKey, by: Int64(sign), payload: [value])
            case .distinctValues(let argument, _):
                let value = data.columns[argument].value(at: rowIndex)
                if value.isNull { continue }
                var entryKey = groupKey
                MemcomparableEncoding.append(value, as: inputTypes[argument], to: &entryKey)
                let change = try ordered.entries.adjust(entryKey, by: Int64(sign), payload: [value])
                // The first equal value in, or the last one out: the set of distinct values changed.
                guard (change.before == 0) != (change.after == 0) else { continue }
                distinct[stateIndex].slots.append(slot)
                distinct[stateIndex].signs.append(sign)
                distinct[stateIndex].values.append(change.payload[0])
            case .elements(let elements):
                let value = data.columns[elements.argument].value(at: rowIndex)
                if value.isNull && elements.kind == .stringAgg { continue }
                var entryKey = groupKey
                for sortKey in elements.orderBy {
                    MemcomparableEncoding.append(
                        data.columns[sortKey.column].value(at: rowIndex), as: inputTypes[sortKey.column],
                        descending: sortKey.descending, nullsFirst: sortKey.nullsFirst, to: &entryKey)
                }
                MemcomparableEncoding.append(value, as: inputTypes[elements.argument], descending: false, nullsFirst: false, to: &entryKey)
                if !elements.distinct { MemcomparableEncoding.appendExactForm(value, to: &entryKey) }
                var payload = [value]
                if elements.kind == .stringAgg {
                    let delimiter = elements.delimiter.map { data.columns[$0].value(at: rowIndex) } ?? .null
                    MemcomparableEncoding.append(delimiter, as: elements.delimiter.map { inputTypes[$0] } ?? .varchar, to: &entryKey)
                    if !elements.distinct { MemcomparableEncoding.appendExactForm(delimiter, to: &entryKey) }
                    payload.append(delimiter)
                }
                _ = try ordered.entries.adjust(entryKey, by: Int64(sign), payload: payload)
            }
        }
    }

    /// The results of the aggregates that read ordered state (min and max under deletes,
    /// string_agg, array_agg), in aggregate order, from the committed entries under `groupKey`.
    func orderedResults(groupKey: [UInt8]) throws(SluiceError) -> [Value] {
        var results: [Value] = []
        for (index, call) in aggregates.enumerated() where counters[index] == nil {
            let ordered = orderedStates[layouts[index].orderedState!]
            switch call.kind {
            case .min:
                results.append(ordered.entries.first(withPrefix: groupKey)?[0] ?? .null)
            case .max:
                results.append(ordered.entries.last(withPrefix: groupKey)?[0] ?? .null)
            default:
                guard case .elements(let elements) = ordered.shape else {
                    throw SluiceError.internalError("\(call.kind.rawValue) reads the wrong kind of ordered state")
                }
                results.append(Self.collect(ordered.entries.entries(withPrefix: groupKey), elements))
            }
        }
        return results
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
