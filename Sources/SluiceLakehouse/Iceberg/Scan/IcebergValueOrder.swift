import SluiceCore

/// Orders a bound against a literal for pruning, across the value kinds that a column, its
/// bounds after type promotion, and a caller's literal may have.
///
/// Only orders that are certain are returned: integers of any width compare exactly, integers
/// with decimals exactly, integers with floats only within ±2^53 (where both are exact), dates
/// with timestamps at midnight; strings by UTF-8 bytes and binaries by unsigned bytes, as
/// Iceberg orders them. Anything else is nil: "unknown", which never prunes.
enum IcebergValueOrder {
    /// -1, 0 or 1 as `lhs` sorts before, with or after `rhs`; nil when they do not compare.
    static func compare(_ lhs: Value, _ rhs: Value) -> Int? {
        switch (lhs, rhs) {
        case (.bool(let left), .bool(let right)):
            return order(left ? 1 : 0, right ? 1 : 0)
        case (.string(let left), .string(let right)):
            return bytesOrder(left.utf8, right.utf8)
        case (.bytea(let left), .bytea(let right)):
            return bytesOrder(left, right)
        case (.decimal(let left), .decimal(let right)):
            guard left.isFinite, right.isFinite else { return nil }
            return Decimal.compare(left, right)
        case (.float32(let left), .float32(let right)):
            return floatOrder(Double(left), Double(right))
        case (.float32(let left), .float64(let right)):
            return floatOrder(Double(left), right)
        case (.float64(let left), .float32(let right)):
            return floatOrder(left, Double(right))
        case (.float64(let left), .float64(let right)):
            return floatOrder(left, right)
        case (.time(let left), .time(let right)):
            return order(left, right)
        default:
            break
        }
        if let left = lhs.integerValue, let right = rhs.integerValue { return order(left, right) }
        if let left = micros(lhs), let right = micros(rhs) { return order(left, right) }
        if let left = exactDecimal(lhs), let right = exactDecimal(rhs) { return Decimal.compare(left, right) }
        if let left = exactDouble(lhs), let right = exactDouble(rhs) { return floatOrder(left, right) }
        return nil
    }

    static func isNaN(_ value: Value) -> Bool {
        switch value {
        case .float32(let number): number.isNaN
        case .float64(let number): number.isNaN
        case .decimal(let number): number.isNaN
        default: false
        }
    }

    static func isFloatingPoint(_ value: Value) -> Bool {
        switch value {
        case .float32, .float64: true
        default: false
        }
    }

    private static func order<T: Comparable>(_ lhs: T, _ rhs: T) -> Int {
        lhs < rhs ? -1 : lhs == rhs ? 0 : 1
    }

    private static func floatOrder(_ lhs: Double, _ rhs: Double) -> Int? {
        guard !lhs.isNaN, !rhs.isNaN else { return nil }
        return order(lhs, rhs)
    }

    private static func bytesOrder<Left: Sequence<UInt8>, Right: Sequence<UInt8>>(_ lhs: Left, _ rhs: Right) -> Int {
        var right = rhs.makeIterator()
        for leftByte in lhs {
            guard let rightByte = right.next() else { return 1 }
            if leftByte != rightByte { return leftByte < rightByte ? -1 : 1 }
        }
        return right.next() == nil ? 0 : -1
    }

    /// Dates, timestamps and timestamps with time zone as microseconds since the epoch.
    private static func micros(_ value: Value) -> Int64? {
        switch value {
        case .date(let days):
            // Dates beyond about ±292,000 years have no microsecond timestamp.
            let (result, overflow) = Int64(days).multipliedReportingOverflow(by: TemporalUnits.microsecondsPerDay)
            return overflow ? nil : result
        case .timestamp(let micros), .timestamptz(let micros): return micros
        default: return nil
        }
    }

    private static func exactDecimal(_ value: Value) -> Decimal? {
        switch value {
        case .decimal(let decimal): decimal.isFinite ? decimal : nil
        default: value.integerValue.map { Decimal($0) }
        }
    }

    /// Floats, and integers small enough that a double holds them exactly.
    private static func exactDouble(_ value: Value) -> Double? {
        switch value {
        case .float32(let number): return Double(number)
        case .float64(let number): return number
        default:
            guard let integer = value.integerValue, integer.magnitude <= 1 << 53 else { return nil }
            return Double(integer)
        }
    }
}
