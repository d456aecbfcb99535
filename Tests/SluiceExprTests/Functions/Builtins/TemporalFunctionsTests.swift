import SluiceCore
import Testing

@testable import SluiceExpr

@Suite struct TemporalFunctionsTests {
    static let micros: Int64 = 1_000_000

    @Test func nowIsTheStatementTimestamp() throws {
        let now = try FunctionRegistry.resolve(name: "now", argumentTypes: [])
        #expect(now.resultType == .timestamptz)
        #expect(!now.isDeterministic)
        let context = EvaluationContext(statementTimestamp: 42)
        #expect(try evaluate(now, [int32(1, 2)], context: context) == [.timestamptz(42), .timestamptz(42)])
    }

    @Test func dateTruncAndExtract() throws {
        // select date_trunc('month', timestamp '2020-05-17 10:00'), extract(epoch from timestamp '2020-01-01 12:00:00')
        let may17: Int64 = 1_589_709_600 * Self.micros
        #expect(try call("date_trunc", [text("month"), (.timestamp, [.timestamp(may17)])]) == [.timestamp(1_588_291_200 * Self.micros)])
        let noon: Int64 = 1_577_880_000 * Self.micros
        #expect(try call("extract", [text("epoch", "epoch"), (.timestamp, [.timestamp(noon), .null])]).map(\.textForm) == ["1577880000.000000", ""])
        #expect(try call("date_part", [text("hour"), (.timestamp, [.timestamp(noon)])]) == [.float64(12)])
        let error = sluiceError { _ = try call("date_trunc", [text("foo"), (.timestamp, [.timestamp(0)])]) }
        #expect(error?.code == .invalidParameterValue)
        #expect(error?.message == "unit \"foo\" not recognized for type timestamp without time zone")
    }

    @Test func makeDateAndToTimestamp() throws {
        #expect(try call("make_date", [int32(2020), int32(1), int32(5)]) == [.date(18266)])
        #expect(sluiceError { _ = try call("make_date", [int32(2023), int32(2), int32(30)]) }?.message == "date field value out of range: 2023-02-30")
        #expect(try call("to_timestamp", [float64(1.5)]) == [.timestamptz(1_500_000)])
        #expect(sluiceError { _ = try call("to_timestamp", [float64(.nan)]) }?.message == "timestamp cannot be NaN")
    }

    @Test func dateAndIntervalArithmetic() throws {
        #expect(try apply("+", (.date, [.date(10)]), int32(5)) == [.date(15)])
        #expect(try apply("-", (.date, [.date(10)]), (.date, [.date(3)])) == [.int32(7)])
        let oneMonth = Interval(months: 1)
        // timestamp '2020-01-31' + interval '1 month' = 2020-02-29
        let jan31: Int64 = 1_580_428_800 * Self.micros
        #expect(try apply("+", (.timestamp, [.timestamp(jan31)]), (.interval, [.interval(oneMonth)])) == [.timestamp(1_582_934_400 * Self.micros)])
        let dayPlus = try FunctionRegistry.resolveOperator("+", .date, .interval)
        #expect(dayPlus.resultType == .timestamp)
        #expect(try apply("-", (.interval, [.interval(Interval(days: 3))]), (.interval, [.interval(Interval(days: 1))])) == [.interval(Interval(days: 2))])
        #expect(try FunctionRegistry.resolveOperator("*", .interval, .int32).argumentTypes == [.interval, .float64])
        #expect(try FunctionRegistry.resolveOperator("-", .timestamp, .timestamp).resultType == .interval)
    }
}
