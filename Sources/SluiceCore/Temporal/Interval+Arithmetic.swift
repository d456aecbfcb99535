/// Interval arithmetic as Postgres's `interval_pl`, `interval_mi`, `interval_um`,
/// `interval_mul`, `interval_div`, `interval_justify_hours` and `interval_justify_days`.
package enum IntervalArithmetic {
    static var outOfRange: SluiceError { SluiceError(.datetimeFieldOverflow, "interval out of range") }

    /// Field-wise sum.
    package static func add(_ lhs: Interval, _ rhs: Interval) throws(SluiceError) -> Interval {
        let (months, o1) = lhs.months.addingReportingOverflow(rhs.months)
        let (days, o2) = lhs.days.addingReportingOverflow(rhs.days)
        let (micros, o3) = lhs.microseconds.addingReportingOverflow(rhs.microseconds)
        guard !o1, !o2, !o3 else { throw outOfRange }
        return Interval(months: months, days: days, microseconds: micros)
    }

    /// Field-wise difference.
    package static func subtract(_ lhs: Interval, _ rhs: Interval) throws(SluiceError) -> Interval {
        try add(lhs, try negate(rhs))
    }

    /// Field-wise negation.
    package static func negate(_ interval: Interval) throws(SluiceError) -> Interval {
        guard interval.months != Int32.min, interval.days != Int32.min, interval.microseconds != Int64.min else { throw outOfRange }
        return Interval(months: -interval.months, days: -interval.days, microseconds: -interval.microseconds)
    }

    /// `interval * double`: months and days are scaled and truncated, and their fractions
    /// spill down (a month is 30 days, a day 24 hours), as `interval_mul` does.
    package static func multiply(_ interval: Interval, by factor: Double) throws(SluiceError) -> Interval {
        try scale(interval, monthsValue: Double(interval.months) * factor, daysValue: Double(interval.days) * factor,
                  microsValue: Double(interval.microseconds) * factor, isNaN: factor.isNaN)
    }

    /// `interval / double`; throws `division by zero` for 0.
    package static func divide(_ interval: Interval, by divisor: Double) throws(SluiceError) -> Interval {
        guard divisor != 0 else { throw SluiceError(.divisionByZero, "division by zero") }
        return try scale(interval, monthsValue: Double(interval.months) / divisor, daysValue: Double(interval.days) / divisor,
                         microsValue: Double(interval.microseconds) / divisor, isNaN: divisor.isNaN)
    }

    private static func scale(_ interval: Interval, monthsValue: Double, daysValue: Double, microsValue: Double, isNaN: Bool) throws(SluiceError) -> Interval {
        guard !isNaN, monthsValue.isFinite, daysValue.isFinite,
              monthsValue > -2_147_483_649, monthsValue < 2_147_483_648,
              daysValue > -2_147_483_649, daysValue < 2_147_483_648 else { throw outOfRange }
        let months = Int32(monthsValue.rounded(.towardZero))
        var days = Int32(daysValue.rounded(.towardZero))
        // TSROUND: round to microsecond precision (rint, half to even).
        func tsRound(_ value: Double) -> Double { (value * 1e6).rounded(.toNearestOrEven) / 1e6 }
        let monthRemainderDays = tsRound((monthsValue - Double(months)) * 30)
        var secondRemainder = tsRound((daysValue - Double(days) + monthRemainderDays - monthRemainderDays.rounded(.towardZero)) * 86400)
        if secondRemainder.magnitude >= 86400 {
            let wholeDays = (secondRemainder / 86400).rounded(.towardZero)
            days = days &+ Int32(wholeDays)
            secondRemainder -= wholeDays * 86400
        }
        days = days &+ Int32(monthRemainderDays.rounded(.towardZero))
        let micros = (microsValue + secondRemainder * 1e6).rounded(.toNearestOrEven)
        guard micros.isFinite, micros >= -9.223372036854775808e18, micros < 9.223372036854775808e18 else { throw outOfRange }
        return Interval(months: months, days: days, microseconds: Int64(micros))
    }

    /// `justify_hours`: whole 24-hour periods move from the time to days, and the two are
    /// given the same sign.
    package static func justifyHours(_ interval: Interval) throws(SluiceError) -> Interval {
        var result = interval
        let wholeDays = interval.microseconds / TemporalUnits.microsecondsPerDay
        result.microseconds -= wholeDays * TemporalUnits.microsecondsPerDay
        let (days, overflow) = interval.days.addingReportingOverflow(Int32(truncatingIfNeeded: wholeDays))
        guard !overflow, Int64(Int32.min) ... Int64(Int32.max) ~= wholeDays else { throw outOfRange }
        result.days = days
        if result.days > 0, result.microseconds < 0 {
            result.microseconds += TemporalUnits.microsecondsPerDay
            result.days -= 1
        } else if result.days < 0, result.microseconds > 0 {
            result.microseconds -= TemporalUnits.microsecondsPerDay
            result.days += 1
        }
        return result
    }

    /// `justify_days`: whole 30-day periods move from days to months, and the two are given
    /// the same sign.
    package static func justifyDays(_ interval: Interval) throws(SluiceError) -> Interval {
        var result = interval
        let wholeMonths = interval.days / 30
        result.days -= wholeMonths * 30
        let (months, overflow) = interval.months.addingReportingOverflow(wholeMonths)
        guard !overflow else { throw outOfRange }
        result.months = months
        if result.months > 0, result.days < 0 {
            result.days += 30
            result.months -= 1
        } else if result.months < 0, result.days > 0 {
            result.days -= 30
            result.months += 1
        }
        return result
    }
}
