import Glibc
import SluiceCore

/// `column op constant` without building a column of the constant: the common shape of
/// filters (`v > 500000`), run as one tight loop for fixed-width types.
package enum ConstantComparison {
    /// The operator and the constant when `function(arguments)` is `expression op constant`
    /// with one kind of values on both sides (the shape these kernels take).
    package static func comparison(_ function: ScalarFunction, _ arguments: [ScalarExpr]) -> (ComparisonOperator, Value)? {
        guard arguments.count == 2, case .literal(let constant, _) = arguments[1], let op = ComparisonOperator(rawValue: function.name),
              function.argumentTypes.count == 2, function.argumentTypes[0].sameValues(as: function.argumentTypes[1]),
              arguments[0].type.sameValues(as: function.argumentTypes[0])
        else { return nil }
        return (op, constant)
    }

    /// The column, operator and constant when `expression` is `column op constant` (as
    /// ``comparison(_:_:)`` takes it) and the constant is not null.
    package static func shape(of expression: ScalarExpr) -> (column: Int, op: ComparisonOperator, constant: Value)? {
        guard case .call(let function, let arguments) = expression, let (op, constant) = comparison(function, arguments),
              !constant.isNull, case .column(let column, _) = arguments[0]
        else { return nil }
        return (column, op, constant)
    }

    /// The rows among `rows` (every row when nil), in order, where `column op constant` is true
    /// (not false, not null), reading the column only at those rows; nil when no fast path
    /// applies.
    package static func select(_ column: Column, _ op: ComparisonOperator, _ constant: Value, among rows: [Int]?) -> [Int]? {
        if constant.isNull { return nil }
        var selected: [Int]
        switch (column.storage, constant) {
        case (.int64(let values), .int64(let c)), (.int64(let values), .timestamp(let c)), (.int64(let values), .timestamptz(let c)),
            (.int64(let values), .time(let c)):
            selected = select(values, c, op, among: rows)
        case (.int32(let values), .int32(let c)), (.int32(let values), .date(let c)):
            selected = select(values, c, op, among: rows)
        case (.int16(let values), .int16(let c)):
            selected = select(values, c, op, among: rows)
        case (.float64(let values), .float64(let c)) where !c.isNaN:
            selected = select(values, c, op, among: rows)
        case (.bytes(let values), .string(let c)) where column.type == .varchar:
            let constant = Array(c.utf8)
            selected = values.offsets.withUnsafeBufferPointer { offsets in
                values.data.withUnsafeBufferPointer { data in
                    constant.withUnsafeBufferPointer { constant in
                        selectRows(count: values.count, among: rows) { row in
                            holds(op, UnsafeBufferPointer(rebasing: data[Int(offsets[row]) ..< Int(offsets[row + 1])]), constant)
                        }
                    }
                }
            }
        case (.decimal(let values), .decimal(let c)) where c.isFinite:
            guard let kept = selectDecimals(values, column.validity, column.decimalProfile?.scale, c, op, among: rows) else { return nil }
            return kept
        default:
            return nil
        }
        if let validity = column.validity { selected.removeAll { !validity[$0] } }
        return selected
    }

    /// Decimals of one scale against a constant of no larger scale, raised to it: the mantissas
    /// compared, and nil when a value not null has another scale (or is special).
    /// (`known`: the scale of every value not null, when the column's profile says it.)
    private static func selectDecimals(
        _ values: [Decimal], _ validity: Bitmap?, _ known: Int16?, _ c: Decimal, _ op: ComparisonOperator, among rows: [Int]?
    ) -> [Int]? {
        let scale: Int16
        if let known {
            scale = known
        } else {
            let isValid = { (row: Int) in validity?[row] ?? true }
            guard let first = rows.map({ $0.first(where: isValid) }) ?? (0 ..< values.count).first(where: isValid) else { return [] }
            scale = values[first].scale
        }
        guard scale != Decimal.specialScale, c.scale <= scale, Int(scale - c.scale) <= Decimal.maximumDigits else { return nil }
        let (raised, overflow) = c.mantissa.multipliedReportingOverflow(by: Decimal.powerOfTen(Int(scale - c.scale)))
        guard !overflow else { return nil }
        var differs = false
        let selected = values.withUnsafeBufferPointer { values in
            func run(_ test: (Int128) -> Bool) -> [Int] {
                if let validity {
                    return selectRows(count: values.count, among: rows) { row in
                        guard validity[row] else { return false }
                        let value = values[row]
                        differs = differs || value.scale != scale
                        return test(value.mantissa)
                    }
                }
                return selectRows(count: values.count, among: rows) { row in
                    let value = values[row]
                    differs = differs || value.scale != scale
                    return test(value.mantissa)
                }
            }
            switch op {
            case .equal: return run { $0 == raised }
            case .notEqual: return run { $0 != raised }
            case .less: return run { $0 < raised }
            case .lessOrEqual: return run { $0 <= raised }
            case .greater: return run { $0 > raised }
            case .greaterOrEqual: return run { $0 >= raised }
            }
        }
        // (Null rows were turned away in the loop.)
        return differs ? nil : selected
    }

    private static func select<T: Comparable>(_ values: [T], _ constant: T, _ op: ComparisonOperator, among rows: [Int]?) -> [Int] {
        values.withUnsafeBufferPointer { values in
            switch op {
            case .equal: selectRows(count: values.count, among: rows) { values[$0] == constant }
            case .notEqual: selectRows(count: values.count, among: rows) { values[$0] != constant }
            case .less: selectRows(count: values.count, among: rows) { values[$0] < constant }
            case .lessOrEqual: selectRows(count: values.count, among: rows) { values[$0] <= constant }
            case .greater: selectRows(count: values.count, among: rows) { values[$0] > constant }
            case .greaterOrEqual: selectRows(count: values.count, among: rows) { values[$0] >= constant }
            }
        }
    }

    /// The rows among `rows` (every row of `count` when nil) where `test` holds, without
    /// branching on it: every row is written, and the end moves past the ones kept.
    @inline(__always)
    private static func selectRows(count: Int, among rows: [Int]?, _ test: (Int) -> Bool) -> [Int] {
        let candidates = rows?.count ?? count
        return [Int](unsafeUninitializedCapacity: candidates) { buffer, initialized in
            var kept = 0
            if let rows {
                rows.withUnsafeBufferPointer { rows in
                    for row in rows {
                        buffer[kept] = row
                        kept &+= test(row) ? 1 : 0
                    }
                }
            } else {
                for row in 0 ..< count {
                    buffer[kept] = row
                    kept &+= test(row) ? 1 : 0
                }
            }
            initialized = kept
        }
    }
    /// The comparison result, or nil when no fast path applies (the caller then evaluates the
    /// general way).
    package static func compare(_ column: Column, _ op: ComparisonOperator, _ constant: Value) -> Column? {
        if constant.isNull { return nil }
        switch (column.storage, constant) {
        case (.int64(let values), .int64(let c)), (.int64(let values), .timestamp(let c)), (.int64(let values), .timestamptz(let c)),
            (.int64(let values), .time(let c)):
            return run(values, c, op, column.validity)
        case (.int32(let values), .int32(let c)), (.int32(let values), .date(let c)):
            return run(values, c, op, column.validity)
        case (.int16(let values), .int16(let c)):
            return run(values, c, op, column.validity)
        case (.float64(let values), .float64(let c)) where !c.isNaN:
            return run(values, c, op, column.validity)
        case (.bytes(let values), .string(let c)) where column.type == .varchar:
            return runBytes(values, Array(c.utf8), op, column.validity)
        case (.decimal(let values), .decimal(let c)) where c.isFinite:
            // A column of one scale against a constant of no larger scale: the constant raised
            // to the column's scale, and the mantissas compared.
            guard let scale = column.profileOfDecimals?.scale, c.scale <= scale,
                  Int(scale - c.scale) <= Decimal.maximumDigits
            else { return nil }
            let (constant, overflow) = c.mantissa.multipliedReportingOverflow(by: Decimal.powerOfTen(Int(scale - c.scale)))
            guard !overflow else { return nil }
            return run(values.map(\.mantissa), constant, op, column.validity)
        default:
            return nil
        }
    }

    /// Text against a constant, byte by byte (``ValueOrdering/bytesOrder(_:_:)``); equality
    /// first compares lengths.
    private static func runBytes(_ values: VarBytes, _ constant: [UInt8], _ op: ComparisonOperator, _ validity: Bitmap?) -> Column {
        var result = [Bool](repeating: false, count: values.count)
        result.withUnsafeMutableBufferPointer { result in
            values.offsets.withUnsafeBufferPointer { offsets in
                values.data.withUnsafeBufferPointer { data in
                    constant.withUnsafeBufferPointer { constant in
                        for row in 0 ..< result.count {
                            result[row] = holds(op, UnsafeBufferPointer(rebasing: data[Int(offsets[row]) ..< Int(offsets[row + 1])]), constant)
                        }
                    }
                }
            }
        }
        return Column(type: .boolean, storage: .bool(result), validity: validity)
    }

    /// `value op constant` for text, byte by byte (``ValueOrdering/bytesOrder(_:_:)``); equality
    /// compares lengths first.
    @inline(__always)
    private static func holds(_ op: ComparisonOperator, _ value: UnsafeBufferPointer<UInt8>, _ constant: UnsafeBufferPointer<UInt8>) -> Bool {
        switch op {
        case .equal, .notEqual:
            let equal = value.count == constant.count && (value.isEmpty || memcmp(value.baseAddress!, constant.baseAddress!, value.count) == 0)
            return equal == (op == .equal)
        default:
            return op.holds(ValueOrdering.bytesOrder(value, constant))
        }
    }

    private static func run<T: Comparable>(_ values: [T], _ constant: T, _ op: ComparisonOperator, _ validity: Bitmap?) -> Column {
        var result = [Bool](repeating: false, count: values.count)
        result.withUnsafeMutableBufferPointer { result in
            values.withUnsafeBufferPointer { values in
                switch op {
                case .equal: for index in 0 ..< values.count { result[index] = values[index] == constant }
                case .notEqual: for index in 0 ..< values.count { result[index] = values[index] != constant }
                case .less: for index in 0 ..< values.count { result[index] = values[index] < constant }
                case .lessOrEqual: for index in 0 ..< values.count { result[index] = values[index] <= constant }
                case .greater: for index in 0 ..< values.count { result[index] = values[index] > constant }
                case .greaterOrEqual: for index in 0 ..< values.count { result[index] = values[index] >= constant }
                }
            }
        }
        return Column(type: .boolean, storage: .bool(result), validity: validity)
    }
}
