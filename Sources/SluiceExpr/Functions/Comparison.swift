#if canImport(Glibc)
import Glibc
#endif
import SluiceCore

/// The six comparison operators and `IS [NOT] DISTINCT FROM`.
package enum ComparisonOperator: String, Sendable, CaseIterable {
    case equal = "="
    case notEqual = "<>"
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="

    package func holds(_ order: Int) -> Bool {
        switch self {
        case .equal: order == 0
        case .notEqual: order != 0
        case .less: order < 0
        case .lessOrEqual: order <= 0
        case .greater: order > 0
        case .greaterOrEqual: order >= 0
        }
    }

    /// The operator with its operands swapped (`a < b` is `b > a`).
    package var commuted: ComparisonOperator {
        switch self {
        case .equal, .notEqual: self
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        }
    }
}

/// Total orders over the values of one column type, as SQL compares them.
package enum ValueOrdering {
    /// -1, 0 or 1 comparing row `lhsRow` of `lhs` with row `rhsRow` of `rhs` (both not null,
    /// both of the same physical layout).
    package static func compare(_ lhs: Column, _ lhsRow: Int, _ rhs: Column, _ rhsRow: Int) -> Int {
        switch (lhs.storage, rhs.storage) {
        case (.bool(let a), .bool(let b)): return order(a[lhsRow] ? 1 : 0, b[rhsRow] ? 1 : 0)
        case (.int16(let a), .int16(let b)): return order(a[lhsRow], b[rhsRow])
        case (.int32(let a), .int32(let b)): return order(a[lhsRow], b[rhsRow])
        case (.int64(let a), .int64(let b)): return order(a[lhsRow], b[rhsRow])
        case (.float32(let a), .float32(let b)): return floatOrder(Double(a[lhsRow]), Double(b[rhsRow]))
        case (.float64(let a), .float64(let b)): return floatOrder(a[lhsRow], b[rhsRow])
        case (.decimal(let a), .decimal(let b)): return Decimal.compare(a[lhsRow], b[rhsRow])
        case (.interval(let a), .interval(let b)): return intervalOrder(a[lhsRow], b[rhsRow])
        case (.bytes(let a), .bytes(let b)):
            return a.withBytes(at: lhsRow) { left in b.withBytes(at: rhsRow) { right in bytesOrder(left, right) } }
        case (.structure(let a, _), .structure(let b, _)):
            for (left, right) in zip(a, b) {
                let leftNull = left.isNull(lhsRow)
                let rightNull = right.isNull(rhsRow)
                if leftNull || rightNull {
                    if leftNull != rightNull { return leftNull ? 1 : -1 }
                    continue
                }
                let result = compare(left, lhsRow, right, rhsRow)
                if result != 0 { return result }
            }
            return 0
        default:
            let left = lhs.value(at: lhsRow).textForm
            let right = rhs.value(at: rhsRow).textForm
            return left < right ? -1 : (left == right ? 0 : 1)
        }
    }

    /// Whether row `aRow` of `a` and row `bRow` of `b` hold equal values in `columns`, NULLs
    /// equal to NULLs (peers of a window's order, rows of one partition, ties of a ranking).
    package static func equalRows(_ a: Chunk, _ aRow: Int, _ b: Chunk, _ bRow: Int, columns: [Int]) -> Bool {
        for column in columns {
            let left = a.columns[column]
            let right = b.columns[column]
            switch (left.isNull(aRow), right.isNull(bRow)) {
            case (true, true): continue
            case (false, false): if compare(left, aRow, right, bRow) != 0 { return false }
            default: return false
            }
        }
        return true
    }

    package static func order<T: Comparable>(_ a: T, _ b: T) -> Int {
        a < b ? -1 : (a == b ? 0 : 1)
    }

    /// -1, 0 or 1 comparing two non-null scalar values of the same type (for the edges and the
    /// generic aggregate path; columns use the overload above).
    package static func compare(_ a: Value, _ b: Value) -> Int {
        switch (a, b) {
        case (.bool(let x), .bool(let y)): order(x ? 1 : 0, y ? 1 : 0)
        case (.int16(let x), .int16(let y)): order(x, y)
        case (.int32(let x), .int32(let y)), (.date(let x), .date(let y)): order(x, y)
        case (.int64(let x), .int64(let y)), (.time(let x), .time(let y)), (.timestamp(let x), .timestamp(let y)),
            (.timestamptz(let x), .timestamptz(let y)):
            order(x, y)
        case (.float32(let x), .float32(let y)): floatOrder(Double(x), Double(y))
        case (.float64(let x), .float64(let y)): floatOrder(x, y)
        case (.decimal(let x), .decimal(let y)): Decimal.compare(x, y)
        case (.interval(let x), .interval(let y)): intervalOrder(x, y)
        case (.string(let x), .string(let y)): x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : (x == y ? 0 : 1)
        default: a.textForm.utf8.lexicographicallyPrecedes(b.textForm.utf8) ? -1 : (a == b ? 0 : 1)
        }
    }

    /// Postgres orders NaN above every other float and equal to itself.
    package static func floatOrder(_ a: Double, _ b: Double) -> Int {
        if a.isNaN || b.isNaN { return a.isNaN ? (b.isNaN ? 0 : 1) : -1 }
        return a < b ? -1 : (a == b ? 0 : 1)
    }

    /// Postgres compares intervals as if a month had 30 days and a day 24 hours.
    package static func intervalOrder(_ a: Interval, _ b: Interval) -> Int {
        order(intervalKey(a), intervalKey(b))
    }

    package static func intervalKey(_ value: Interval) -> Int128 {
        value.comparableMicroseconds
    }

    /// Byte-wise order (the "C" collation).
    package static func bytesOrder(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let common = min(a.count, b.count)
        if common > 0 {
            let difference = memcmp(a.baseAddress!, b.baseAddress!, common)
            if difference != 0 { return difference < 0 ? -1 : 1 }
        }
        return order(a.count, b.count)
    }
}

extension ScalarFunction {
    /// `lhs op rhs` for two operands of type `type`; null if either is null.
    package static func comparison(_ op: ComparisonOperator, _ type: DataType) -> ScalarFunction {
        ScalarFunction(name: op.rawValue, argumentTypes: [type, type], resultType: .boolean) { (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            compareColumns(arguments[0], arguments[1], op)
        }.withOrigin(.comparison(op, type))
    }

    /// `lhs IS [NOT] DISTINCT FROM rhs`: like `<>`/`=` but nulls compare as equal values.
    package static func distinctFrom(_ type: DataType, negated: Bool) -> ScalarFunction {
        ScalarFunction(
            name: negated ? "is_not_distinct_from" : "is_distinct_from", argumentTypes: [type, type],
            resultType: .boolean
        ) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let (lhs, rhs) = (arguments[0], arguments[1])
            var values = [Bool](repeating: false, count: rowCount)
            for rowIndex in 0 ..< rowCount {
                let (leftNull, rightNull) = (lhs.isNull(rowIndex), rhs.isNull(rowIndex))
                let distinct: Bool
                if leftNull || rightNull {
                    distinct = leftNull != rightNull
                } else {
                    distinct = ValueOrdering.compare(lhs, rowIndex, rhs, rowIndex) != 0
                }
                values[rowIndex] = distinct != negated
            }
            return Column(type: .boolean, storage: .bool(values))
        }.withOrigin(.distinctFrom(type, negated: negated))
    }

    static func compareColumns(_ lhs: Column, _ rhs: Column, _ op: ComparisonOperator) -> Column {
        let validity = Kernels.combinedValidity([lhs, rhs])
        let rowCount = lhs.count
        var result = [Bool](repeating: false, count: rowCount)
        switch (lhs.storage, rhs.storage) {
        case (.int64(let a), .int64(let b)):
            for rowIndex in 0 ..< rowCount { result[rowIndex] = op.holds(ValueOrdering.order(a[rowIndex], b[rowIndex])) }
        case (.int32(let a), .int32(let b)):
            for rowIndex in 0 ..< rowCount { result[rowIndex] = op.holds(ValueOrdering.order(a[rowIndex], b[rowIndex])) }
        case (.int16(let a), .int16(let b)):
            for rowIndex in 0 ..< rowCount { result[rowIndex] = op.holds(ValueOrdering.order(a[rowIndex], b[rowIndex])) }
        case (.float64(let a), .float64(let b)):
            for rowIndex in 0 ..< rowCount { result[rowIndex] = op.holds(ValueOrdering.floatOrder(a[rowIndex], b[rowIndex])) }
        case (.decimal(let a), .decimal(let b)):
            for rowIndex in 0 ..< rowCount where validity?[rowIndex] ?? true { result[rowIndex] = op.holds(Decimal.compare(a[rowIndex], b[rowIndex])) }
        default:
            for rowIndex in 0 ..< rowCount where validity?[rowIndex] ?? true {
                result[rowIndex] = op.holds(ValueOrdering.compare(lhs, rowIndex, rhs, rowIndex))
            }
        }
        return Column(type: .boolean, storage: .bool(result), validity: validity)
    }
}
