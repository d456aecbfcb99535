/// Postgres text output of dates, times and timestamps (`date_out`, `time_out`,
/// `timestamp_out`, `timestamptz_out`) with `DateStyle = ISO` and `TimeZone = UTC`.
package enum TemporalText {
    /// `2024-01-15`, `0044-03-15 BC`, `infinity`, `-infinity`.
    package static func date(_ days: Int32) -> String {
        if days == Int32.max { return "infinity" }
        if days == Int32.min { return "-infinity" }
        var out = ""
        let civil = CivilDate(daysSinceUnixEpoch: Int(days))
        appendDate(civil, to: &out)
        if civil.year <= 0 { out += " BC" }
        return out
    }

    /// `10:30:00`, `10:30:00.123`; `24:00:00` is valid.
    package static func time(_ microseconds: Int64) -> String {
        var out = ""
        appendTime(microseconds, to: &out)
        return out
    }

    /// `2024-01-15 10:30:00.5`, with ` BC` for years before 1; `withZone`, the local time in
    /// `zone` and its offset (`+00`, `-04`, `+05:30`, `-00:01:15`), as `timestamptz_out` shows
    /// it in the session's zone.
    package static func timestamp(_ microseconds: Int64, withZone: Bool, zone: TimeZoneRules = .utc) -> String {
        if microseconds == Int64.max { return "infinity" }
        if microseconds == Int64.min { return "-infinity" }
        var offset: Int32 = 0
        var local = microseconds
        if withZone {
            offset = zone.offset(atUTC: microseconds).utcOffset
            local = microseconds &+ Int64(offset) * TemporalUnits.microsecondsPerSecond
        }
        let (days, timeOfDay) = TemporalUnits.split(local)
        let civil = CivilDate(daysSinceUnixEpoch: Int(days))
        var out = ""
        appendDate(civil, to: &out)
        out += " "
        appendTime(timeOfDay, to: &out)
        if withZone { appendOffset(offset, to: &out) }
        if civil.year <= 0 { out += " BC" }
        return out
    }

    /// `+HH`, `+HH:MM` or `+HH:MM:SS` for an offset in seconds east of UTC.
    static func appendOffset(_ offset: Int32, to out: inout String) {
        out += offset < 0 ? "-" : "+"
        let magnitude = Int(offset.magnitude)
        appendPadded(magnitude / 3600, width: 2, to: &out)
        if magnitude % 3600 != 0 {
            out += ":"
            appendPadded(magnitude / 60 % 60, width: 2, to: &out)
            if magnitude % 60 != 0 {
                out += ":"
                appendPadded(magnitude % 60, width: 2, to: &out)
            }
        }
    }

    /// `YYYY-MM-DD` with the year as written in AD/BC terms, at least four digits.
    static func appendDate(_ civil: CivilDate, to out: inout String) {
        let year = civil.year > 0 ? civil.year : 1 - civil.year
        appendPadded(year, width: 4, to: &out)
        out += "-"
        appendPadded(civil.month, width: 2, to: &out)
        out += "-"
        appendPadded(civil.day, width: 2, to: &out)
    }

    /// `HH:MM:SS[.ffffff]` with trailing fractional zeros trimmed; hours may exceed 23.
    static func appendTime(_ microseconds: Int64, to out: inout String) {
        let hours = microseconds / TemporalUnits.microsecondsPerHour
        var rest = microseconds % TemporalUnits.microsecondsPerHour
        let minutes = rest / TemporalUnits.microsecondsPerMinute
        rest %= TemporalUnits.microsecondsPerMinute
        appendPadded(Int(hours), width: 2, to: &out)
        out += ":"
        appendPadded(Int(minutes), width: 2, to: &out)
        out += ":"
        appendSeconds(rest, to: &out)
    }

    /// `SS[.ffffff]` for a nonnegative count of microseconds below a minute (or any, for
    /// intervals), trailing fractional zeros trimmed.
    static func appendSeconds(_ microseconds: Int64, to out: inout String) {
        appendPadded(Int(microseconds / TemporalUnits.microsecondsPerSecond), width: 2, to: &out)
        var fraction = Int(microseconds % TemporalUnits.microsecondsPerSecond)
        guard fraction != 0 else { return }
        var width = 6
        while fraction % 10 == 0 {
            fraction /= 10
            width -= 1
        }
        out += "."
        appendPadded(fraction, width: width, to: &out)
    }

    static func appendPadded(_ value: Int, width: Int, to out: inout String) {
        let digits = String(value)
        if digits.utf8.count < width { out += String(repeating: "0", count: width - digits.utf8.count) }
        out += digits
    }
}
