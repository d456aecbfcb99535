import Testing
@testable import SluiceCore

@Suite("Text input and output against PostgreSQL")
struct TextInputOracleTests {
    @Test("typinput then typoutput matches Postgres", arguments: textInputCases)
    func parseThenPrint(_ row: [String]) {
        let type = oracleType(row[0])
        let actual = OracleResult { () throws(SluiceError) in try Value(parsingText: row[1], as: type).textForm }
        #expect(actual == OracleResult(row[2]), "\(row[0]) input \"\(row[1])\"")
    }

    @Test("printed values parse back to the same value", arguments: textInputCases)
    func printedTextRoundTrips(_ row: [String]) throws {
        let type = oracleType(row[0])
        guard let value = try? Value(parsingText: row[1], as: type) else { return }
        let reparsed = try Value(parsingText: value.textForm, as: type)
        if case .float64(let double) = value, double.isNaN { return }
        if case .float32(let float) = value, float.isNaN { return }
        #expect(reparsed == value, "\(row[0]) \(value.textForm)")
    }
}

@Suite struct DateToTimestampRangeTests {
    /// Found by `sluice fuzz engine`: the last dates overflowed when converted to microseconds.
    /// PostgreSQL: SELECT '5874897-12-31'::date::timestamp → ERROR: date out of range for timestamp (22008).
    @Test func datesBeyondTheTimestampRangeAreAnError() throws {
        #expect(throws: SluiceError.self) { try TimestampArithmetic.timestamp(fromDate: Int32(TemporalUnits.dateEnd) - 1) }
        #expect(try TimestampArithmetic.timestamp(fromDate: 1) == 86_400_000_000)
        #expect(try TimestampArithmetic.timestamp(fromDate: Int32.max) == Int64.max)
    }
}
