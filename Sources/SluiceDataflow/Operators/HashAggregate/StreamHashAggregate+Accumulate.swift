import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

extension StreamHashAggregate {
    /// Adds row `rowIndex` of `data` to its group (`sign` 1) or takes it away (`sign` -1): the
    /// row count and the counters in `state`, and the entries of every ordered state.
    func accumulate(_ state: inout [Value], groupKey: [UInt8], _ data: Chunk, _ rowIndex: Int, sign: Int64) throws(SluiceError) {
        state[groupCount] = .int64((state[groupCount].int64 ?? 0) + sign)
        for (index, call) in aggregates.enumerated() where layouts[index].foldsEveryRow {
            if let filter = call.filter, !Self.isTrue(data.columns[filter], rowIndex) { continue }
            let slot = layouts[index].slot
            switch call.kind {
            case .countStar:
                state[slot] = .int64((state[slot].int64 ?? 0) + sign)
            case .count:
                if !data.columns[call.argument!].isNull(rowIndex) { state[slot] = .int64((state[slot].int64 ?? 0) + sign) }
            default:
                let value = data.columns[call.argument!].value(at: rowIndex)
                if !value.isNull { try Self.fold(value, into: &state, kind: call.kind, slot: slot, sign: sign) }
            }
        }
        for ordered in orderedStates {
            if let filter = ordered.shape.filter, !Self.isTrue(data.columns[filter], rowIndex) { continue }
            switch ordered.shape {
            case .extremes(let argument, _):
                let value = data.columns[argument].value(at: rowIndex)
                if value.isNull { continue }
                var entryKey = groupKey
                MemcomparableEncoding.append(value, as: inputTypes[argument], to: &entryKey)
                MemcomparableEncoding.appendExactForm(value, to: &entryKey)
                _ = try ordered.entries.adjust(entryKey, by: sign, payload: [value])
            case .distinctValues(let argument, _):
                let value = data.columns[argument].value(at: rowIndex)
                if value.isNull { continue }
                var entryKey = groupKey
                MemcomparableEncoding.append(value, as: inputTypes[argument], to: &entryKey)
                let change = try ordered.entries.adjust(entryKey, by: sign, payload: [value])
                // The first equal value in, or the last one out: the set of distinct values changed.
                guard (change.before == 0) != (change.after == 0) else { continue }
                for consumer in ordered.distinctConsumers {
                    try Self.fold(change.payload[0], into: &state, kind: aggregates[consumer].kind, slot: layouts[consumer].slot, sign: sign)
                }
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
                _ = try ordered.entries.adjust(entryKey, by: sign, payload: payload)
            }
        }
    }

    /// The output row for a group: its keys, then each aggregate's value, from the group's
    /// counters in `state` and the group's entries (under `groupKey`) in the ordered states.
    func outputRow(_ state: [Value], groupKey: [UInt8]) throws(SluiceError) -> [Value] {
        var row = Array(state.prefix(groupCount))
        row.reserveCapacity(groupCount + aggregates.count)
        for (index, call) in aggregates.enumerated() {
            let slot = layouts[index].slot
            switch call.kind {
            case .count, .countStar:
                row.append(state[slot])
            case .sum:
                let summed = state[slot + 1].int64 ?? 0
                row.append(summed == 0 ? .null : try AggregateArithmetic.finish(state[slot], as: call.resultType))
            case .avg:
                let summed = state[slot + 1].int64 ?? 0
                row.append(summed == 0 ? .null : try AggregateArithmetic.average(state[slot], count: summed))
            case .boolAnd, .boolOr:
                let (trues, falses) = (state[slot].int64 ?? 0, state[slot + 1].int64 ?? 0)
                if trues == 0 && falses == 0 {
                    row.append(.null)
                } else {
                    row.append(.bool(call.kind == .boolAnd ? falses == 0 : trues > 0))
                }
            case .min, .max:
                guard let ordered = layouts[index].orderedState else {
                    row.append(state[slot])
                    continue
                }
                let entries = orderedStates[ordered].entries
                let extreme = call.kind == .min ? entries.first(withPrefix: groupKey) : entries.last(withPrefix: groupKey)
                row.append(extreme?[0] ?? .null)
            case .stringAgg, .arrayAgg:
                let ordered = orderedStates[layouts[index].orderedState!]
                guard case .elements(let elements) = ordered.shape else {
                    throw SluiceError.internalError("\(call.kind.rawValue) reads the wrong kind of ordered state")
                }
                row.append(Self.collect(ordered.entries.entries(withPrefix: groupKey), elements))
            }
        }
        return row
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

    /// Adds (`sign` 1) or takes away (-1) a non-null `value` in the counters of an aggregate of
    /// `kind` at `slot` (see ``AggregateLayout``).
    static func fold(_ value: Value, into state: inout [Value], kind: AggregateKind, slot: Int, sign: Int64) throws(SluiceError) {
        switch kind {
        case .count, .countStar:
            state[slot] = .int64((state[slot].int64 ?? 0) + sign)
        case .sum, .avg:
            state[slot] = try AggregateArithmetic.add(state[slot], value, sign: sign)
            state[slot + 1] = .int64((state[slot + 1].int64 ?? 0) + sign)
        case .boolAnd, .boolOr:
            guard case .bool(let truth) = value else { return }
            let counter = truth ? slot : slot + 1
            state[counter] = .int64((state[counter].int64 ?? 0) + sign)
        case .min, .max:
            // Only over an append-only input, where the slot holds the extreme so far.
            guard sign > 0 else { throw SluiceError.internalError("a delete reached min or max over an append-only input") }
            let current = state[slot]
            let order = current.isNull ? 0 : ValueOrdering.compare(value, current)
            if current.isNull || (kind == .min ? order < 0 : order > 0) { state[slot] = value }
        case .stringAgg, .arrayAgg:
            break
        }
    }

    /// Whether row `rowIndex` of a boolean column is true (FILTER keeps only those).
    static func isTrue(_ column: Column, _ rowIndex: Int) -> Bool {
        if column.isNull(rowIndex) { return false }
        if case .bool(let values) = column.storage { return values[rowIndex] }
        return column.value(at: rowIndex) == .bool(true)
    }
}
