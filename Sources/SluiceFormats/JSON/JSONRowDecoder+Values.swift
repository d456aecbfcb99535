import SluiceCore

/// Scalars: one JSON value into one builder, by the column's type.
extension JSONRowDecoder {
    /// Decodes the value at the cursor into `builder` (exactly one row), or throws.
    /// `depth` is the nesting depth of the object or array holding the value.
    mutating func decodeValue(_ scanner: inout JSONScanner, plan planIndex: Int, into builder: inout ColumnBuilder, depth: Int) throws(JSONDecodeError) {
        let byte = scanner.peek
        if byte == UInt8(ascii: "n") {
            try scanner.expectLiteral("null")
            builder.appendNull()
            return
        }
        let plan = plans[planIndex]
        let isNumber = byte == UInt8(ascii: "-") || byte &- UInt8(ascii: "0") < 10
        switch plan.kind {
        case .boolean:
            if byte == UInt8(ascii: "t") {
                try scanner.expectLiteral("true")
                builder.append(bool: true)
            } else if byte == UInt8(ascii: "f") {
                try scanner.expectLiteral("false")
                builder.append(bool: false)
            } else {
                throw mismatch(scanner, plan: plan)
            }
        case .int16, .int32, .int64:
            let (low, high): (Int64, Int64) = switch plan.kind {
            case .int16: (Int64(Int16.min), Int64(Int16.max))
            case .int32: (Int64(Int32.min), Int64(Int32.max))
            default: (Int64.min, Int64.max)
            }
            let value: Int64
            if isNumber {
                value = try readInteger(&scanner, kind: plan.kind, low: low, high: high)
            } else if byte == UInt8(ascii: "\"") {
                let start = scanner.position
                let parsed = try withString(&scanner) { JSONNumbers.parseIntegerText($0) }
                guard let parsed else {
                    throw JSONDecodeError(.invalidValue, "\(scanner.excerpt(start ..< scanner.position)) is not a valid \(kindName(plan.kind))", at: start)
                }
                guard parsed >= low && parsed <= high else {
                    throw JSONDecodeError(.outOfRange, "\(scanner.excerpt(start ..< scanner.position)) is out of range for \(kindName(plan.kind))", at: start)
                }
                value = parsed
            } else {
                throw mismatch(scanner, plan: plan)
            }
            switch plan.kind {
            case .int16: builder.append(int16: Int16(truncatingIfNeeded: value))
            case .int32: builder.append(int32: Int32(truncatingIfNeeded: value))
            default: builder.append(int64: value)
            }
        case .float32, .float64:
            let start = scanner.position
            let value: Double?
            let single: Float?
            if isNumber {
                let literal = try scanner.readNumber()
                let bytes = UnsafeBufferPointer(start: scanner.base + literal.range.lowerBound, count: literal.range.count)
                if plan.kind == .float64 {
                    value = JSONNumbers.double(literal, text: bytes)
                    single = nil
                } else {
                    single = JSONNumbers.float(literal, text: bytes)
                    value = nil
                }
            } else if byte == UInt8(ascii: "\"") {
                if plan.kind == .float64 {
                    value = try withString(&scanner) { JSONNumbers.parseDoubleText($0) }
                    single = nil
                } else {
                    single = try withString(&scanner) { JSONNumbers.parseFloatText($0) }
                    value = nil
                }
                if value == nil && single == nil {
                    throw JSONDecodeError(.invalidValue, "\(scanner.excerpt(start ..< scanner.position)) is not a valid \(kindName(plan.kind))", at: start)
                }
            } else {
                throw mismatch(scanner, plan: plan)
            }
            if let value {
                // A finite literal that overflows to infinity is out of range (`1e400`).
                guard value.isFinite || byte == UInt8(ascii: "\"") else {
                    throw JSONDecodeError(.outOfRange, "\(scanner.excerpt(start ..< scanner.position)) is out of range for double precision", at: start)
                }
                builder.append(double: value)
            } else if let single {
                guard single.isFinite || byte == UInt8(ascii: "\"") else {
                    throw JSONDecodeError(.outOfRange, "\(scanner.excerpt(start ..< scanner.position)) is out of range for real", at: start)
                }
                builder.append(float: single)
            }
        case .decimal:
            try decodeDecimal(&scanner, plan: planIndex, isNumber: isNumber, into: &builder)
        case .varchar:
            try decodeText(&scanner, plan: plan, isNumber: isNumber, into: &builder)
        case .date, .time, .timestamp, .timestamptz:
            try decodeTemporal(&scanner, plan: plan, isNumber: isNumber, into: &builder)
        case .interval:
            guard byte == UInt8(ascii: "\"") else { throw mismatch(scanner, plan: plan) }
            let start = scanner.position
            let text = try withString(&scanner) { String(decoding: $0, as: UTF8.self) }
            do {
                builder.append(interval: try Interval(parsingText: text))
            } catch {
                throw JSONDecodeError(.invalidValue, error.message, at: start)
            }
        case .bytea:
            guard byte == UInt8(ascii: "\"") else { throw mismatch(scanner, plan: plan) }
            let start = scanner.position
            let text = try withString(&scanner) { String(decoding: $0, as: UTF8.self) }
            do {
                let bytes = try CompositeText.parseBytea(text)
                bytes.withUnsafeBytes { builder.append(bytes: $0) }
            } catch {
                throw JSONDecodeError(.invalidValue, error.message, at: start)
            }
        case .jsonb:
            let start = scanner.position
            try scanner.skipValue(depth: depth, depthLimit: maximumDepth, scratch: &scratch)
            let text = String(decoding: UnsafeBufferPointer(start: scanner.base + start, count: scanner.position - start), as: UTF8.self)
            do {
                var normalized = try JSONText.normalize(text)
                normalized.withUTF8 { builder.append(bytes: UnsafeRawBufferPointer($0)) }
            } catch {
                throw JSONDecodeError(.invalidValue, error.detail.map { "\(error.message): \($0)" } ?? error.message, at: start)
            }
        case .structure:
            try decodeStruct(&scanner, plan: plan, into: &builder, depth: depth)
        case .list:
            try decodeList(&scanner, plan: plan, into: &builder, depth: depth)
        case .unknown:
            throw mismatch(scanner, plan: plan)
        }
    }

    /// Reads the string at the cursor and hands its decoded bytes to `body`.
    @inline(__always)
    mutating func withString<R>(_ scanner: inout JSONScanner, _ body: (UnsafeBufferPointer<UInt8>) -> R) throws(JSONDecodeError) -> R {
        if let range = try scanner.readString(into: &scratch) {
            return body(UnsafeBufferPointer(start: scanner.base + range.lowerBound, count: range.count))
        }
        return scratch.withUnsafeBufferPointer(body)
    }

    /// An integer literal in `low ... high`; fractions and exponents are not integers.
    private func readInteger(_ scanner: inout JSONScanner, kind: ValueKind, low: Int64, high: Int64) throws(JSONDecodeError) -> Int64 {
        let literal = try scanner.readNumber()
        let range = literal.range
        guard !literal.hasFractionOrExponent else {
            throw JSONDecodeError(.typeMismatch, "\(scanner.excerpt(range)) is not an integer", at: range.lowerBound)
        }
        guard let value = JSONNumbers.integer(literal), value >= low, value <= high else {
            throw JSONDecodeError(.outOfRange, "\(scanner.excerpt(range)) is out of range for \(kindName(kind))", at: range.lowerBound)
        }
        return value
    }

    private mutating func decodeDecimal(_ scanner: inout JSONScanner, plan planIndex: Int, isNumber: Bool, into builder: inout ColumnBuilder) throws(JSONDecodeError) {
        let plan = plans[planIndex]
        let start = scanner.position
        var value: Decimal
        do {
            if isNumber {
                let literal = try scanner.readNumber()
                value = try JSONNumbers.decimal(UnsafeBufferPointer(start: scanner.base + literal.range.lowerBound, count: literal.range.count))
            } else if scanner.peek == UInt8(ascii: "\"") {
                let text = try withString(&scanner) { String(decoding: $0, as: UTF8.self) }
                value = try Decimal(parsingText: text)
            } else {
                throw mismatch(scanner, plan: plan)
            }
            if plan.precision >= 0 {
                value = try value.coerced(precision: Int(plan.precision), scale: Int(plan.scale))
            }
        } catch let error as JSONDecodeError {
            throw error
        } catch let error as SluiceError {
            let kind: JSONDecodeError.Kind = error.code == .numericValueOutOfRange ? .outOfRange : .invalidValue
            let text = scanner.excerpt(start ..< scanner.position)
            throw JSONDecodeError(kind, kind == .outOfRange ? "\(text) is out of range for \(typeNames[planIndex])" : "\(text) is not a valid numeric", at: start)
        } catch {
            throw JSONDecodeError(.invalidValue, "\(error)", at: start)
        }
        builder.append(decimal: value)
    }

    /// A `varchar`: a string, or a number or boolean as its text (RisingWave's
    /// `VarcharHandling::OnlyPrimaryTypes`).
    private mutating func decodeText(_ scanner: inout JSONScanner, plan: ValuePlan, isNumber: Bool, into builder: inout ColumnBuilder) throws(JSONDecodeError) {
        let byte = scanner.peek
        if byte == UInt8(ascii: "\"") {
            if let range = try scanner.readString(into: &scratch) {
                builder.append(bytes: UnsafeRawBufferPointer(start: scanner.base + range.lowerBound, count: range.count))
            } else {
                scratch.withUnsafeBytes { builder.append(bytes: $0) }
            }
        } else if isNumber {
            let literal = try scanner.readNumber()
            if !literal.hasFractionOrExponent {
                builder.append(bytes: UnsafeRawBufferPointer(start: scanner.base + literal.range.lowerBound, count: literal.range.count))
            } else {
                let text = UnsafeBufferPointer(start: scanner.base + literal.range.lowerBound, count: literal.range.count)
                let double = JSONNumbers.double(literal, text: text)
                guard double.isFinite else {
                    throw JSONDecodeError(.outOfRange, "\(scanner.excerpt(literal.range)) is out of range for double precision", at: literal.range.lowerBound)
                }
                var out = JSONNumbers.shortestText(double)
                out.withUnsafeMutableBytes { builder.append(bytes: UnsafeRawBufferPointer($0)) }
            }
        } else if byte == UInt8(ascii: "t") {
            try scanner.expectLiteral("true")
            ("true" as StaticString).withUTF8Buffer { builder.append(bytes: UnsafeRawBufferPointer($0)) }
        } else if byte == UInt8(ascii: "f") {
            try scanner.expectLiteral("false")
            ("false" as StaticString).withUTF8Buffer { builder.append(bytes: UnsafeRawBufferPointer($0)) }
        } else {
            throw mismatch(scanner, plan: plan)
        }
    }

    private mutating func decodeTemporal(_ scanner: inout JSONScanner, plan: ValuePlan, isNumber: Bool, into builder: inout ColumnBuilder) throws(JSONDecodeError) {
        let start = scanner.position
        if isNumber {
            let literal = try scanner.readNumber()
            guard !literal.hasFractionOrExponent else {
                throw JSONDecodeError(.typeMismatch, "\(scanner.excerpt(literal.range)) is not an integer, expected \(kindName(plan.kind))", at: start)
            }
            guard let integer = JSONNumbers.integer(literal) else {
                throw JSONDecodeError(.outOfRange, "\(scanner.excerpt(literal.range)) is out of range for \(kindName(plan.kind))", at: start)
            }
            switch plan.kind {
            case .date:
                // Days since 1970-01-01 (RisingWave's `Date::with_days_since_unix_epoch`).
                guard integer >= Int64(TemporalUnits.minimumDate), integer < Int64(TemporalUnits.dateEnd) else {
                    throw JSONDecodeError(.outOfRange, "\(integer) is out of range for date", at: start)
                }
                builder.append(int32: Int32(integer))
            case .time:
                // Microseconds since midnight (`TimeHandling::Micro`).
                guard integer >= 0, integer < TemporalUnits.microsecondsPerDay else {
                    throw JSONDecodeError(.outOfRange, "\(integer) is out of range for time", at: start)
                }
                builder.append(int64: integer)
            default:
                builder.append(int64: JSONTemporal.microseconds(fromEpochGuessingUnit: integer))
            }
            return
        }
        guard scanner.peek == UInt8(ascii: "\"") else { throw mismatch(scanner, plan: plan) }
        let kind = plan.kind
        let (fast, fallbackText) = try withString(&scanner) { bytes -> (Int64?, String?) in
            let parsed: Int64?
            switch kind {
            case .date: parsed = JSONTemporal.parseDate(bytes).map(Int64.init)
            case .time: parsed = JSONTemporal.parseTime(bytes)
            default:
                if let fields = JSONTemporal.parseTimestamp(bytes) {
                    if kind == .timestamptz, let offset = fields.zoneOffset {
                        parsed = fields.localMicroseconds - Int64(offset) * TemporalUnits.microsecondsPerSecond
                    } else {
                        parsed = fields.localMicroseconds
                    }
                } else {
                    parsed = nil
                }
            }
            // Other Postgres forms (`infinity`, BC, compact dates, leap seconds) go to the
            // general parser, which needs a String: a rare path.
            return (parsed, parsed == nil ? String(decoding: bytes, as: UTF8.self) : nil)
        }
        if let fast {
            if kind == .date { builder.append(int32: Int32(truncatingIfNeeded: fast)) } else { builder.append(int64: fast) }
            return
        }
        let decoded = fallbackText ?? ""
        do {
            switch kind {
            case .date: builder.append(int32: try TemporalText.parseDate(decoded))
            case .time: builder.append(int64: try TemporalText.parseTime(decoded))
            default: builder.append(int64: try TemporalText.parseTimestamp(decoded, withZone: kind == .timestamptz))
            }
        } catch {
            let errorKind: JSONDecodeError.Kind = error.code == .datetimeFieldOverflow || error.code == SQLState("22009") ? .outOfRange : .invalidValue
            throw JSONDecodeError(errorKind, errorKind == .outOfRange
                ? "\(scanner.excerpt(start ..< scanner.position)) is out of range for \(kindName(kind))"
                : "\(scanner.excerpt(start ..< scanner.position)) is not a valid \(kindName(kind))", at: start)
        }
    }
}
