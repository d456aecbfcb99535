import SluiceCore
import Testing

@testable import SluiceExpr

@Suite struct MathFunctionsTests {
    @Test func roundingFloatIsHalfEvenNumericHalfAwayFromZero() throws {
        #expect(try call("round", [float64(2.5, -2.5, 3.5, nil)]) == [.float64(2), .float64(-2), .float64(4), .null])
        #expect(try call("round", [numeric("2.5", "-2.5")]).map(\.textForm) == ["3", "-3"])
        #expect(try call("round", [numeric("2.345", "1234.5", "-1234.5", "2.5"), int32(2, -2, -1, 0)]).map(\.textForm) == ["2.35", "1200", "-1230", "3"])
        #expect(try call("trunc", [numeric("2.789", "1234.567"), int32(1, -2)]).map(\.textForm) == ["2.7", "1200"])
        #expect(try call("floor", [numeric("-2.5")]).map(\.textForm) == ["-3"])
        #expect(try call("ceil", [float64(2.1)]) == [.float64(3)])
        #expect(try call("sign", [numeric("-2.5")]).map(\.textForm) == ["-1"])
    }

    @Test func modAndAbs() throws {
        #expect(try call("mod", [int32(-7), int32(3)]) == [.int32(-1)])
        #expect(try call("mod", [numeric("7.5", "-7.5"), numeric("2", "2")]).map(\.textForm) == ["1.5", "-1.5"])
        #expect(sluiceError { _ = try call("mod", [int32(1), int32(0)]) }?.code == .divisionByZero)
        #expect(try call("abs", [int32(-3, nil)]) == [.int32(3), .null])
        #expect(sluiceError { _ = try call("abs", [int32(Int32.min)]) }?.message == "integer out of range")
    }

    @Test func domainErrorsUsePostgresStates() throws {
        let sqrt = sluiceError { _ = try call("sqrt", [float64(-1)]) }
        #expect(sqrt?.code == SQLState("2201F"))
        #expect(sqrt?.message == "cannot take square root of a negative number")
        #expect(sluiceError { _ = try call("ln", [float64(0)]) }?.message == "cannot take logarithm of zero")
        #expect(sluiceError { _ = try call("log", [float64(-1)]) }?.code == SQLState("2201E"))
        #expect(sluiceError { _ = try call("power", [float64(10), float64(400)]) }?.code == .numericValueOutOfRange)
        #expect(sluiceError { _ = try call("power", [float64(0), float64(-1)]) }?.message == "zero raised to a negative power is undefined")
        #expect(sluiceError { _ = try call("exp", [float64(-1000)]) }?.message == "value out of range: underflow")
        #expect(sluiceError { _ = try call("asin", [float64(2)]) }?.message == "input is out of range")
    }

    @Test func transcendentalFunctions() throws {
        #expect(try call("sqrt", [float64(2)]) == [.float64(1.4142135623730951)])
        #expect(try call("cbrt", [float64(27)]) == [.float64(3.0000000000000004)] || (try call("cbrt", [float64(27)])) == [.float64(3)])
        #expect(try call("degrees", [float64(Double.pi)]) == [.float64(180)])
        #expect(try call("atan2", [float64(1), float64(1)]) == [.float64(0.7853981633974483)])
        #expect(try call("log", [float64(100)]) == [.float64(2)])
        #expect(try evaluate(FunctionRegistry.resolve(name: "pi", argumentTypes: []), [(.int32, [.int32(0)])]) == [.float64(Double.pi)])
    }

    @Test func randomIsNotDeterministic() throws {
        let random = try FunctionRegistry.resolve(name: "random", argumentTypes: [])
        #expect(!random.isDeterministic)
        let values = try evaluate(random, [int32(1, 2, 3)])
        #expect(values.allSatisfy { if case .float64(let v) = $0 { v >= 0 && v < 1 } else { false } })
    }

    @Test func greatestLeastIgnoreNulls() throws {
        let greatest = try FunctionRegistry.resolve(name: "greatest", argumentTypes: [.int32, .numeric])
        #expect(greatest.argumentTypes == [.numeric, .numeric])
        #expect(try call("least", [int32(3, nil, nil), int32(nil, 2, nil), int32(1, 5, nil)]) == [.int32(1), .int32(2), .null])
        #expect(try call("greatest", [text("b", nil), text("a", "x")]) == strings("b", "x"))
        #expect(try call("nullif", [int32(1, 2, nil), int32(1, 3, 1)]) == [.null, .int32(2), .null])
    }

    @Test func numericArithmeticIsExact() throws {
        #expect(try apply("+", numeric("1.10"), numeric("2.205")).map(\.textForm) == ["3.305"])
        #expect(try apply("/", numeric("1"), numeric("3")).map(\.textForm) == ["0.33333333333333333333"])
        #expect(try apply("/", int32(7, -7), int32(2, 2)) == [.int32(3), .int32(-3)])
    }
}
