import SluiceCore
import SluiceExpr
import SluicePlan

/// Per-group state of one aggregate, updated a chunk at a time.
///
/// One dynamic call per chunk, then a tight loop over the rows; `rows` lists the rows to feed
/// (after FILTER and DISTINCT), or is nil for all `rowCount` rows. An empty `groups` means every
/// row is in group 0 (an aggregate without GROUP BY).
protocol Accumulator: AnyObject {
    func update(groups: [Int32], rowCount: Int, groupCount: Int, argument: Column?, delimiter: Column?, rows: [Int]?) throws(SluiceError)
    func finish(groupCount: Int) throws(SluiceError) -> Column
}

enum Accumulators {
    static func make(for call: AggregateCall, argumentType: DataType?) -> any Accumulator {
        switch (call.kind, argumentType) {
        case (.countStar, _): return CountAccumulator(countsRows: true)
        case (.count, _): return CountAccumulator(countsRows: false)
        case (.sum, .int64?): return WideSumAccumulator(average: false, resultType: call.resultType)
        case (.avg, .int64?): return WideSumAccumulator(average: true, resultType: call.resultType)
        case (.min, .int64?): return Int64ExtremeAccumulator(isMax: false, resultType: call.resultType)
        case (.max, .int64?): return Int64ExtremeAccumulator(isMax: true, resultType: call.resultType)
        default: return GenericAccumulator(kind: call.kind, resultType: call.resultType)
        }
    }
}

final class CountAccumulator: Accumulator {
    let countsRows: Bool
    var counts: [Int64] = []

    init(countsRows: Bool) { self.countsRows = countsRows }

    func update(groups: [Int32], rowCount: Int, groupCount: Int, argument: Column?, delimiter: Column?, rows: [Int]?) {
        if counts.count < groupCount { counts += [Int64](repeating: 0, count: groupCount - counts.count) }
        let validity = countsRows ? nil : argument?.validity
        if groups.isEmpty {
            if rowCount == 0 { return }
            if let rows {
                counts[0] += Int64(rows.count(where: { validity?[$0] ?? true }))
            } else if let validity {
                counts[0] += Int64((0 ..< rowCount).count(where: { validity[$0] }))
            } else {
                counts[0] += Int64(rowCount)
            }
            return
        }
        counts.withUnsafeMutableBufferPointer { counts in
            groups.withUnsafeBufferPointer { groups in
                if let rows {
                    for rowIndex in rows where validity?[rowIndex] ?? true { counts[Int(groups[rowIndex])] += 1 }
                } else if let validity {
                    for rowIndex in 0 ..< groups.count where validity[rowIndex] { counts[Int(groups[rowIndex])] += 1 }
                } else {
                    for group in groups { counts[Int(group)] += 1 }
                }
            }
        }
    }

    func finish(groupCount: Int) -> Column {
        if counts.count < groupCount { counts += [Int64](repeating: 0, count: groupCount - counts.count) }
        return Column(type: .int64, storage: .int64(counts))
    }
}

/// `sum` and `avg` of bigint: 128-bit sums, numeric results as Postgres types them.
final class WideSumAccumulator: Accumulator {
    let average: Bool
    let resultType: DataType
    var sums: [Int128] = []
    var counts: [Int64] = []

    init(average: Bool, resultType: DataType) {
        self.average = average
        self.resultType = resultType
    }

    func update(groups: [Int32], rowCount: Int, groupCount: Int, argument: Column?, delimiter: Column?, rows: [Int]?) {
        if sums.count < groupCount {
            sums += [Int128](repeating: 0, count: groupCount - sums.count)
            counts += [Int64](repeating: 0, count: groupCount - counts.count)
        }
        guard let argument, case .int64(let values) = argument.storage else { return }
        let validity = argument.validity
        sums.withUnsafeMutableBufferPointer { sums in
            counts.withUnsafeMutableBufferPointer { counts in
                values.withUnsafeBufferPointer { values in
                    groups.withUnsafeBufferPointer { groups in
                        let global = groups.isEmpty
                        if rows == nil && validity == nil {
                            if global {
                                var total: Int128 = 0
                                for value in values { total &+= Int128(value) }
                                sums[0] &+= total
                                counts[0] &+= Int64(values.count)
                                return
                            }
                            for rowIndex in 0 ..< values.count {
                                let group = Int(groups[rowIndex])
                                sums[group] &+= Int128(values[rowIndex])
                                counts[group] &+= 1
                            }
                        } else {
                            for rowIndex in rows ?? Array(0 ..< values.count) where validity?[rowIndex] ?? true {
                                let group = global ? 0 : Int(groups[rowIndex])
                                sums[group] &+= Int128(values[rowIndex])
                                counts[group] &+= 1
                            }
                        }
                    }
                }
            }
        }
    }

    func finish(groupCount: Int) throws(SluiceError) -> Column {
        update(groups: [], rowCount: 0, groupCount: groupCount, argument: nil, delimiter: nil, rows: nil)
        var output: [Decimal] = []
        output.reserveCapacity(groupCount)
        var validity = Bitmap(count: groupCount, value: true)
        for group in 0 ..< groupCount {
            if counts[group] == 0 {
                validity[group] = false
                output.append(.zero)
            } else if average {
                output.append(try Decimal.dividing(Decimal(mantissa: sums[group], scale: 0), Decimal(counts[group])))
            } else {
                output.append(Decimal(mantissa: sums[group], scale: 0))
            }
        }
        return Column(type: resultType, storage: .decimal(output), validity: validity)
    }
}

/// `min` and `max` of bigint.
///
/// Whether a group has seen a value is only tracked once some chunk had NULLs or a FILTER:
/// until then every group was created by a row with a value.
final class Int64ExtremeAccumulator: Accumulator {
    let isMax: Bool
    let resultType: DataType
    var values: [Int64] = []
    /// nil while groups `0 ..< coveredCount` all have a value and there are no others.
    var seen: [Bool]? = nil
    var coveredCount = 0

    init(isMax: Bool, resultType: DataType) {
        self.isMax = isMax
        self.resultType = resultType
    }

    func update(groups: [Int32], rowCount: Int, groupCount: Int, argument: Column?, delimiter: Column?, rows: [Int]?) {
        if values.count < groupCount {
            values += [Int64](repeating: isMax ? .min : .max, count: groupCount - values.count)
        }
        let input: [Int64]
        if let argument, case .int64(let elements) = argument.storage { input = elements } else { input = [] }
        let validity = argument?.validity
        let isMax = isMax
        // Fast: every row feeds the aggregate, so every group this chunk created has a value.
        let fast = argument != nil && rows == nil && validity == nil && !groups.isEmpty
        if fast && seen == nil {
            coveredCount = groupCount
        } else {
            if seen == nil {
                seen = [Bool](repeating: true, count: coveredCount) + [Bool](repeating: false, count: groupCount - coveredCount)
            } else if seen!.count < groupCount {
                seen! += [Bool](repeating: fast, count: groupCount - seen!.count)
            }
        }
        guard argument != nil else { return }
        values.withUnsafeMutableBufferPointer { values in
            input.withUnsafeBufferPointer { input in
                groups.withUnsafeBufferPointer { groups in
                    if fast {
                        // Separate loops, each a branch-free compare-and-select per row.
                        if isMax {
                            for rowIndex in 0 ..< input.count {
                                let group = Int(groups[rowIndex])
                                values[group] = Swift.max(values[group], input[rowIndex])
                            }
                        } else {
                            for rowIndex in 0 ..< input.count {
                                let group = Int(groups[rowIndex])
                                values[group] = Swift.min(values[group], input[rowIndex])
                            }
                        }
                        if seen != nil {
                            for group in groups { seen![Int(group)] = true }
                        }
                    } else {
                        let global = groups.isEmpty
                        for rowIndex in rows ?? Array(0 ..< input.count) where validity?[rowIndex] ?? true {
                            let group = global ? 0 : Int(groups[rowIndex])
                            let value = input[rowIndex]
                            seen![group] = true
                            if isMax ? value > values[group] : value < values[group] { values[group] = value }
                        }
                    }
                }
            }
        }
    }

    func finish(groupCount: Int) -> Column {
        update(groups: [], rowCount: 0, groupCount: groupCount, argument: nil, delimiter: nil, rows: nil)
        guard let seen else { return Column(type: resultType, storage: .int64(values)) }
        let output = values.enumerated().map { seen[$0.offset] ? $0.element : 0 }
        return Column(type: resultType, storage: .int64(output), validity: Bitmap(bits: seen))
    }
}

/// Every other aggregate, over scalar values: correct for all types, not the fastest.
final class GenericAccumulator: Accumulator {
    let kind: AggregateKind
    let resultType: DataType
    var states: [Value] = []
    var counts: [Int64] = []

    init(kind: AggregateKind, resultType: DataType) {
        self.kind = kind
        self.resultType = resultType
    }

    func update(groups: [Int32], rowCount: Int, groupCount: Int, argument: Column?, delimiter: Column?, rows: [Int]?) throws(SluiceError) {
        if states.count < groupCount {
            states += [Value](repeating: .null, count: groupCount - states.count)
            counts += [Int64](repeating: 0, count: groupCount - counts.count)
        }
        guard let argument else { return }
        if kind == .arrayAgg {
            for rowIndex in rows ?? Array(0 ..< rowCount) {
                let group = groups.isEmpty ? 0 : Int(groups[rowIndex])
                if case .list(let sofar) = states[group] {
                    states[group] = .list(sofar + [argument.value(at: rowIndex)])
                } else {
                    states[group] = .list([argument.value(at: rowIndex)])
                }
            }
            return
        }
        for rowIndex in rows ?? Array(0 ..< rowCount) where !argument.isNull(rowIndex) {
            let group = groups.isEmpty ? 0 : Int(groups[rowIndex])
            let value = argument.value(at: rowIndex)
            counts[group] += 1
            let current = states[group]
            switch kind {
            case .min, .max:
                if current.isNull {
                    states[group] = value
                } else {
                    let order = ValueOrdering.compare(value, current)
                    if kind == .max ? order > 0 : order < 0 { states[group] = value }
                }
            case .sum, .avg:
                states[group] = try AggregateArithmetic.add(current, value)
            case .boolAnd:
                if case .bool(let b) = value { states[group] = .bool((current.isNull ? true : current == .bool(true)) && b) }
            case .boolOr:
                if case .bool(let b) = value { states[group] = .bool((current.isNull ? false : current == .bool(true)) || b) }
            case .stringAgg:
                guard case .string(let text) = value else { continue }
                if case .string(let sofar) = current {
                    let separator = delimiter.map { $0.isNull(rowIndex) ? "" : $0.value(at: rowIndex).textForm } ?? ""
                    states[group] = .string(sofar + separator + text)
                } else {
                    states[group] = .string(text)
                }
            case .count, .countStar, .arrayAgg:
                break
            }
        }
    }

    func finish(groupCount: Int) throws(SluiceError) -> Column {
        try update(groups: [], rowCount: 0, groupCount: groupCount, argument: nil, delimiter: nil, rows: nil)
        var builder = ColumnBuilder(type: resultType, capacity: groupCount)
        for group in 0 ..< groupCount {
            var value = states[group]
            if kind == .avg, !value.isNull {
                value = try AggregateArithmetic.average(value, count: counts[group])
            }
            builder.append(try AggregateArithmetic.finish(value, as: resultType))
        }
        return builder.finish()
    }
}
