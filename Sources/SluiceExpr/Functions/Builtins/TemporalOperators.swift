import SluiceCore

/// Date and time arithmetic operators (`date + integer`, `timestamp - interval`, …), on the
/// calendar arithmetic of ``TimestampArithmetic`` and ``IntervalArithmetic``.
enum TemporalOperators {
    /// The temporal operator `left symbol right`, or nil when the operands are not temporal.
    static func binary(_ symbol: String, _ givenLeft: DataType, _ givenRight: DataType) -> ScalarFunction? {
        let isTemporal = { (type: DataType) in type.isTemporal || type == .interval }
        guard isTemporal(givenLeft) || isTemporal(givenRight) else { return nil }
        // An untyped literal next to a timestamp or interval reads as an interval for + and as
        // the same type for - (Postgres's "same type as the other input" rule).
        let left: DataType, right: DataType
        if givenLeft == .unknown {
            left = givenRight == .date || givenRight == .time ? .unknown : .interval
        } else {
            left = givenLeft
        }
        if givenRight == .unknown {
            right = symbol == "-" && left != .interval && left != .date && left != .time ? left : .interval
        } else {
            right = givenRight
        }
        switch (symbol, left, right) {
        case ("+", .date, .int16), ("+", .date, .int32), ("-", .date, .int16), ("-", .date, .int32):
            let sign: Int64 = symbol == "+" ? 1 : -1
            return make(symbol, [.date, .int32], .date) { (arguments: [Column]) throws(SluiceError) -> Column in
                try Kernels.binary(arguments[0], arguments[1], resultType: .date) { (days: Int32, count: Int32) throws(SluiceError) -> Int32 in
                    try dateInRange(Int64(days) + sign * Int64(count))
                }
            }
        case ("+", .int16, .date), ("+", .int32, .date):
            return make(symbol, [.int32, .date], .date) { (arguments: [Column]) throws(SluiceError) -> Column in
                try Kernels.binary(arguments[0], arguments[1], resultType: .date) { (count: Int32, days: Int32) throws(SluiceError) -> Int32 in
                    try dateInRange(Int64(days) + Int64(count))
                }
            }
        case ("-", .date, .date):
            return make(symbol, [.date, .date], .int32) { (arguments: [Column]) throws(SluiceError) -> Column in
                try Kernels.binary(arguments[0], arguments[1], resultType: .int32) { (a: Int32, b: Int32) throws(SluiceError) -> Int32 in
                    guard let result = Int32(exactly: Int64(a) - Int64(b)) else { throw SluiceError(.numericValueOutOfRange, "integer out of range") }
                    return result
                }
            }
        case ("+", .date, .interval), ("-", .date, .interval):
            let negate = symbol == "-"
            return make(symbol, [.date, .interval], .timestamp) { (arguments: [Column]) throws(SluiceError) -> Column in
                try Kernels.binary(arguments[0], arguments[1], resultType: .timestamp) { (days: Int32, interval: Interval) throws(SluiceError) -> Int64 in
                    try TimestampArithmetic.add(negate ? try IntervalArithmetic.negate(interval) : interval, toDate: days)
                }
            }
        case ("+", .interval, .date):
            return make(symbol, [.interval, .date], .timestamp) { (arguments: [Column]) throws(SluiceError) -> Column in
                try Kernels.binary(arguments[0], arguments[1], resultType: .timestamp) { (interval: Interval, days: Int32) throws(SluiceError) -> Int64 in
                    try TimestampArithmetic.add(interval, toDate: days)
                }
            }
        case ("+", .date, .time), ("+", .time, .date):
            let dateFirst = left == .date
            return make(symbol, [left, right], .timestamp) { (arguments: [Column]) throws(SluiceError) -> Column in
                let (dates, times) = dateFirst ? (arguments[0], arguments[1]) : (arguments[1], arguments[0])
                return try Kernels.binary(dates, times, resultType: .timestamp) { (days: Int32, time: Int64) throws(SluiceError) -> Int64 in
                    let (sum, overflow) = try TimestampArithmetic.timestamp(fromDate: days).addingReportingOverflow(time)
                    if overflow { throw SluiceError(.datetimeFieldOverflow, "timestamp out of range") }
                    return sum
                }
            }
        case ("+", .timestamp, .interval), ("-", .timestamp, .interval):
            let negate = symbol == "-"
            return make(symbol, [left, .interval], left) { (arguments: [Column]) throws(SluiceError) -> Column in
                try Kernels.binary(arguments[0], arguments[1], resultType: left) { (timestamp: Int64, interval: Interval) throws(SluiceError) -> Int64 in
                    negate ? try TimestampArithmetic.subtract(interval, from: timestamp) : try TimestampArithmetic.add(interval, to: timestamp)
                }
            }
        case ("+", .interval, .timestamp):
            return make(symbol, [.interval, right], right) { (arguments: [Column]) throws(SluiceError) -> Column in
                try Kernels.binary(arguments[0], arguments[1], resultType: right) { (interval: Interval, timestamp: Int64) throws(SluiceError) -> Int64 in
                    try TimestampArithmetic.add(interval, to: timestamp)
                }
            }
        case ("+", .timestamptz, .interval), ("-", .timestamptz, .interval), ("+", .interval, .timestamptz):
            // Months and days move the session zone's clocks (a day across a DST change is 23
            // or 25 hours), the rest moves the instant, as PostgreSQL's timestamptz_pl_interval.
            let negate = symbol == "-"
            let intervalFirst = left == .interval
            return ScalarFunction(name: symbol, argumentTypes: [left, right], resultType: .timestamptz) {
                (arguments: [Column], _: Int, context: EvaluationContext) throws(SluiceError) -> Column in
                let zone = context.zone
                let (instants, intervals) = intervalFirst ? (arguments[1], arguments[0]) : (arguments[0], arguments[1])
                return try Kernels.binary(instants, intervals, resultType: .timestamptz) { (instant: Int64, given: Interval) throws(SluiceError) -> Int64 in
                    var interval = given
                    if negate {
                        guard given.months != .min, given.days != .min, given.microseconds != .min else {
                            throw SluiceError(.datetimeFieldOverflow, "interval out of range")
                        }
                        interval = Interval(months: -given.months, days: -given.days, microseconds: -given.microseconds)
                    }
                    if instant == Int64.max || instant == Int64.min { return instant }
                    var result = instant
                    if interval.months != 0 || interval.days != 0 {
                        let local = try TimestampArithmetic.add(Interval(months: interval.months, days: interval.days), to: zone.localMicros(fromUTC: instant))
                        result = zone.utcMicros(fromLocal: local)
                    }
                    return try TimestampArithmetic.add(Interval(microseconds: interval.microseconds), to: result)
                }
            }
        case ("-", let a, let b) where TypeCoercion.dateTimeRank(a) != nil && TypeCoercion.dateTimeRank(b) != nil:
            // date - date is handled above; otherwise both become the later of the two types.
            let common = TypeCoercion.commonType(a, b)!
            return make(symbol, [common, common], .interval) { (arguments: [Column]) throws(SluiceError) -> Column in
                try Kernels.binary(arguments[0], arguments[1], resultType: .interval) { (a: Int64, b: Int64) throws(SluiceError) -> Interval in
                    try TimestampArithmetic.difference(a, b)
                }
            }
        case ("+", .time, .interval), ("-", .time, .interval), ("+", .interval, .time):
            let sign: Int64 = symbol == "-" ? -1 : 1
            let timeFirst = left == .time
            return make(symbol, [left, right], .time) { (arguments: [Column]) throws(SluiceError) -> Column in
                let (times, intervals) = timeFirst ? (arguments[0], arguments[1]) : (arguments[1], arguments[0])
                return try Kernels.binary(times, intervals, resultType: .time) { (time: Int64, interval: Interval) throws(SluiceError) -> Int64 in
                    // Only the time part of the interval applies; the result wraps around midnight.
                    let day = TemporalUnits.microsecondsPerDay
                    let shifted = (time + sign * (interval.microseconds % day)) % day
                    return shifted < 0 ? shifted + day : shifted
                }
            }
        case ("-", .time, .time):
            return make(symbol, [.time, .time], .interval) { (arguments: [Column]) throws(SluiceError) -> Column in
                try Kernels.binary(arguments[0], arguments[1], resultType: .interval) { (a: Int64, b: Int64) throws(SluiceError) -> Interval in
                    Interval(microseconds: a - b)
                }
            }
        case ("+", .interval, .interval), ("-", .interval, .interval):
            let subtract = symbol == "-"
            return make(symbol, [.interval, .interval], .interval) { (arguments: [Column]) throws(SluiceError) -> Column in
                try Kernels.binary(arguments[0], arguments[1], resultType: .interval) { (a: Interval, b: Interval) throws(SluiceError) -> Interval in
                    subtract ? try IntervalArithmetic.subtract(a, b) : try IntervalArithmetic.add(a, b)
                }
            }
        case ("*", .interval, let factor) where factor.isNumeric || factor == .unknown,
            ("/", .interval, let factor) where factor.isNumeric || factor == .unknown:
            let divide = symbol == "/"
            return make(symbol, [.interval, .float64], .interval) { (arguments: [Column]) throws(SluiceError) -> Column in
                try Kernels.binary(arguments[0], arguments[1], resultType: .interval) { (interval: Interval, factor: Double) throws(SluiceError) -> Interval in
                    divide ? try IntervalArithmetic.divide(interval, by: factor) : try IntervalArithmetic.multiply(interval, by: factor)
                }
            }
        case ("*", let factor, .interval) where factor.isNumeric || factor == .unknown:
            return make(symbol, [.float64, .interval], .interval) { (arguments: [Column]) throws(SluiceError) -> Column in
                try Kernels.binary(arguments[0], arguments[1], resultType: .interval) { (factor: Double, interval: Interval) throws(SluiceError) -> Interval in
                    try IntervalArithmetic.multiply(interval, by: factor)
                }
            }
        default:
            return nil
        }
    }

    static func dateInRange(_ days: Int64) throws(SluiceError) -> Int32 {
        guard days >= Int64(TemporalUnits.minimumDate), days < Int64(TemporalUnits.dateEnd) else {
            throw SluiceError(.datetimeFieldOverflow, "date out of range")
        }
        return Int32(days)
    }

    static func make(
        _ symbol: String, _ argumentTypes: [DataType], _ resultType: DataType,
        _ body: @escaping @Sendable ([Column]) throws(SluiceError) -> Column
    ) -> ScalarFunction {
        ScalarFunction(name: symbol, argumentTypes: argumentTypes, resultType: resultType) { (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try body(arguments)
        }
    }
}
