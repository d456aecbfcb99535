/// A Postgres interval: months, days and microseconds kept apart, as Postgres does, because a
/// month has no fixed number of days and a day no fixed number of microseconds across DST.
package struct Interval: Hashable, Sendable {
    package var months: Int32
    package var days: Int32
    package var microseconds: Int64

    package init(months: Int32 = 0, days: Int32 = 0, microseconds: Int64 = 0) {
        self.months = months
        self.days = days
        self.microseconds = microseconds
    }
}
