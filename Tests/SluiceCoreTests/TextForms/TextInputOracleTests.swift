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
