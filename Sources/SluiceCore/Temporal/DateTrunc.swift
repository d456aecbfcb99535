/// `date_trunc(field, timestamp)` as `timestamp_trunc` computes it; `timestamptz` is the same
/// in the UTC session zone.
package enum DateTrunc {
    /// The timestamp truncated to the start of its `field` (`microseconds` … `millennium`;
    /// `week` starts on the ISO Monday). Infinite timestamps stay infinite.
    package static func truncate(_ timestamp: Int64, to fieldName: String, typeName: String = "timestamp without time zone") throws(SluiceError) -> Int64 {
        let field = try TemporalField.named(fieldName, forType: typeName, unitsOnly: true)
        if timestamp == Int64.max || timestamp == Int64.min { return timestamp }
        let (days, timeOfDay) = TemporalUnits.split(timestamp)
        var civil = CivilDate(daysSinceUnixEpoch: Int(days))
        var time = timeOfDay
        switch field {
        case .microseconds:
            return timestamp
        case .milliseconds:
            time -= time % 1000
        case .second:
            time -= time % TemporalUnits.microsecondsPerSecond
        case .minute:
            time -= time % TemporalUnits.microsecondsPerMinute
        case .hour:
            time -= time % TemporalUnits.microsecondsPerHour
        case .day:
            time = 0
        case .week:
            let monday = Int(days) - (civil.dayOfWeek + 6) % 7
            return Int64(monday) * TemporalUnits.microsecondsPerDay
        case .month, .quarter, .year, .decade, .century, .millennium:
            time = 0
            civil.day = 1
            if field != .month { civil.month = field == .quarter ? 3 * ((civil.month - 1) / 3) + 1 : 1 }
            // Astronomical years, with Postgres's formulas for the BC side.
            let year = civil.year
            switch field {
            case .decade:
                civil.year = year > 0 ? (year / 10) * 10 : -((8 - (year - 1)) / 10) * 10
            case .century:
                civil.year = year > 0 ? ((year + 99) / 100) * 100 - 99 : -((99 - (year - 1)) / 100) * 100 + 1
            case .millennium:
                civil.year = year > 0 ? ((year + 999) / 1000) * 1000 - 999 : -((999 - (year - 1)) / 1000) * 1000 + 1
            default:
                break
            }
        default:
            throw TemporalField.unsupported(fieldName, typeName)
        }
        let result = Int64(civil.daysSinceUnixEpoch) * TemporalUnits.microsecondsPerDay + time
        guard result >= TemporalUnits.minimumTimestamp else { throw TimestampArithmetic.timestampOutOfRange }
        return result
    }

    /// `date_trunc(field, interval)` (`interval_trunc`): fields below `field` become zero;
    /// `week` is not supported because months have no whole number of weeks.
    package static func truncate(_ interval: Interval, to fieldName: String) throws(SluiceError) -> Interval {
        let field = try TemporalField.named(fieldName, forType: "interval", unitsOnly: true)
        var years = interval.months / 12
        var months = interval.months % 12
        var days = interval.days
        var micros = interval.microseconds
        switch field {
        case .millennium: years = (years / 1000) * 1000; months = 0; days = 0; micros = 0
        case .century: years = (years / 100) * 100; months = 0; days = 0; micros = 0
        case .decade: years = (years / 10) * 10; months = 0; days = 0; micros = 0
        case .year: months = 0; days = 0; micros = 0
        case .quarter: months = 3 * (months / 3); days = 0; micros = 0
        case .month: days = 0; micros = 0
        case .day: micros = 0
        case .hour: micros -= micros % TemporalUnits.microsecondsPerHour
        case .minute: micros -= micros % TemporalUnits.microsecondsPerMinute
        case .second: micros -= micros % TemporalUnits.microsecondsPerSecond
        case .milliseconds: micros -= micros % 1000
        case .microseconds: break
        case .week:
            throw SluiceError(.featureNotSupported, "unit \"\(fieldName.lowercased())\" not supported for type interval",
                              detail: "Months usually have fractional weeks.")
        default:
            throw TemporalField.unsupported(fieldName, "interval")
        }
        return Interval(months: years * 12 + months, days: days, microseconds: micros)
    }
}
