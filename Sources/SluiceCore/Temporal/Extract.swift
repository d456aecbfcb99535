/// `extract(field from x)` as Postgres 14+ computes it, returning `numeric`: seconds and
/// epochs carry six fractional digits (`1.500000`), milliseconds three, the rest none.
package enum Extract {
    /// `extract` from a `timestamp`, or (`withZone`) from a `timestamptz` read on `zone`'s
    /// clocks: the fields are local, the epoch is the instant's, and `timezone` is the offset.
    package static func field(
        _ fieldName: String, fromTimestamp instant: Int64, withZone: Bool = false, zone: TimeZoneRules = .utc
    ) throws(SluiceError) -> Decimal {
        let typeName = withZone ? "timestamp with time zone" : "timestamp without time zone"
        let field = try TemporalField.named(fieldName, forType: typeName)
        if instant == Int64.max || instant == Int64.min {
            throw SluiceError(.featureNotSupported, "extracting fields from infinite timestamps is not supported")
        }
        let offset = withZone ? Int64(zone.offset(atUTC: instant).utcOffset) : 0
        switch field {
        case .epoch: return Decimal(mantissa: Int128(instant), scale: 6)
        case .timezone where withZone: return Decimal(offset)
        case .timezoneHour where withZone: return Decimal(offset / 3600)
        case .timezoneMinute where withZone: return Decimal(offset / 60 % 60)
        default: break
        }
        let timestamp = instant &+ offset * TemporalUnits.microsecondsPerSecond
        let (days, timeOfDay) = TemporalUnits.split(timestamp)
        switch field {
        case .hour: return Decimal(timeOfDay / TemporalUnits.microsecondsPerHour)
        case .minute: return Decimal(timeOfDay / TemporalUnits.microsecondsPerMinute % 60)
        case .second: return Decimal(mantissa: Int128(timeOfDay % TemporalUnits.microsecondsPerMinute), scale: 6)
        case .milliseconds: return Decimal(mantissa: Int128(timeOfDay % TemporalUnits.microsecondsPerMinute), scale: 3)
        case .microseconds: return Decimal(timeOfDay % TemporalUnits.microsecondsPerMinute)
        case .epoch: return Decimal(mantissa: Int128(timestamp), scale: 6)
        case .julian:
            // The Julian day number plus the numeric quotient of the time by a day, at the
            // ordinary division scale (so midnight prints 28 zeros, as in Postgres).
            let fraction = try Decimal.dividing(Decimal(timeOfDay), Decimal(TemporalUnits.microsecondsPerDay))
            return try Decimal.adding(Decimal(days + 2_440_588), fraction)
        case .timezone, .timezoneHour, .timezoneMinute:
            guard withZone else { throw TemporalField.unsupported(fieldName, typeName) }
            return .zero
        default:
            return try dateField(field, fieldName, days: Int(days), typeName: typeName)
        }
    }

    /// `extract` from a `date`; time fields are not supported, `epoch` is whole seconds.
    package static func field(_ fieldName: String, fromDate days: Int32) throws(SluiceError) -> Decimal {
        let field = try TemporalField.named(fieldName, forType: "date")
        if days == Int32.max || days == Int32.min {
            throw SluiceError(.featureNotSupported, "extracting fields from infinite dates is not supported")
        }
        switch field {
        case .epoch: return Decimal(Int64(days) * 86400)
        case .julian: return Decimal(Int64(days) + 2_440_588)
        default: return try dateField(field, fieldName, days: Int(days), typeName: "date")
        }
    }

    private static func dateField(_ field: TemporalField, _ fieldName: String, days: Int, typeName: String) throws(SluiceError) -> Decimal {
        let civil = CivilDate(daysSinceUnixEpoch: days)
        let year = civil.year
        let value: Int
        switch field {
        case .day: value = civil.day
        case .month: value = civil.month
        case .quarter: value = (civil.month - 1) / 3 + 1
        case .year: value = year > 0 ? year : year - 1
        case .decade: value = year >= 0 ? year / 10 : -((8 - (year - 1)) / 10)
        case .century: value = year > 0 ? (year + 99) / 100 : -((99 - (year - 1)) / 100)
        case .millennium: value = year > 0 ? (year + 999) / 1000 : -((999 - (year - 1)) / 1000)
        case .week: value = civil.isoWeek.week
        case .isoYear:
            let isoYear = civil.isoWeek.year
            value = isoYear > 0 ? isoYear : isoYear - 1
        case .dayOfWeek: value = civil.dayOfWeek
        case .isoDayOfWeek: value = civil.dayOfWeek == 0 ? 7 : civil.dayOfWeek
        case .dayOfYear: value = civil.dayOfYear
        default: throw TemporalField.unsupported(fieldName, typeName)
        }
        return Decimal(Int64(value))
    }

    /// `extract` from a `time`: hour, minute, second, milliseconds, microseconds, epoch.
    package static func field(_ fieldName: String, fromTime time: Int64) throws(SluiceError) -> Decimal {
        let typeName = "time without time zone"
        let field = try TemporalField.named(fieldName, forType: typeName)
        switch field {
        case .hour: return Decimal(time / TemporalUnits.microsecondsPerHour)
        case .minute: return Decimal(time / TemporalUnits.microsecondsPerMinute % 60)
        case .second: return Decimal(mantissa: Int128(time % TemporalUnits.microsecondsPerMinute), scale: 6)
        case .milliseconds: return Decimal(mantissa: Int128(time % TemporalUnits.microsecondsPerMinute), scale: 3)
        case .microseconds: return Decimal(time % TemporalUnits.microsecondsPerMinute)
        case .epoch: return Decimal(mantissa: Int128(time), scale: 6)
        default: throw TemporalField.unsupported(fieldName, typeName)
        }
    }

    /// `extract` from an `interval`; fields keep the interval's signs, and `epoch` counts a
    /// year as 365.25 days and a month as 30.
    package static func field(_ fieldName: String, fromInterval interval: Interval) throws(SluiceError) -> Decimal {
        let field = try TemporalField.named(fieldName, forType: "interval")
        let years = Int64(interval.months / 12)
        let micros = interval.microseconds
        switch field {
        case .millennium: return Decimal(years / 1000)
        case .century: return Decimal(years / 100)
        case .decade: return Decimal(years / 10)
        case .year: return Decimal(years)
        case .quarter: return Decimal(Int64(interval.months % 12) / 3 + 1)
        case .month: return Decimal(Int64(interval.months % 12))
        case .day: return Decimal(Int64(interval.days))
        case .hour: return Decimal(micros / TemporalUnits.microsecondsPerHour)
        case .minute: return Decimal(micros / TemporalUnits.microsecondsPerMinute % 60)
        case .second: return Decimal(mantissa: Int128(micros % TemporalUnits.microsecondsPerMinute), scale: 6)
        case .milliseconds: return Decimal(mantissa: Int128(micros % TemporalUnits.microsecondsPerMinute), scale: 3)
        case .microseconds: return Decimal(micros % TemporalUnits.microsecondsPerMinute)
        case .epoch:
            let seconds = Int128(years) * 31_557_600 + Int128(interval.months % 12) * 2_592_000 + Int128(interval.days) * 86400
            return Decimal(mantissa: seconds * 1_000_000 + Int128(micros), scale: 6)
        default:
            throw TemporalField.unsupported(fieldName, "interval")
        }
    }
}
