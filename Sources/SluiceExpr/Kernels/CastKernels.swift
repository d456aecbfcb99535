import SluiceCore

/// Conversions between types, vectorized where the layouts allow and through the Postgres text
/// forms otherwise.
package enum CastKernels {
    /// Whether a value of `source` can be cast to `target` (explicitly).
    package static func canCast(from source: DataType, to target: DataType) -> Bool {
        if source == target || source == .unknown || target == .varchar || source == .varchar { return true }
        switch (source, target) {
        case (let a, let b) where a.isNumeric && b.isNumeric: return true
        case (.boolean, .int32), (.int32, .boolean), (.int64, .boolean), (.boolean, .int64): return true
        case (.date, .timestamp), (.date, .timestamptz), (.timestamp, .date), (.timestamptz, .date),
            (.timestamp, .timestamptz), (.timestamptz, .timestamp), (.timestamp, .time), (.timestamptz, .time),
            (.time, .interval), (.interval, .time):
            return true
        case (.jsonb, _), (_, .jsonb): return source == .varchar || target == .varchar || source == target
        case (.decimal, .decimal): return true
        case (.structure(let a), .structure(let b)): return a.count == b.count
        case (.list(let a), .list(let b)): return canCast(from: a, to: b)
        default: return false
        }
    }

    /// Converts every row of `column` to `type`.
    package static func cast(_ column: Column, to type: DataType, context: EvaluationContext) throws(SluiceError) -> Column {
        let source = column.type
        if source == type { return column }
        // numeric(p,s): convert to numeric first, then round to the scale and check the precision.
        if case .decimal(let precision?, let scale) = type {
            let unconstrained = try cast(column, to: .numeric, context: context)
            return try Kernels.unary(unconstrained, resultType: type) { (value: Decimal) throws(SluiceError) -> Decimal in
                try value.coerced(precision: precision, scale: scale ?? 0)
            }
        }
        switch (source, type) {
        case (.decimal, .decimal):
            return column.retyped(as: type)
        case (.decimal, .int16), (.decimal, .int32), (.decimal, .int64):
            return try Kernels.buildValues(rowCount: column.count, type: type) { (rowIndex: Int) throws(SluiceError) -> Value in
                guard case .decimal(let value) = column.value(at: rowIndex) else { return .null }
                let rounded = try value.rounded(scale: 0, rule: .halfAwayFromZero)
                switch type {
                case .int16: return .int16(try rounded.int16Value())
                case .int32: return .int32(try rounded.int32Value())
                default: return .int64(try rounded.int64Value())
                }
            }
        case (.decimal, .float64):
            return try Kernels.unary(column, resultType: type) { (value: Decimal) in value.doubleValue }
        case (.decimal, .float32):
            return try Kernels.unary(column, resultType: type) { (value: Decimal) in value.floatValue }
        case (.float64, .decimal):
            return try Kernels.unary(column, resultType: type) { (value: Double) throws(SluiceError) -> Decimal in try Decimal(value) }
        case (.float32, .decimal):
            return try Kernels.unary(column, resultType: type) { (value: Float) throws(SluiceError) -> Decimal in try Decimal(value) }
        case (.boolean, .varchar):
            // The boolean cast to text spells the words out, unlike its output form t/f.
            return try Kernels.buildBytes(rowCount: column.count) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                guard case .bool(let value) = column.value(at: rowIndex) else { return false }
                out += (value ? "true" : "false").utf8
                return true
            }
        case (.structure(let sourceFields), .structure(let targetFields)) where sourceFields.count == targetFields.count:
            guard case .structure(let children, let count) = column.storage else { throw SluiceError.internalError("struct column without children") }
            var cast: [Column] = []
            for (child, field) in zip(children, targetFields) { cast.append(try self.cast(child, to: field.type, context: context)) }
            return Column(type: type, storage: .structure(cast, count: count), validity: column.validity)
        case (.int16, .int32): return try Kernels.unary(column, resultType: type) { (v: Int16) in Int32(v) }
        case (.int16, .int64): return try Kernels.unary(column, resultType: type) { (v: Int16) in Int64(v) }
        case (.int32, .int64): return try Kernels.unary(column, resultType: type) { (v: Int32) in Int64(v) }
        case (.int32, .int16): return try narrow(column, Int32.self, Int16.self, type)
        case (.int64, .int16): return try narrow(column, Int64.self, Int16.self, type)
        case (.int64, .int32): return try narrow(column, Int64.self, Int32.self, type)
        case (.int16, .float64): return try Kernels.unary(column, resultType: type) { (v: Int16) in Double(v) }
        case (.int32, .float64): return try Kernels.unary(column, resultType: type) { (v: Int32) in Double(v) }
        case (.int64, .float64): return try Kernels.unary(column, resultType: type) { (v: Int64) in Double(v) }
        case (.int16, .float32): return try Kernels.unary(column, resultType: type) { (v: Int16) in Float(v) }
        case (.int32, .float32): return try Kernels.unary(column, resultType: type) { (v: Int32) in Float(v) }
        case (.int64, .float32): return try Kernels.unary(column, resultType: type) { (v: Int64) in Float(v) }
        case (.float32, .float64): return try Kernels.unary(column, resultType: type) { (v: Float) in Double(v) }
        case (.float64, .float32):
            return try Kernels.unary(column, resultType: type) { (v: Double) throws(SluiceError) -> Float in
                let result = Float(v)
                if result.isInfinite && v.isFinite { throw SluiceError(.numericValueOutOfRange, "value out of range: overflow") }
                return result
            }
        case (.float64, .int16): return try floatToInteger(column, Double.self, Int16.self, type)
        case (.float64, .int32): return try floatToInteger(column, Double.self, Int32.self, type)
        case (.float64, .int64): return try floatToInteger(column, Double.self, Int64.self, type)
        case (.float32, .int16): return try floatToInteger(column, Float.self, Int16.self, type)
        case (.float32, .int32): return try floatToInteger(column, Float.self, Int32.self, type)
        case (.float32, .int64): return try floatToInteger(column, Float.self, Int64.self, type)
        case (.int16, .decimal): return try Kernels.unary(column, resultType: type) { (v: Int16) in Decimal(Int64(v)) }
        case (.int32, .decimal): return try Kernels.unary(column, resultType: type) { (v: Int32) in Decimal(Int64(v)) }
        case (.int64, .decimal): return try Kernels.unary(column, resultType: type) { (v: Int64) in Decimal(v) }
        case (.boolean, .int32): return try Kernels.unary(column, resultType: type) { (v: Bool) in Int32(v ? 1 : 0) }
        case (.boolean, .int64): return try Kernels.unary(column, resultType: type) { (v: Bool) in Int64(v ? 1 : 0) }
        case (.int32, .boolean): return try Kernels.unary(column, resultType: type) { (v: Int32) in v != 0 }
        case (.int64, .boolean): return try Kernels.unary(column, resultType: type) { (v: Int64) in v != 0 }
        // A timestamptz is an instant; as a date, time or timestamp it is read on the session
        // zone's clocks, and those become an instant in that zone.
        case (.date, .timestamp):
            return try Kernels.unary(column, resultType: type) { (days: Int32) throws(SluiceError) -> Int64 in
                try TimestampArithmetic.timestamp(fromDate: days)
            }
        case (.date, .timestamptz):
            let zone = context.zone
            return try Kernels.unary(column, resultType: type) { (days: Int32) throws(SluiceError) -> Int64 in
                zone.utcMicros(fromLocal: try TimestampArithmetic.timestamp(fromDate: days))
            }
        case (.timestamp, .date), (.timestamptz, .date):
            let zone = source == .timestamptz ? context.zone : .utc
            return try Kernels.unary(column, resultType: type) { (micros: Int64) in
                Int32(floorDivide(zone.localMicros(fromUTC: micros), 86_400_000_000))
            }
        case (.timestamp, .timestamptz):
            let zone = context.zone
            return try Kernels.unary(column, resultType: type) { (micros: Int64) in zone.utcMicros(fromLocal: micros) }
        case (.timestamptz, .timestamp):
            let zone = context.zone
            return try Kernels.unary(column, resultType: type) { (micros: Int64) in zone.localMicros(fromUTC: micros) }
        case (.timestamp, .time), (.timestamptz, .time):
            let zone = source == .timestamptz ? context.zone : .utc
            return try Kernels.unary(column, resultType: type) { (micros: Int64) in
                let local = zone.localMicros(fromUTC: micros)
                return local - floorDivide(local, 86_400_000_000) * 86_400_000_000
            }
        case (.varchar, .varchar), (.jsonb, .varchar), (.bytea, .varchar) where source != .bytea:
            return column.retyped(as: type)
        case (_, .varchar):
            let zone = context.zone
            return try Kernels.buildBytes(rowCount: column.count) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                if column.isNull(rowIndex) { return false }
                column.appendText(at: rowIndex, to: &out, zone: zone)
                return true
            }
        case (.unknown, _) where column.nullCount == column.count:
            return Column(type: type, repeating: .null, count: column.count)
        default:
            // Through the text form: exact for every pair Postgres allows, if not the fastest.
            let zone = context.zone
            return try Kernels.buildValues(rowCount: column.count, type: type) { (rowIndex: Int) throws(SluiceError) -> Value in
                if column.isNull(rowIndex) { return .null }
                var text: [UInt8] = []
                column.appendText(at: rowIndex, to: &text, zone: zone)
                let value = try Value(parsingText: String(decoding: text, as: UTF8.self), as: type, zone: zone)
                return value
            }
        }
    }

    private static func narrow<A: FixedWidthInteger & PrimitiveElement, B: FixedWidthInteger & PrimitiveElement>(
        _ column: Column, _: A.Type, _: B.Type, _ type: DataType
    ) throws(SluiceError) -> Column {
        try Kernels.unary(column, resultType: type) { (value: A) throws(SluiceError) -> B in
            guard let result = B(exactly: value) else {
                throw SluiceError(.numericValueOutOfRange, "\(type.sqlName) out of range")
            }
            return result
        }
    }

    private static func floatToInteger<A: BinaryFloatingPoint & PrimitiveElement, B: FixedWidthInteger & PrimitiveElement>(
        _ column: Column, _: A.Type, _: B.Type, _ type: DataType
    ) throws(SluiceError) -> Column {
        try Kernels.unary(column, resultType: type) { (value: A) throws(SluiceError) -> B in
            // Postgres rounds half to even (rint) before range checking.
            let rounded = value.rounded(.toNearestOrEven)
            guard rounded.isFinite, let result = B(exactly: rounded) else {
                throw SluiceError(.numericValueOutOfRange, "\(type.sqlName) out of range")
            }
            return result
        }
    }

    static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
