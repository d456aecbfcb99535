import SluiceCore

/// Date and time functions: the statement clock, conversions and constructors.
enum TemporalFunctions {
    static func overloads(named name: String) -> [Overload]? {
        switch name {
        case "now", "current_timestamp", "transaction_timestamp", "statement_timestamp":
            return [Overload([], statementTimestamp(name))]
        case "current_date": return [Overload([], currentDate())]
        case "to_timestamp": return [Overload([.float64], toTimestamp())]
        case "make_date": return [Overload([.int32, .int32, .int32], makeDate())]
        default: return nil
        }
    }

    /// `now()` and its synonyms: the statement's start time (fixed within a statement, so not
    /// deterministic across statements).
    static func statementTimestamp(_ name: String) -> ScalarFunction {
        ScalarFunction(name: name, argumentTypes: [], resultType: .timestamptz, isDeterministic: false) { (_: [Column], rowCount: Int, context: EvaluationContext) throws(SluiceError) -> Column in
            Column(type: .timestamptz, storage: .int64([Int64](repeating: context.statementTimestamp, count: rowCount)))
        }
    }

    /// `current_date`: the statement's start date (in UTC; session zones are not applied yet).
    static func currentDate() -> ScalarFunction {
        ScalarFunction(name: "current_date", argumentTypes: [], resultType: .date, isDeterministic: false) { (_: [Column], rowCount: Int, context: EvaluationContext) throws(SluiceError) -> Column in
            let days = Int32(TemporalUnits.split(context.statementTimestamp).days)
            return Column(type: .date, storage: .int32([Int32](repeating: days, count: rowCount)))
        }
    }

    /// `to_timestamp(double precision)`: Unix seconds to timestamptz, rounded to microseconds.
    static func toTimestamp() -> ScalarFunction {
        ScalarFunction(name: "to_timestamp", argumentTypes: [.float64], resultType: .timestamptz) { (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.unary(arguments[0], resultType: .timestamptz) { (seconds: Double) throws(SluiceError) -> Int64 in
                if seconds.isNaN { throw SluiceError(.datetimeFieldOverflow, "timestamp cannot be NaN") }
                if seconds == .infinity { return Int64.max }
                if seconds == -.infinity { return Int64.min }
                let micros = (seconds * 1_000_000).rounded(.toNearestOrEven)
                guard micros >= Double(TemporalUnits.minimumTimestamp), micros < 9.2e18 else {
                    throw SluiceError(.datetimeFieldOverflow, "timestamp out of range: \"\(seconds)\"")
                }
                return Int64(micros)
            }
        }
    }

    /// `make_date(year, month, day)`; negative years are BC (there is no year 0).
    static func makeDate() -> ScalarFunction {
        ScalarFunction(name: "make_date", argumentTypes: [.int32, .int32, .int32], resultType: .date) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let years = arguments[0].integerElements()
            let months = arguments[1].integerElements()
            let days = arguments[2].integerElements()
            return try Kernels.values(arguments, rowCount: rowCount, type: .date) { (rowIndex: Int) throws(SluiceError) -> Int32 in
                let (year, month, day) = (Int(years[rowIndex]), Int(months[rowIndex]), Int(days[rowIndex]))
                let outOfRange = SluiceError(.datetimeFieldOverflow, "date field value out of range: \(year)-\(String(format2: month))-\(String(format2: day))")
                guard year != 0 else { throw outOfRange }
                let date = CivilDate(year: year < 0 ? year + 1 : year, month: month, day: day)
                guard date.isValid else { throw outOfRange }
                let result = date.daysSinceUnixEpoch
                guard result >= TemporalUnits.minimumDate, result < TemporalUnits.dateEnd else {
                    throw SluiceError(.datetimeFieldOverflow, "date out of range: \"\(year)-\(String(format2: month))-\(String(format2: day))\"")
                }
                return Int32(result)
            }
        }
    }
}

extension String {
    /// A number with at least two digits (`%02d`).
    init(format2 value: Int) {
        self = value >= 0 && value < 10 ? "0\(value)" : String(value)
    }
}
