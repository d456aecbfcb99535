import Testing
@testable import SluiceCore

@Suite("numeric arithmetic against PostgreSQL")
struct DecimalOracleTests {
    @Test("operators and rounding", arguments: decimalArithmeticCases)
    func arithmetic(_ row: [String]) {
        let (op, lhs, rhs) = (row[0], row[1], row[2])
        let actual = OracleResult { () throws(SluiceError) in
            let left = try Decimal(parsingText: lhs)
            let result: Decimal = switch op {
            case "+": try Decimal.adding(left, Decimal(parsingText: rhs))
            case "-": try Decimal.subtracting(left, Decimal(parsingText: rhs))
            case "*": try Decimal.multiplying(left, Decimal(parsingText: rhs))
            case "/": try Decimal.dividing(left, Decimal(parsingText: rhs))
            case "%": try Decimal.remainder(left, Decimal(parsingText: rhs))
            case "round": try left.rounded(scale: Int(rhs)!)
            case "trunc": try left.truncated(scale: Int(rhs)!)
            case "ceil": try left.ceiling()
            default: try left.floor()
            }
            return result.textForm
        }
        var expected = OracleResult(row[3])
        if case .ok(let text) = expected, significantDigits(text) > Decimal.maximumDigits {
            // Sluice keeps at most 38 digits where Postgres keeps up to 131072.
            expected = .error(code: "22003", message: "value overflows numeric format")
        }
        #expect(actual == expected, "\(lhs) \(op) \(rhs)")
    }

    @Test("avg and sum", arguments: decimalAverageCases)
    func average(_ row: [String]) throws {
        var accumulator = DecimalAccumulator()
        for item in row[0].split(separator: ",") { try accumulator.add(Decimal(parsingText: String(item))) }
        let average = try #require(try accumulator.average())
        #expect("\(average.textForm)|\(accumulator.total!.textForm)" == row[1])
    }

    @Test("float8::numeric and float4::numeric", arguments: floatToDecimalCases)
    func fromFloat(_ row: [String]) {
        let double = Double(row[0])!
        let expected = row[1].split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        let viaDouble = OracleResult { () throws(SluiceError) in try Decimal(double).textForm }
        let viaFloat = OracleResult { () throws(SluiceError) in try Decimal(Float(row[0])!).textForm }
        #expect(viaDouble == OracleResult(expected[0]), "\(row[0])::float8::numeric")
        #expect(viaFloat == OracleResult(expected[1]), "\(row[0])::float4::numeric")
    }

    @Test("numeric to integers", arguments: decimalToIntegerCases)
    func toIntegers(_ row: [String]) throws {
        let value = try Decimal(parsingText: row[0])
        let expected = row[1].split(separator: "|", omittingEmptySubsequences: false).map { OracleResult(String($0)) }
        #expect(OracleResult { () throws(SluiceError) in String(try value.int16Value()) } == expected[0])
        #expect(OracleResult { () throws(SluiceError) in String(try value.int32Value()) } == expected[1])
        #expect(OracleResult { () throws(SluiceError) in String(try value.int64Value()) } == expected[2])
    }
}

/// The number of digits of a numeric text without its leading zeros.
func significantDigits(_ text: String) -> Int {
    let digits = text.filter(\.isNumber).drop { $0 == "0" }
    return digits.count
}
