import SluiceCore
import SluiceFormats

// The partition directory of a data file, as Java's `PartitionSpec.partitionToPath` writes it:
// `name=value` per field joined by `/`, each side through `URLEncoder.encode(_, "UTF-8")`,
// values in the transforms' human strings (`Transform.toHumanString`, `TransformUtil`).

extension IcebergPartitioner {
    /// The partition's directory name, `field=value/field2=value2`: dates `2024-01-02`, hours
    /// `2024-01-02-03`, months `2024-01`, years `2024`, timestamps ISO 8601 as Java's
    /// `LocalDateTime`/`OffsetDateTime` print them, binary as base64, null as `null`, then
    /// URL-escaped. Empty for a spec without fields.
    ///
    /// Engines read partition values from manifests, never from paths; the path only keeps a
    /// table's files browsable, so a value that does not fit its type prints as `null`.
    package func partitionPath(_ partition: [AvroValue]) -> String {
        var parts: [String] = []
        parts.reserveCapacity(fields.count)
        for (index, field) in fields.enumerated() {
            let value = index < partition.count ? partition[index] : .null
            let human = IcebergPartitionPath.humanString(value, transform: field.transform, type: field.resultType)
            parts.append(IcebergPartitionPath.urlEncoded(field.name) + "=" + IcebergPartitionPath.urlEncoded(human))
        }
        return parts.joined(separator: "/")
    }
}

/// Java's human strings of partition values and its URL encoding of them.
package enum IcebergPartitionPath {
    /// The human string of a partition value of result type `type` under `transform`.
    package static func humanString(_ value: AvroValue, transform: IcebergTransform, type: IcebergType) -> String {
        if case .void = transform { return "null" }
        switch (transform, value) {
        case (_, .null): return "null"
        case (.year, .int(let ordinal)): return padded(1970 + Int(ordinal), width: 4)
        case (.month, .int(let ordinal)):
            let (years, month) = floorDivMod(Int(ordinal), 12)
            return padded(1970 + years, width: 4) + "-" + padded(month + 1, width: 2)
        case (.hour, .int(let ordinal)):
            let (days, hour) = floorDivMod(Int(ordinal), 24)
            return humanDay(days) + "-" + padded(hour, width: 2)
        default: break
        }
        guard let sluiceValue = IcebergPartitionFilter.value(value, as: type) else { return "null" }
        switch (type, sluiceValue) {
        case (.date, .date(let days)): return humanDay(Int(days))
        case (.time, .time(let micros)): return humanTime(micros)
        case (.timestamp, .timestamp(let micros)): return humanTimestamp(micros)
        case (.timestamptz, .timestamptz(let micros)): return humanTimestamp(micros, zoneSuffix: "Z")
        case (.boolean, .bool(let flag)): return flag ? "true" : "false"
        case (.int, .int32(let integer)): return String(integer)
        case (.long, .int64(let integer)): return String(integer)
        case (.float, .float32(let number)): return javaFloatingString(Double(number), shortest: number.description)
        case (.double, .float64(let number)): return javaFloatingString(number, shortest: number.description)
        case (.string, .string(let text)): return text
        case (.uuid, .bytea(let bytes)): return uuidText(bytes)
        case (.binary, .bytea(let bytes)), (.fixed, .bytea(let bytes)): return Base64.encode(bytes)
        case (.decimal(_, let scale), .decimal(let decimal)): return javaBigDecimalString(unscaled: decimal.mantissa, scale: scale)
        default: return "null"
        }
    }

    /// `URLEncoder.encode(text, "UTF-8")` (``URLEncoding/javaEncoded(_:)``).
    package static func urlEncoded(_ text: String) -> String { URLEncoding.javaEncoded(text) }

    /// `yyyy-MM-dd` (`TransformUtil.humanDay`).
    static func humanDay(_ days: Int) -> String {
        let date = CivilDate(daysSinceUnixEpoch: days)
        return padded(date.year, width: 4) + "-" + padded(date.month, width: 2) + "-" + padded(date.day, width: 2)
    }

    /// `LocalTime.toString()`: `HH:mm`, then `:ss` unless seconds and fraction are zero, then
    /// the fraction in groups of three digits.
    static func humanTime(_ micros: Int64) -> String {
        let (minutes, microsOfMinute) = floorDivMod(Int(micros), 60_000_000)
        var text = padded(minutes / 60, width: 2) + ":" + padded(minutes % 60, width: 2)
        guard microsOfMinute != 0 else { return text }
        text += ":" + padded(microsOfMinute / 1_000_000, width: 2)
        let fraction = microsOfMinute % 1_000_000
        if fraction != 0 {
            text += fraction % 1000 == 0 ? "." + padded(fraction / 1000, width: 3) : "." + padded(fraction, width: 6)
        }
        return text
    }

    /// `LocalDateTime.toString()` (`OffsetDateTime` adds `Z` for UTC): `2024-01-02T03:04:05.123456`.
    static func humanTimestamp(_ micros: Int64, zoneSuffix: String = "") -> String {
        let (days, microsOfDay) = floorDivMod(Int(micros), 86_400_000_000)
        return javaLocalDate(days) + "T" + humanTime(Int64(microsOfDay)) + zoneSuffix
    }

    /// `LocalDate.toString()`: like `humanDay`, but with `+` before years past 9999 and four
    /// digits after the minus of a negative year.
    private static func javaLocalDate(_ days: Int) -> String {
        let date = CivilDate(daysSinceUnixEpoch: days)
        let year: String
        if date.year > 9999 {
            year = "+" + String(date.year)
        } else if date.year < 0 {
            year = "-" + padded(-date.year, width: 4)
        } else {
            year = padded(date.year, width: 4)
        }
        return year + "-" + padded(date.month, width: 2) + "-" + padded(date.day, width: 2)
    }

    /// `BigDecimal.toString()`: plain digits with the point `scale` places from the right,
    /// or scientific notation when the adjusted exponent is below -6.
    static func javaBigDecimalString(unscaled: Int128, scale: Int) -> String {
        let sign = unscaled < 0 ? "-" : ""
        let digits = String(unscaled.magnitude)
        let adjusted = digits.count - 1 - scale
        if scale == 0 { return sign + digits }
        if scale > 0, adjusted >= -6 {
            if digits.count > scale {
                return sign + String(digits.dropLast(scale)) + "." + String(digits.suffix(scale))
            }
            return sign + "0." + String(repeating: "0", count: scale - digits.count) + digits
        }
        let mantissa = digits.count > 1 ? String(digits.prefix(1)) + "." + String(digits.dropFirst()) : digits
        return sign + mantissa + "E" + (adjusted >= 0 ? "+" : "") + String(adjusted)
    }

    /// `Double.toString()`: plain for magnitudes in [10^-3, 10^7), else `d.dddE±n` without a
    /// plus sign; `shortest` is Swift's shortest round-trip form, whose digits Java's (JDK 19
    /// on) match.
    static func javaFloatingString(_ number: Double, shortest: String) -> String {
        if number.isNaN { return "NaN" }
        if number.isInfinite { return number < 0 ? "-Infinity" : "Infinity" }
        if number == 0 { return number.sign == .minus ? "-0.0" : "0.0" }
        // Digits and exponent of Swift's form ("1.5", "1e-05", "1.234e+20", "12345.0").
        var text = Substring(shortest)
        let negative = text.first == "-"
        if negative { text = text.dropFirst() }
        var exponent = 0
        if let marker = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: marker)...]) ?? 0
            text = text[..<marker]
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let integerPart = parts.first.map(String.init) ?? ""
        let fractionPart = parts.count > 1 ? String(parts[1]) : ""
        var digits = integerPart + fractionPart
        var pointPosition = integerPart.count + exponent  // digits before the decimal point
        while digits.first == "0", digits.count > 1 {
            digits.removeFirst()
            pointPosition -= 1
        }
        while digits.last == "0", digits.count > 1 { digits.removeLast() }
        let sign = negative ? "-" : ""
        let magnitude = abs(number)
        if magnitude >= 1e-3, magnitude < 1e7 {
            if pointPosition <= 0 { return sign + "0." + String(repeating: "0", count: -pointPosition) + digits }
            if pointPosition >= digits.count { return sign + digits + String(repeating: "0", count: pointPosition - digits.count) + ".0" }
            return sign + String(digits.prefix(pointPosition)) + "." + String(digits.dropFirst(pointPosition))
        }
        let fraction = digits.count > 1 ? String(digits.dropFirst()) : "0"
        return sign + String(digits.prefix(1)) + "." + fraction + "E" + String(pointPosition - 1)
    }

    /// The canonical text form of 16 uuid bytes.
    static func uuidText(_ bytes: [UInt8]) -> String {
        guard bytes.count == 16 else { return Base64.encode(bytes) }
        let hexDigits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text += [hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Java's `String.format("%0<width>d", value)`: zero-padded to `width` characters, a
    /// minus sign counting toward the width.
    static func padded(_ value: Int, width: Int) -> String {
        let digits = String(value.magnitude)
        let sign = value < 0 ? "-" : ""
        let padding = max(0, width - sign.count - digits.count)
        return sign + String(repeating: "0", count: padding) + digits
    }

    private static func floorDivMod(_ value: Int, _ divisor: Int) -> (quotient: Int, remainder: Int) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }
}
