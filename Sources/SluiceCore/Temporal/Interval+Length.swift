/// An interval's length as Postgres compares intervals (`interval_cmp`) and `justify_interval`
/// counts it: a month as 30 days, a day as 24 hours.
extension Interval {
    /// The length in microseconds, exactly (it cannot overflow: months and days are 32-bit).
    package var comparableMicroseconds: Int128 {
        (Int128(months) * 30 + Int128(days)) * Int128(TemporalUnits.microsecondsPerDay) + Int128(microseconds)
    }

    /// ``comparableMicroseconds`` as an Int64; nil past its range.
    package var fixedMicroseconds: Int64? {
        Int64(exactly: comparableMicroseconds)
    }
}
