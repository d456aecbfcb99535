/// Postgres text output of dates, times and timestamps (`date_out`, `time_out`,
/// `timestamp_out`, `timestamptz_out`) with `DateStyle = ISO` and `TimeZone = UTC`.
///
/// Written as bytes (``appendDate(_:to:)`` and the others), which the wire's and the file
/// sinks' text forms append straight to their buffers; the `String` forms decode those bytes.
package enum TemporalText {
    /// `2024-01-15`, `0044-03-15 BC`, `infinity`, `-infinity`.
    package static func date(_ days: Int32) -> String {
        var out: [UInt8] = []
        appendDate(days, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `10:30:00`, `10:30:00.123`; `24:00:00` is valid.
    package static func time(_ microseconds: Int64) -> String {
        var out: [UInt8] = []
        appendTime(microseconds, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `2024-01-15 10:30:00.5`, with ` BC` for years before 1; `withZone`, the local time in
    /// `zone` and its offset (`+00`, `-04`, `+05:30`, `-00:01:15`), as `timestamptz_out` shows
    /// it in the session's zone.
    package static func timestamp(_ microseconds: Int64, withZone: Bool, zone: TimeZoneRules = .utc) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(32)
        appendTimestamp(microseconds, withZone: withZone, zone: zone, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static let infinity = Array("infinity".utf8)
    private static let minusInfinity = Array("-infinity".utf8)
    private static let beforeChrist = Array(" BC".utf8)

    /// ``date(_:)`` appended to `out`.
    package static func appendDate(_ days: Int32, to out: inout [UInt8]) {
        if days == Int32.max { return out += infinity }
        if days == Int32.min { return out += minusInfinity }
        let civil = CivilDate(daysSinceUnixEpoch: Int(days))
        appendDate(civil, to: &out)
        if civil.year <= 0 { out += beforeChrist }
    }

    /// ``timestamp(_:withZone:zone:)`` appended to `out`.
    package static func appendTimestamp(_ microseconds: Int64, withZone: Bool, zone: TimeZoneRules = .utc, to out: inout [UInt8]) {
        if microseconds == Int64.max { return out += infinity }
        if microseconds == Int64.min { return out += minusInfinity }
        var offset: Int32 = 0
        var local = microseconds
        if withZone {
            offset = zone.offset(atUTC: microseconds).utcOffset
            local = microseconds &+ Int64(offset) * TemporalUnits.microsecondsPerSecond
        }
        let (days, timeOfDay) = TemporalUnits.split(local)
        let civil = CivilDate(daysSinceUnixEpoch: Int(days))
        appendDate(civil, to: &out)
        out.append(UInt8(ascii: " "))
        appendTime(timeOfDay, to: &out)
        if withZone { appendOffset(offset, to: &out) }
        if civil.year <= 0 { out += beforeChrist }
    }

    /// ``appendTimestamp(_:withZone:zone:to:)`` for a column's values, one after another: the
    /// zone is looked up only when it is not UTC, and the text up to the minute
    /// (`YYYY-MM-DD HH:MM:`) is kept while the rows fall in that minute (a chunk's rows mostly
    /// fall in few).
    package struct TimestampWriter {
        private let withZone: Bool
        private let zone: TimeZoneRules
        private let isUTC: Bool
        /// The minute (since 1970, local) `prefix` is of, and whether its day is before Christ.
        private var minute = Int64.min
        private var prefix: [UInt8] = []
        private var beforeChrist = false
        private var offsetText: [UInt8] = []

        package init(withZone: Bool, zone: TimeZoneRules = .utc) {
            self.withZone = withZone
            self.zone = zone
            isUTC = zone.name == TimeZoneRules.utc.name
        }

        /// The most bytes ``write(_:to:)`` takes.
        package static let maximumLength = 48

        package mutating func append(_ microseconds: Int64, to out: inout [UInt8]) {
            RawText.append(to: &out, room: Self.maximumLength) { write(microseconds, to: $0) }
        }

        /// The timestamp's text through raw memory (``maximumLength`` bytes of room); returns
        /// its length.
        @inline(__always)
        package mutating func write(_ microseconds: Int64, to out: UnsafeMutablePointer<UInt8>) -> Int {
            if microseconds == Int64.max { return Self.copy(TemporalText.infinity, to: out) }
            if microseconds == Int64.min { return Self.copy(TemporalText.minusInfinity, to: out) }
            var offset: Int32 = 0
            var local = microseconds
            if withZone && !isUTC {
                offset = zone.offset(atUTC: microseconds).utcOffset
                local = microseconds &+ Int64(offset) * TemporalUnits.microsecondsPerSecond
            }
            var minuteOf = local / TemporalUnits.microsecondsPerMinute
            if local % TemporalUnits.microsecondsPerMinute < 0 { minuteOf -= 1 }
            if minuteOf != minute {
                let (days, timeOfDay) = TemporalUnits.split(local)
                let civil = CivilDate(daysSinceUnixEpoch: Int(days))
                prefix.removeAll(keepingCapacity: true)
                TemporalText.appendDate(civil, to: &prefix)
                prefix.append(UInt8(ascii: " "))
                TemporalText.appendPadded(Int(timeOfDay / TemporalUnits.microsecondsPerHour), width: 2, to: &prefix)
                prefix.append(UInt8(ascii: ":"))
                TemporalText.appendPadded(Int(timeOfDay % TemporalUnits.microsecondsPerHour / TemporalUnits.microsecondsPerMinute), width: 2, to: &prefix)
                prefix.append(UInt8(ascii: ":"))
                beforeChrist = civil.year <= 0
                minute = minuteOf
            }
            var at = Self.copy(prefix, to: out)
            // Seconds, and the fraction without its trailing zeros.
            let inMinute = local - minuteOf * TemporalUnits.microsecondsPerMinute
            RawText.writeTwoDigits(Int(inMinute / TemporalUnits.microsecondsPerSecond), to: out + at)
            at += 2
            var fraction = Int(inMinute % TemporalUnits.microsecondsPerSecond)
            if fraction != 0 {
                var width = 6
                while fraction % 10 == 0 {
                    fraction /= 10
                    width -= 1
                }
                out[at] = UInt8(ascii: ".")
                for place in stride(from: width, to: 0, by: -1) {
                    out[at + place] = UInt8(ascii: "0") &+ UInt8(fraction % 10)
                    fraction /= 10
                }
                at += width + 1
            }
            if withZone {
                if offset == 0 {
                    out[at] = UInt8(ascii: "+")
                    out[at + 1] = UInt8(ascii: "0")
                    out[at + 2] = UInt8(ascii: "0")
                    at += 3
                } else {
                    offsetText.removeAll(keepingCapacity: true)
                    TemporalText.appendOffset(offset, to: &offsetText)
                    at += Self.copy(offsetText, to: out + at)
                }
            }
            if beforeChrist { at += Self.copy(TemporalText.beforeChrist, to: out + at) }
            return at
        }

        @inline(__always)
        private static func copy(_ bytes: [UInt8], to out: UnsafeMutablePointer<UInt8>) -> Int {
            bytes.withUnsafeBufferPointer { out.update(from: $0.baseAddress!, count: $0.count) }
            return bytes.count
        }
    }

    /// `+HH`, `+HH:MM` or `+HH:MM:SS` for an offset in seconds east of UTC.
    static func appendOffset(_ offset: Int32, to out: inout [UInt8]) {
        out.append(offset < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
        let magnitude = Int(offset.magnitude)
        appendPadded(magnitude / 3600, width: 2, to: &out)
        if magnitude % 3600 != 0 {
            out.append(UInt8(ascii: ":"))
            appendPadded(magnitude / 60 % 60, width: 2, to: &out)
            if magnitude % 60 != 0 {
                out.append(UInt8(ascii: ":"))
                appendPadded(magnitude % 60, width: 2, to: &out)
            }
        }
    }

    /// `YYYY-MM-DD` with the year as written in AD/BC terms, at least four digits.
    static func appendDate(_ civil: CivilDate, to out: inout [UInt8]) {
        let year = civil.year > 0 ? civil.year : 1 - civil.year
        appendPadded(year, width: 4, to: &out)
        out.append(UInt8(ascii: "-"))
        appendPadded(civil.month, width: 2, to: &out)
        out.append(UInt8(ascii: "-"))
        appendPadded(civil.day, width: 2, to: &out)
    }

    /// `HH:MM:SS[.ffffff]` with trailing fractional zeros trimmed; hours may exceed 23.
    package static func appendTime(_ microseconds: Int64, to out: inout [UInt8]) {
        let hours = microseconds / TemporalUnits.microsecondsPerHour
        var rest = microseconds % TemporalUnits.microsecondsPerHour
        let minutes = rest / TemporalUnits.microsecondsPerMinute
        rest %= TemporalUnits.microsecondsPerMinute
        appendPadded(Int(hours), width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        appendPadded(Int(minutes), width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        appendSeconds(rest, to: &out)
    }

    /// `SS[.ffffff]` for a nonnegative count of microseconds below a minute (or any, for
    /// intervals), trailing fractional zeros trimmed.
    static func appendSeconds(_ microseconds: Int64, to out: inout [UInt8]) {
        appendPadded(Int(microseconds / TemporalUnits.microsecondsPerSecond), width: 2, to: &out)
        var fraction = Int(microseconds % TemporalUnits.microsecondsPerSecond)
        guard fraction != 0 else { return }
        var width = 6
        while fraction % 10 == 0 {
            fraction /= 10
            width -= 1
        }
        out.append(UInt8(ascii: "."))
        appendPadded(fraction, width: width, to: &out)
    }

    /// A nonnegative `value` in decimal, zero-padded to `width` digits.
    @inline(__always)
    static func appendPadded(_ value: Int, width: Int, to out: inout [UInt8]) {
        if width == 2 && value >= 0 && value < 100 {
            out.append(UInt8(ascii: "0") &+ UInt8(value / 10))
            out.append(UInt8(ascii: "0") &+ UInt8(value % 10))
            return
        }
        if width == 4 && value >= 0 && value < 10_000 {
            out.append(UInt8(ascii: "0") &+ UInt8(value / 1000))
            out.append(UInt8(ascii: "0") &+ UInt8(value / 100 % 10))
            out.append(UInt8(ascii: "0") &+ UInt8(value / 10 % 10))
            out.append(UInt8(ascii: "0") &+ UInt8(value % 10))
            return
        }
        var digits = 1
        var limit = 10
        while value >= limit && digits < 19 {
            digits += 1
            limit &*= 10
        }
        if digits < width { out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - digits)) }
        DecimalText.append(Int64(value), to: &out)
    }
}

/// Integers in decimal, as bytes.
package enum DecimalText {
    /// Appends `value` in decimal.
    @inline(__always)
    package static func append(_ value: Int64, to out: inout [UInt8]) {
        if value >= 0 && value < 10 {
            out.append(UInt8(ascii: "0") &+ UInt8(value))
            return
        }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[23 - count] = UInt8(ascii: "0") &+ UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            if value < 0 { out.append(UInt8(ascii: "-")) }
            out.appendRaw(UnsafeRawBufferPointer(rebasing: buffer[(24 - count)...]))
        }
    }
}
