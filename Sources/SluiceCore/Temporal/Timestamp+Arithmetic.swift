/// Date and timestamp arithmetic as Postgres's `timestamp_pl_interval`, `timestamp_mi`,
/// `date_pl_interval` and `to_timestamp` do it. Timestamps are microseconds since
/// 1970-01-01; `timestamptz` behaves as `timestamp` because the session zone is UTC.
package enum TimestampArithmetic {
    static var timestampOutOfRange: SluiceError { SluiceError(.datetimeFieldOverflow, "timestamp out of range") }

    /// The date `months` months after `days`, clamping the day to the month's length
    /// (`2024-01-31 + 1 mon = 2024-02-29`).
    package static func addMonths(_ months: Int, toDate days: Int32) throws(SluiceError) -> Int32 {
        var civil = CivilDate(daysSinceUnixEpoch: Int(days))
        let total = civil.year * 12 + (civil.month - 1) + months
        civil.year = total >= 0 ? total / 12 : (total - 11) / 12
        civil.month = total - civil.year * 12 + 1
        civil.day = min(civil.day, CivilDate.daysInMonth(year: civil.year, month: civil.month))
        let result = civil.daysSinceUnixEpoch
        guard result >= TemporalUnits.minimumDate, result < TemporalUnits.dateEnd else {
            throw SluiceError(.datetimeFieldOverflow, "date out of range")
        }
        return Int32(result)
    }

    /// `timestamp + interval`: months first (clamping the day), then days, then microseconds.
    /// Infinite timestamps stay infinite.
    package static func add(_ interval: Interval, to timestamp: Int64) throws(SluiceError) -> Int64 {
        if timestamp == Int64.max || timestamp == Int64.min { return timestamp }
        var (days, timeOfDay) = TemporalUnits.split(timestamp)
        if interval.months != 0 {
            days = Int64(try addMonths(Int(interval.months), toDate: Int32(days)))
        }
        days += Int64(interval.days)
        let (dayMicros, overflow1) = days.multipliedReportingOverflow(by: TemporalUnits.microsecondsPerDay)
        let (withTime, overflow2) = dayMicros.addingReportingOverflow(timeOfDay)
        let (result, overflow3) = withTime.addingReportingOverflow(interval.microseconds)
        guard !overflow1, !overflow2, !overflow3,
              result >= TemporalUnits.minimumTimestamp, result < TemporalUnits.timestampEnd else {
            throw timestampOutOfRange
        }
        return result
    }

    /// `timestamp - interval`.
    package static func subtract(_ interval: Interval, from timestamp: Int64) throws(SluiceError) -> Int64 {
        try add(try IntervalArithmetic.negate(interval), to: timestamp)
    }

    /// `date + interval`, a timestamp (the date at midnight plus the interval).
    package static func add(_ interval: Interval, toDate days: Int32) throws(SluiceError) -> Int64 {
        try add(interval, to: try timestamp(fromDate: days))
    }

    /// The timestamp at midnight of a date.
    package static func timestamp(fromDate days: Int32) throws(SluiceError) -> Int64 {
        if days == Int32.max { return Int64.max }
        if days == Int32.min { return Int64.min }
        // Dates reach further than timestamps (Postgres: "date out of range for timestamp").
        let (micros, overflow) = Int64(days).multipliedReportingOverflow(by: TemporalUnits.microsecondsPerDay)
        if overflow || micros == Int64.max || micros == Int64.min {
            throw SluiceError(.datetimeFieldOverflow, "date out of range for timestamp")
        }
        return micros
    }

    /// `timestamp - timestamp`: the difference in days and time, no months, with whole days
    /// taken out of the time as `interval_justify_hours` does. Infinite operands are an error.
    package static func difference(_ lhs: Int64, _ rhs: Int64) throws(SluiceError) -> Interval {
        let infinite: Set<Int64> = [Int64.max, Int64.min]
        guard !infinite.contains(lhs), !infinite.contains(rhs) else {
            throw SluiceError(.datetimeFieldOverflow, "cannot subtract infinite timestamps")
        }
        let (difference, overflow) = lhs.subtractingReportingOverflow(rhs)
        guard !overflow else { throw SluiceError(.datetimeFieldOverflow, "interval out of range") }
        return try IntervalArithmetic.justifyHours(Interval(microseconds: difference))
    }

    /// `to_timestamp(double precision)`: seconds since 1970 to a `timestamptz`, rounded to
    /// the microsecond; `±Infinity` give the infinite timestamps.
    package static func toTimestamp(_ seconds: Double) throws(SluiceError) -> Int64 {
        if seconds.isNaN { throw SluiceError(.datetimeFieldOverflow, "timestamp cannot be NaN") }
        if seconds.isInfinite { return seconds < 0 ? Int64.min : Int64.max }
        // Postgres shifts to its own epoch before scaling; doing the same keeps rounding equal.
        let shifted = ((seconds - 946_684_800) * 1_000_000).rounded(.toNearestOrEven)
        let limit = Double(TemporalUnits.timestampEnd - TemporalUnits.postgresEpochMicroseconds)
        let lower = Double(TemporalUnits.minimumTimestamp - TemporalUnits.postgresEpochMicroseconds)
        guard shifted >= lower, shifted < limit else {
            throw SluiceError(.datetimeFieldOverflow, "timestamp out of range: \"\(seconds.cFormatG)\"")
        }
        return Int64(shifted) + TemporalUnits.postgresEpochMicroseconds
    }

    /// `make_date(year, month, day)`; a negative year means BC.
    package static func makeDate(year: Int, month: Int, day: Int) throws(SluiceError) -> Int32 {
        guard year != 0 else {
            throw SluiceError(.datetimeFieldOverflow, "date field value out of range: \(year)-\(pad2(month))-\(pad2(day))")
        }
        let civil = CivilDate(year: year < 0 ? year + 1 : year, month: month, day: day)
        guard civil.isValid else {
            throw SluiceError(.datetimeFieldOverflow, "date field value out of range: \(year)-\(pad2(month))-\(pad2(day))")
        }
        let days = civil.daysSinceUnixEpoch
        guard days >= TemporalUnits.minimumDate, days < TemporalUnits.dateEnd else {
            throw SluiceError(.datetimeFieldOverflow, "date out of range: \(year)-\(pad2(month))-\(pad2(day))")
        }
        return Int32(days)
    }

    /// `make_timestamp(year, month, day, hour, min, sec)`.
    package static func makeTimestamp(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Double) throws(SluiceError) -> Int64 {
        let date = try makeDate(year: year, month: month, day: day)
        guard (0 ... 24).contains(hour), (0 ..< 60).contains(minute), second >= 0, second <= 60 else {
            throw SluiceError(.datetimeFieldOverflow, "date/time field value out of range: \(hour):\(pad2(minute)):\(second.postgresText)")
        }
        let time = Int64(hour) * TemporalUnits.microsecondsPerHour + Int64(minute) * TemporalUnits.microsecondsPerMinute
            + Int64((second * 1_000_000).rounded(.toNearestOrEven))
        guard time <= TemporalUnits.microsecondsPerDay else {
            throw SluiceError(.datetimeFieldOverflow, "date/time field value out of range: \(hour):\(pad2(minute)):\(second.postgresText)")
        }
        return Int64(date) * TemporalUnits.microsecondsPerDay + time
    }

    private static func pad2(_ value: Int) -> String {
        value >= 0 && value < 10 ? "0\(value)" : String(value)
    }
}
