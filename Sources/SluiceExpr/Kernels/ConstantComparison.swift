import Glibc
import SluiceCore

/// `column op constant` without building a column of the constant: the common shape of
/// filters (`v > 500000`), run as one tight loop for fixed-width types.
package enum ConstantComparison {
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
            guard let scale = DecimalKernels.uniformScale(values, column.validity), c.scale <= scale,
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
                            let start = Int(offsets[row])
                            let length = Int(offsets[row + 1]) - start
                            let value = UnsafeBufferPointer(rebasing: data[start ..< start + length])
                            switch op {
                            case .equal, .notEqual:
                                let equal = length == constant.count && (length == 0 || memcmp(value.baseAddress!, constant.baseAddress!, length) == 0)
                                result[row] = equal == (op == .equal)
                            default:
                                result[row] = op.holds(ValueOrdering.bytesOrder(value, constant))
                            }
                        }
                    }
                }
            }
        }
        return Column(type: .boolean, storage: .bool(result), validity: validity)
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
