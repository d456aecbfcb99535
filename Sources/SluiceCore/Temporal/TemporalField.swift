/// A unit named in `date_trunc` or `extract`, spelled any way Postgres accepts
/// (`deltatktbl` and `datetktbl` in datetime.c), case-insensitively.
package enum TemporalField: Hashable, Sendable {
    case microseconds, milliseconds, second, minute, hour, day, week, month, quarter, year
    case decade, century, millennium
    case epoch, dayOfWeek, isoDayOfWeek, dayOfYear, isoYear, julian
    case timezone, timezoneHour, timezoneMinute

    /// The field named `name`, or nil for an unknown word.
    package init?(name: String) {
        switch name.lowercased() {
        case "microsecond", "microseconds", "us", "usec", "usecs", "useconds": self = .microseconds
        case "millisecond", "milliseconds", "ms", "msec", "msecs", "mseconds": self = .milliseconds
        case "second", "seconds", "s", "sec", "secs": self = .second
        case "minute", "minutes", "m", "min", "mins": self = .minute
        case "hour", "hours", "h", "hr", "hrs": self = .hour
        case "day", "days", "d": self = .day
        case "week", "weeks", "w": self = .week
        case "month", "months", "mon", "mons": self = .month
        case "quarter", "qtr": self = .quarter
        case "year", "years", "y", "yr", "yrs": self = .year
        case "decade", "decades", "dec", "decs": self = .decade
        case "century", "centuries", "c", "cent": self = .century
        case "millennium", "millennia", "mil", "mils", "millenniums": self = .millennium
        case "epoch": self = .epoch
        case "dow": self = .dayOfWeek
        case "isodow": self = .isoDayOfWeek
        case "doy": self = .dayOfYear
        case "isoyear": self = .isoYear
        case "julian", "j": self = .julian
        case "timezone": self = .timezone
        case "timezone_h", "timezone_hour": self = .timezoneHour
        case "timezone_m", "timezone_minute": self = .timezoneMinute
        default: return nil
        }
    }

    /// Whether Postgres lists the word as a unit (`UNITS` in datetime.c) rather than a
    /// reserved word such as `epoch` or `dow`; `date_trunc` accepts only units.
    package var isUnit: Bool {
        switch self {
        case .epoch, .dayOfWeek, .isoDayOfWeek, .dayOfYear, .isoYear, .julian: false
        default: true
        }
    }

    /// Parses `name` or throws Postgres's `unit "…" not recognized for type …` (22023).
    package static func named(_ name: String, forType typeName: String, unitsOnly: Bool = false) throws(SluiceError) -> TemporalField {
        guard let field = TemporalField(name: name), field.isUnit || !unitsOnly else {
            throw SluiceError(.invalidParameterValue, "unit \"\(name.lowercased())\" not recognized for type \(typeName)")
        }
        return field
    }

    static func unsupported(_ name: String, _ typeName: String) -> SluiceError {
        SluiceError(.featureNotSupported, "unit \"\(name.lowercased())\" not supported for type \(typeName)")
    }
}
