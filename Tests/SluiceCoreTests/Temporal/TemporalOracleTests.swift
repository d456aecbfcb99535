import Testing
@testable import SluiceCore

@Suite("Temporal functions against PostgreSQL")
struct TemporalOracleTests {
    @Test("date_trunc, extract, arithmetic, justify, to_timestamp", arguments: temporalFunctionCases)
    func function(_ row: [String]) {
        let (function, first, second) = (row[0], row[1], row[2])
        let actual = OracleResult { () throws(SluiceError) in
            func timestamp(_ text: String) throws(SluiceError) -> Int64 { try TemporalText.parseTimestamp(text, withZone: false) }
            func interval(_ text: String) throws(SluiceError) -> Interval { try Interval(parsingText: text) }
            switch function {
            case "date_trunc":
                return Value.timestamp(try DateTrunc.truncate(try timestamp(second), to: first)).textForm
            case "date_trunc_interval":
                return try DateTrunc.truncate(try interval(second), to: first).textForm
            case "extract_timestamp":
                return try Extract.field(first, fromTimestamp: try timestamp(second)).textForm
            case "extract_date":
                return try Extract.field(first, fromDate: try TemporalText.parseDate(second)).textForm
            case "extract_time":
                return try Extract.field(first, fromTime: try TemporalText.parseTime(second)).textForm
            case "extract_interval":
                return try Extract.field(first, fromInterval: try interval(second)).textForm
            case "ts_plus_interval":
                return Value.timestamp(try TimestampArithmetic.add(try interval(second), to: try timestamp(first))).textForm
            case "ts_minus_interval":
                return Value.timestamp(try TimestampArithmetic.subtract(try interval(second), from: try timestamp(first))).textForm
            case "ts_minus_ts":
                return try TimestampArithmetic.difference(try timestamp(first), try timestamp(second)).textForm
            case "date_plus_interval":
                return Value.timestamp(try TimestampArithmetic.add(try interval(second), toDate: try TemporalText.parseDate(first))).textForm
            case "interval_mul":
                return try IntervalArithmetic.multiply(try interval(first), by: Double(second)!).textForm
            case "interval_div":
                return try IntervalArithmetic.divide(try interval(first), by: Double(second)!).textForm
            case "interval_plus":
                return try IntervalArithmetic.add(try interval(first), try interval(second)).textForm
            case "interval_minus":
                return try IntervalArithmetic.subtract(try interval(first), try interval(second)).textForm
            case "justify_hours":
                return try IntervalArithmetic.justifyHours(try interval(first)).textForm
            case "justify_days":
                return try IntervalArithmetic.justifyDays(try interval(first)).textForm
            case "to_timestamp":
                let seconds = try ScalarText.parseDouble(first.replacing("'", with: ""))
                return Value.timestamptz(try TimestampArithmetic.toTimestamp(seconds)).textForm
            default:
                Issue.record("unknown function \(function)")
                return ""
            }
        }
        #expect(actual == OracleResult(row[3]), "\(function)(\(first), \(second))")
    }
}
