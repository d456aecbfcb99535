import SluiceCore

/// The text forms of event timestamps the seeds' producers write, all in UTC.
package enum TimestampFormat: Sendable {
    /// `2025-01-01T00:00:00.123456Z`: Python's `datetime.now(timezone.utc).isoformat()` with
    /// `+00:00` replaced by `Z`, as the balloon-popper demo's generator writes `event_ts`.
    case isoMicrosZ
    /// `2025-01-01T00:00:00.123456+00:00`: Python's `datetime.now(timezone.utc).isoformat()`, as
    /// seed 001's `producer.py` writes `ts`.
    case isoMicrosOffset
    /// `2025-01-01T00:00:00.123`: ISO-8601 local date-time with milliseconds, what Flink's JSON
    /// format reads into `TIMESTAMP(3)` with `json.timestamp-format.standard = 'ISO-8601'`.
    case isoMillis
    /// `2025-01-01 00:00:00.123`: the SQL form Nexmark's generators write (`date_time`).
    case sqlMillis
}

extension ByteWriter {
    /// Appends `microseconds` since 1970 (UTC) in `format`.
    ///
    /// Python's `isoformat()` leaves the fraction out when it is zero; these forms always write
    /// it, so every line of a stream has the same shape (parsers read both).
    package func appendTimestamp(_ microseconds: Int64, _ format: TimestampFormat) {
        let (days, timeOfDay) = TemporalUnits.split(microseconds)
        let date = CivilDate(daysSinceUnixEpoch: Int(days))
        let seconds = Int(timeOfDay / 1_000_000)
        let fraction = Int(timeOfDay % 1_000_000)
        reserve(32)
        appendPadded(date.year, width: 4)
        appendUnchecked(UInt8(ascii: "-"))
        appendPadded(date.month, width: 2)
        appendUnchecked(UInt8(ascii: "-"))
        appendPadded(date.day, width: 2)
        appendUnchecked(format == .sqlMillis ? UInt8(ascii: " ") : UInt8(ascii: "T"))
        appendPadded(seconds / 3600, width: 2)
        appendUnchecked(UInt8(ascii: ":"))
        appendPadded(seconds / 60 % 60, width: 2)
        appendUnchecked(UInt8(ascii: ":"))
        appendPadded(seconds % 60, width: 2)
        appendUnchecked(UInt8(ascii: "."))
        switch format {
        case .isoMicrosZ:
            appendPadded(fraction, width: 6)
            append(UInt8(ascii: "Z"))
        case .isoMicrosOffset:
            appendPadded(fraction, width: 6)
            append("+00:00")
        case .isoMillis, .sqlMillis:
            appendPadded(fraction / 1000, width: 3)
        }
    }
}
