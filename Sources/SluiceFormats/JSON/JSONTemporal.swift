import SluiceCore

/// Byte-level parsing of the RFC 3339 / ISO 8601 date and time forms that JSON producers
/// write, without building a `String`. Anything else (`infinity`, BC years, compact forms,
/// leap seconds) returns nil and the caller falls back to the Postgres-style parsers of
/// SluiceCore (`TemporalText`), which accept more and agree on these forms.
package enum JSONTemporal {
    /// `YYYY-MM-DD`, then optionally `T`/`t`/space and `HH:MM[:SS[.fraction]]`, then
    /// optionally `Z`/`z` or `±HH[[:]MM]`. Returns microseconds since 1970 of the local
    /// time, and the zone offset in seconds east of UTC if one was written. Fractions beyond
    /// microseconds round half to even, as Postgres does.
    package static func parseTimestamp(_ bytes: UnsafeBufferPointer<UInt8>) -> (localMicroseconds: Int64, zoneOffset: Int?)? {
        var index = 0
        guard let days = parseDateFields(bytes, &index) else { return nil }
        var time: Int64 = 0
        var zone: Int? = nil
        if index < bytes.count {
            let separator = bytes[index]
            guard separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") || separator == UInt8(ascii: " ") else { return nil }
            index += 1
            guard let parsed = parseTimeFields(bytes, &index) else { return nil }
            time = parsed
            if index < bytes.count {
                guard let offset = parseZone(bytes, &index) else { return nil }
                zone = offset
            }
        }
        guard index == bytes.count else { return nil }
        return (Int64(days) * TemporalUnits.microsecondsPerDay + time, zone)
    }

    /// `YYYY-MM-DD` exactly, as days since 1970-01-01.
    package static func parseDate(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32? {
        var index = 0
        guard let days = parseDateFields(bytes, &index), index == bytes.count else { return nil }
        return Int32(days)
    }

    /// `HH:MM[:SS[.fraction]]` exactly, as microseconds since midnight.
    static func parseTime(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var index = 0
        guard let time = parseTimeFields(bytes, &index), index == bytes.count else { return nil }
        return time
    }

    @inline(__always)
    private static func twoDigits(_ bytes: UnsafeBufferPointer<UInt8>, _ index: Int) -> Int? {
        guard index + 2 <= bytes.count else { return nil }
        let tens = bytes[index] &- UInt8(ascii: "0"), ones = bytes[index + 1] &- UInt8(ascii: "0")
        guard tens < 10, ones < 10 else { return nil }
        return Int(tens) * 10 + Int(ones)
    }

    /// Days since 1970 for `YYYY-MM-DD` at `index` (years 0001–9999).
    private static func parseDateFields(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> Int? {
        guard bytes.count - index >= 10, let century = twoDigits(bytes, index), let yearOfCentury = twoDigits(bytes, index + 2),
              bytes[index + 4] == UInt8(ascii: "-"), let month = twoDigits(bytes, index + 5),
              bytes[index + 7] == UInt8(ascii: "-"), let day = twoDigits(bytes, index + 8) else { return nil }
        let date = CivilDate(year: century * 100 + yearOfCentury, month: month, day: day)
        guard date.year > 0, date.isValid else { return nil }
        index += 10
        return date.daysSinceUnixEpoch
    }

    /// Microseconds since midnight for `HH:MM[:SS[.fraction]]` at `index`.
    private static func parseTimeFields(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> Int64? {
        guard let hour = twoDigits(bytes, index), index + 2 < bytes.count, bytes[index + 2] == UInt8(ascii: ":"),
              let minute = twoDigits(bytes, index + 3), hour < 24, minute < 60 else { return nil }
        index += 5
        var second = 0
        var fraction: Int64 = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
            guard let parsed = twoDigits(bytes, index + 1), parsed < 60 else { return nil }
            second = parsed
            index += 3
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                let fractionStart = index
                var microseconds: Int64 = 0
                var roundDigit: UInt8 = 0
                var stickyNonzero = false
                while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
                    let digit = bytes[index] &- UInt8(ascii: "0")
                    let position = index - fractionStart
                    if position < 6 {
                        microseconds = microseconds * 10 + Int64(digit)
                    } else if position == 6 {
                        roundDigit = digit
                    } else if digit != 0 {
                        stickyNonzero = true
                    }
                    index += 1
                }
                let digitCount = index - fractionStart
                guard digitCount > 0 else { return nil }
                for _ in min(digitCount, 6) ..< 6 { microseconds *= 10 }
                // Half to even at the microsecond (Postgres rounds with rint).
                if roundDigit > 5 || (roundDigit == 5 && (stickyNonzero || microseconds & 1 == 1)) { microseconds += 1 }
                fraction = microseconds
            }
        }
        return Int64(hour) * TemporalUnits.microsecondsPerHour + Int64(minute) * TemporalUnits.microsecondsPerMinute
            + Int64(second) * TemporalUnits.microsecondsPerSecond + fraction
    }

    /// `Z`, `z`, `+HH`, `+HHMM` or `+HH:MM` at `index`, in seconds east of UTC.
    private static func parseZone(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> Int? {
        let sign = bytes[index]
        if sign == UInt8(ascii: "Z") || sign == UInt8(ascii: "z") {
            index += 1
            return 0
        }
        guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"), let hours = twoDigits(bytes, index + 1), hours <= 15 else { return nil }
        index += 3
        var minutes = 0
        if index < bytes.count {
            if bytes[index] == UInt8(ascii: ":") { index += 1 }
            guard let parsed = twoDigits(bytes, index), parsed < 60 else { return nil }
            minutes = parsed
            index += 2
        }
        let offset = hours * 3600 + minutes * 60
        return sign == UInt8(ascii: "-") ? -offset : offset
    }

    /// Microseconds since 1970 for an integer epoch value, guessing its unit from its
    /// magnitude as RisingWave's `i64_to_timestamptz` does: below 10^11 seconds, below 10^14
    /// milliseconds, below 10^17 microseconds, else nanoseconds (truncated toward zero).
    /// Exact for instants in [1973-03-03 09:46:40, 5138-11-16 09:46:40) UTC.
    static func microseconds(fromEpochGuessingUnit value: Int64) -> Int64 {
        let magnitude = value.magnitude
        if magnitude < 100_000_000_000 { return value * 1_000_000 }
        if magnitude < 100_000_000_000_000 { return value * 1_000 }
        if magnitude < 100_000_000_000_000_000 { return value }
        return value / 1_000
    }
}
