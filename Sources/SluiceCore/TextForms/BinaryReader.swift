/// Reads the Postgres binary forms written by ``Value/appendBinary(to:as:)``.
struct BinaryReader {
    var bytes: ArraySlice<UInt8>
    let type: DataType

    var formatError: SluiceError {
        SluiceError(.invalidParameterValue, "incorrect binary data format for type \(type.sqlName)")
    }

    mutating func read<T: FixedWidthInteger>(_: T.Type) throws(SluiceError) -> T {
        let size = MemoryLayout<T>.size
        guard bytes.count >= size else { throw formatError }
        let value = bytes.prefix(size).reduce(T.zero) { ($0 << 8) | T(truncatingIfNeeded: $1) }
        bytes.removeFirst(size)
        return value
    }

    mutating func readBytes(_ count: Int) throws(SluiceError) -> [UInt8] {
        guard count >= 0, bytes.count >= count else { throw formatError }
        let result = Array(bytes.prefix(count))
        bytes.removeFirst(count)
        return result
    }

    /// Reads one value of `type` that spans the next `length` bytes.
    mutating func readValue(as type: DataType, length: Int) throws(SluiceError) -> Value {
        switch type {
        case .boolean: return .bool(try read(UInt8.self) != 0)
        case .int16: return .int16(try read(Int16.self))
        case .int32: return .int32(try read(Int32.self))
        case .int64: return .int64(try read(Int64.self))
        case .float32: return .float32(Float(bitPattern: try read(UInt32.self)))
        case .float64: return .float64(Double(bitPattern: try read(UInt64.self)))
        case .varchar, .unknown:
            let raw = try readBytes(length)
            guard let text = String(validating: raw, as: UTF8.self) else {
                throw SluiceError(.characterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\"")
            }
            return .string(text)
        case .bytea: return .bytea(try readBytes(length))
        case .jsonb:
            guard try read(UInt8.self) == 1 else {
                throw SluiceError(.invalidParameterValue, "unsupported jsonb version number")
            }
            let raw = try readBytes(length - 1)
            return .jsonb(try JSONText.normalize(String(decoding: raw, as: UTF8.self)))
        case .date:
            let days = try read(Int32.self)
            if days == Int32.max || days == Int32.min { return .date(days) }
            let (shifted, overflow) = days.addingReportingOverflow(TemporalUnits.postgresEpochDays)
            guard !overflow, Int(shifted) >= TemporalUnits.minimumDate, Int(shifted) < TemporalUnits.dateEnd else {
                throw SluiceError(.datetimeFieldOverflow, "date out of range")
            }
            return .date(shifted)
        case .time:
            let value = try read(Int64.self)
            guard value >= 0, value <= TemporalUnits.microsecondsPerDay else {
                throw SluiceError(.datetimeFieldOverflow, "time out of range")
            }
            return .time(value)
        case .timestamp, .timestamptz:
            var value = try read(Int64.self)
            if value != Int64.max, value != Int64.min {
                let (shifted, overflow) = value.addingReportingOverflow(TemporalUnits.postgresEpochMicroseconds)
                guard !overflow, shifted >= TemporalUnits.minimumTimestamp, shifted < TemporalUnits.timestampEnd else {
                    throw SluiceError(.datetimeFieldOverflow, "timestamp out of range")
                }
                value = shifted
            }
            return type == .timestamp ? .timestamp(value) : .timestamptz(value)
        case .interval:
            let microseconds = try read(Int64.self)
            let days = try read(Int32.self)
            let months = try read(Int32.self)
            return .interval(Interval(months: months, days: days, microseconds: microseconds))
        case .decimal(let precision, let scale):
            var value = try readNumeric()
            if let precision { value = try value.coerced(precision: precision, scale: scale ?? 0) }
            return .decimal(value)
        case .structure(let fields):
            let count = try read(Int32.self)
            guard count == fields.count else {
                throw SluiceError(.datatypeMismatch, "wrong number of columns: \(count), expected \(fields.count)")
            }
            var values: [Value] = []
            for field in fields {
                let oid = try read(Int32.self)
                guard oid == field.type.oid || DataType(oid: oid) == field.type else {
                    throw SluiceError(.datatypeMismatch, "wrong data type: \(oid), expected \(field.type.oid)")
                }
                values.append(try readLengthPrefixed(as: field.type))
            }
            return .structure(values)
        case .list(let element):
            return try readArray(element: element)
        }
    }

    mutating func readLengthPrefixed(as type: DataType) throws(SluiceError) -> Value {
        let length = try read(Int32.self)
        if length == -1 { return .null }
        guard length >= 0, bytes.count >= Int(length) else { throw formatError }
        var inner = BinaryReader(bytes: bytes.prefix(Int(length)), type: type)
        let value = try inner.readValue(as: type, length: Int(length))
        guard inner.bytes.isEmpty else { throw inner.formatError }
        bytes.removeFirst(Int(length))
        return value
    }

    mutating func readArray(element: DataType) throws(SluiceError) -> Value {
        let dimensionCount = try read(Int32.self)
        _ = try read(Int32.self)  // has-null flag
        let oid = try read(Int32.self)
        var scalarType = element
        // Extra dimensions become nested lists whatever the declared element type.
        for _ in 1 ..< max(Int(dimensionCount), 1) {
            if case .list(let inner) = scalarType { scalarType = inner }
        }
        guard oid == scalarType.oid || DataType(oid: oid) == scalarType else {
            throw SluiceError(.datatypeMismatch, "binary data has array element type \(oid) instead of expected \(scalarType.oid)")
        }
        guard dimensionCount >= 0, dimensionCount <= 6 else {
            throw SluiceError(.invalidParameterValue, "invalid number of dimensions: \(dimensionCount)")
        }
        var dimensions: [Int] = []
        for _ in 0 ..< dimensionCount {
            let size = try read(Int32.self)
            _ = try read(Int32.self)  // lower bound
            guard size >= 0 else { throw formatError }
            dimensions.append(Int(size))
        }
        if dimensions.isEmpty { return .list([]) }
        func readLevel(_ depth: Int) throws(SluiceError) -> [Value] {
            var values: [Value] = []
            for _ in 0 ..< dimensions[depth] {
                if depth + 1 < dimensions.count {
                    values.append(.list(try readLevel(depth + 1)))
                } else {
                    values.append(try readLengthPrefixed(as: scalarType))
                }
            }
            return values
        }
        return .list(try readLevel(0))
    }

    /// `numeric_recv`: ndigits, weight, sign, dscale, then base-10000 digits.
    mutating func readNumeric() throws(SluiceError) -> Decimal {
        let digitCount = Int(try read(Int16.self))
        let weight = Int(try read(Int16.self))
        let sign = try read(UInt16.self)
        let displayScale = Int(try read(Int16.self))
        switch sign {
        case 0x0000, 0x4000: break
        case 0xC000: return .nan
        case 0xD000: return .infinity
        case 0xF000: return .negativeInfinity
        default: throw SluiceError(.invalidParameterValue, "invalid sign in external \"numeric\" value")
        }
        guard digitCount >= 0, displayScale >= 0 else { throw formatError }
        // Spell the base-10000 digits out in decimal, so the zeros that pad the last group
        // do not count against the 38-digit limit.
        var decimalDigits: [UInt8] = []
        for _ in 0 ..< digitCount {
            let digit = try read(Int16.self)
            guard (0 ..< 10000).contains(digit) else {
                throw SluiceError(.invalidParameterValue, "invalid digit in external \"numeric\" value")
            }
            decimalDigits.append(contentsOf: [UInt8(digit / 1000), UInt8(digit / 100 % 10), UInt8(digit / 10 % 10), UInt8(digit % 10)])
        }
        // value = digits × 10^exponent
        var exponent = 4 * (weight - digitCount + 1)
        while let last = decimalDigits.last, last == 0 {
            decimalDigits.removeLast()
            exponent += 1
        }
        let significant = decimalDigits.drop(while: { $0 == 0 })
        guard significant.count <= Decimal.maximumDigits else { throw Decimal.overflowError }
        var mantissa: Int128 = 0
        for digit in significant { mantissa = mantissa * 10 + Int128(digit) }
        var value: Decimal
        if mantissa == 0 {
            value = Decimal(mantissa: 0, scale: 0)
        } else if exponent >= 0 {
            value = try Decimal(checkedMantissa: mantissa, scale: 0)
            guard exponent <= Decimal.maximumDigits else { throw Decimal.overflowError }
            value = try Decimal.multiplying(value, Decimal(mantissa: Decimal.powerOfTen(exponent), scale: 0))
        } else {
            value = Decimal(mantissa: mantissa, scale: Int16(clamping: -exponent)).normalized
        }
        if sign == 0x4000 { value = value.negated }
        return try value.rounded(scale: displayScale)
    }
}

extension Decimal {
    /// The base-10000 digits of the magnitude, most significant first, and the weight of the
    /// first (Postgres's `NumericVar`), with leading and trailing zero digits removed.
    package var baseTenThousandDigits: (digits: [Int16], weight: Int) {
        guard mantissa != 0 else { return ([], 0) }
        var decimalDigits = Array(String(mantissa.magnitude).utf8).map { Int16($0 - UInt8(ascii: "0")) }
        let scale = Int(scale)
        // Pad so the point falls on a group boundary with whole groups on both sides.
        let fractionPad = (4 - scale % 4) % 4
        decimalDigits.append(contentsOf: repeatElement(0, count: fractionPad))
        let integerCount = decimalDigits.count - scale - fractionPad
        let leadingPad = integerCount >= 0 ? (4 - integerCount % 4) % 4 : -integerCount
        decimalDigits.insert(contentsOf: repeatElement(0, count: leadingPad), at: 0)
        var groups: [Int16] = []
        var index = 0
        while index < decimalDigits.count {
            groups.append(decimalDigits[index] * 1000 + decimalDigits[index + 1] * 100 + decimalDigits[index + 2] * 10 + decimalDigits[index + 3])
            index += 4
        }
        var weight = (max(integerCount, 0) + (integerCount >= 0 ? leadingPad : 0)) / 4 - 1
        while let first = groups.first, first == 0 {
            groups.removeFirst()
            weight -= 1
        }
        while let last = groups.last, last == 0 { groups.removeLast() }
        return (groups, weight)
    }

    /// `numeric_send`.
    package func appendBinary(to out: inout [UInt8]) {
        if isSpecial {
            // No digits, weight 0, the special sign word, display scale 0.
            out.appendBigEndian(Int16(0))
            out.appendBigEndian(Int16(0))
            out.appendBigEndian(UInt16(isNaN ? 0xC000 : (mantissa < 0 ? 0xF000 : 0xD000)))
            out.appendBigEndian(Int16(0))
            return
        }
        let (digits, weight) = baseTenThousandDigits
        out.appendBigEndian(Int16(digits.count))
        out.appendBigEndian(Int16(weight))
        out.appendBigEndian(UInt16(mantissa < 0 ? 0x4000 : 0))
        out.appendBigEndian(Int16(scale))
        for digit in digits { out.appendBigEndian(digit) }
    }
}
