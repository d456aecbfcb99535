/// A proleptic Gregorian calendar date, with astronomical year numbering (year 0 is 1 BC),
/// as Postgres's `j2date`/`date2j` use.
package struct CivilDate: Hashable, Sendable {
    package var year: Int
    /// 1…12.
    package var month: Int
    /// 1…31.
    package var day: Int

    package init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` days after 1970-01-01 (Howard Hinnant's `civil_from_days`).
    package init(daysSinceUnixEpoch days: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Days since 1970-01-01 (Howard Hinnant's `days_from_civil`); the fields must be valid.
    package var daysSinceUnixEpoch: Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Whether `year` (astronomical) is a Gregorian leap year.
    package static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// The number of days in `month` of `year`.
    package static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Whether the fields name a real day.
    package var isValid: Bool {
        (1 ... 12).contains(month) && day >= 1 && day <= CivilDate.daysInMonth(year: year, month: month)
    }

    /// 0 for Sunday … 6 for Saturday.
    package var dayOfWeek: Int {
        let weekday = (daysSinceUnixEpoch + 4) % 7  // 1970-01-01 was a Thursday
        return weekday < 0 ? weekday + 7 : weekday
    }

    /// 1…366.
    package var dayOfYear: Int {
        daysSinceUnixEpoch - CivilDate(year: year, month: 1, day: 1).daysSinceUnixEpoch + 1
    }

    /// The ISO 8601 week-numbering year and week (weeks start on Monday; week 1 holds the
    /// year's first Thursday).
    package var isoWeek: (year: Int, week: Int) {
        let days = daysSinceUnixEpoch
        let isoWeekday = (dayOfWeek + 6) % 7  // 0 = Monday
        let thursday = days - isoWeekday + 3
        let thursdayDate = CivilDate(daysSinceUnixEpoch: thursday)
        let firstOfYear = CivilDate(year: thursdayDate.year, month: 1, day: 1).daysSinceUnixEpoch
        return (thursdayDate.year, (thursday - firstOfYear) / 7 + 1)
    }

    /// The Monday that starts ISO week 1 of ISO year `year`, as days since 1970-01-01.
    package static func isoYearStart(_ year: Int) -> Int {
        let january4 = CivilDate(year: year, month: 1, day: 4)
        let isoWeekday = (january4.dayOfWeek + 6) % 7
        return january4.daysSinceUnixEpoch - isoWeekday
    }
}

/// Microsecond constants and the split of a timestamp into a day and a time of day.
package enum TemporalUnits {
    package static let microsecondsPerSecond: Int64 = 1_000_000
    package static let microsecondsPerMinute: Int64 = 60_000_000
    package static let microsecondsPerHour: Int64 = 3_600_000_000
    package static let microsecondsPerDay: Int64 = 86_400_000_000
    /// Days from 1970-01-01 to Postgres's epoch 2000-01-01.
    package static let postgresEpochDays: Int32 = 10957
    /// Microseconds from 1970-01-01 to 2000-01-01.
    package static let postgresEpochMicroseconds: Int64 = 946_684_800_000_000

    /// The first valid `date` (4714-11-24 BC, Julian day 0) as days since 1970-01-01.
    package static let minimumDate = -2_440_588
    /// One past the last valid `date` (5874898-01-01) as days since 1970-01-01.
    package static let dateEnd = 2_145_042_906
    /// The first valid timestamp (4714-11-24 00:00:00 BC) in microseconds since 1970.
    package static let minimumTimestamp: Int64 = -210_866_803_200_000_000
    /// One past the last valid timestamp. Postgres allows up to 294276-12-31, which does not
    /// fit in `Int64` microseconds since 1970; Sluice stops just below `Int64.max` (infinity),
    /// in the year 294247.
    package static let timestampEnd: Int64 = Int64.max

    /// Splits microseconds since 1970 into whole days (rounded down) and the time of day.
    package static func split(_ microseconds: Int64) -> (days: Int64, timeOfDay: Int64) {
        var days = microseconds / microsecondsPerDay
        var time = microseconds % microsecondsPerDay
        if time < 0 {
            time += microsecondsPerDay
            days -= 1
        }
        return (days, time)
    }
}
