import SluiceCore
import Testing

@testable import SluiceExpr

@Suite struct FunctionRegistryTests {
    @Test func resultTypesFollowPostgres() throws {
        // select pg_typeof(sign(-5)), pg_typeof(round(5)), pg_typeof(abs(2::int2)), pg_typeof(mod(5, 2.5)),
        //        pg_typeof(power(2,3)), pg_typeof(round(2.5::real)), pg_typeof(mod(5::int2, 2))
        #expect(try FunctionRegistry.resolve(name: "sign", argumentTypes: [.int32]).resultType == .float64)
        #expect(try FunctionRegistry.resolve(name: "round", argumentTypes: [.int32]).argumentTypes == [.float64])
        #expect(try FunctionRegistry.resolve(name: "abs", argumentTypes: [.int16]).resultType == .int16)
        #expect(try FunctionRegistry.resolve(name: "mod", argumentTypes: [.int32, .numeric]).resultType == .numeric)
        #expect(try FunctionRegistry.resolve(name: "power", argumentTypes: [.int32, .int32]).resultType == .float64)
        #expect(try FunctionRegistry.resolve(name: "round", argumentTypes: [.float32]).resultType == .float64)
        #expect(try FunctionRegistry.resolve(name: "mod", argumentTypes: [.int16, .int32]).resultType == .int32)
        #expect(try FunctionRegistry.resolve(name: "abs", argumentTypes: [.float32]).resultType == .float32)
    }

    @Test func castsRequestedForArguments() throws {
        let substr = try FunctionRegistry.resolve(name: "substr", argumentTypes: [.unknown, .int16])
        #expect(substr.argumentTypes == [.varchar, .int32])
        let round = try FunctionRegistry.resolve(name: "round", argumentTypes: [.decimal(precision: 10, scale: 2), .int32])
        #expect(round.argumentTypes == [.decimal(precision: 10, scale: 2), .int32])
        #expect(round.resultType == .numeric)
        let length = try FunctionRegistry.resolve(name: "length", argumentTypes: [.unknown])
        #expect(length.argumentTypes == [.varchar])
        let abs = try FunctionRegistry.resolve(name: "abs", argumentTypes: [.unknown])
        #expect(abs.argumentTypes == [.float64])
    }

    @Test func unknownFunctionOrSignatureIs42883() {
        let error = sluiceError { _ = try FunctionRegistry.resolve(name: "upper", argumentTypes: [.int32]) }
        #expect(error?.code == .undefinedFunction)
        #expect(error?.message == "function upper(integer) does not exist")
        #expect(error?.hint == "No function matches the given name and argument types. You might need to add explicit type casts.")
        #expect(sluiceError { _ = try FunctionRegistry.resolve(name: "nosuch", argumentTypes: []) }?.message == "function nosuch() does not exist")
        #expect(sluiceError { _ = try FunctionRegistry.resolve(name: "round", argumentTypes: [.float64, .int32]) }?.code == .undefinedFunction)
    }

    @Test func arithmeticOperatorsPromote() throws {
        let mixed = try FunctionRegistry.resolveOperator("+", .int32, .int64)
        #expect(mixed.argumentTypes == [.int64, .int64])
        #expect(mixed.resultType == .int64)
        let numeric = try FunctionRegistry.resolveOperator("*", .int32, .decimal(precision: 10, scale: 2))
        #expect(numeric.argumentTypes == [.numeric, .decimal(precision: 10, scale: 2)])
        #expect(numeric.resultType == .numeric)
        #expect(try FunctionRegistry.resolveOperator("-", .float32, .float64).resultType == .float64)
        #expect(try FunctionRegistry.resolveOperator("^", .int32, .int32).resultType == .float64)
        #expect(try FunctionRegistry.resolveOperator("+", .unknown, .int32).argumentTypes == [.int32, .int32])
        let noOperator = sluiceError { _ = try FunctionRegistry.resolveOperator("||", .int32, .int32) }
        #expect(noOperator?.code == .undefinedFunction)
        #expect(noOperator?.message == "operator does not exist: integer || integer")
        #expect(sluiceError { _ = try FunctionRegistry.resolveOperator("%", .float64, .float64) }?.code == .undefinedFunction)
    }

    @Test func comparisonsUseTheCommonType() throws {
        let compare = try FunctionRegistry.resolveOperator("<", .int16, .float64)
        #expect(compare.argumentTypes == [.float64, .float64])
        #expect(compare.resultType == .boolean)
        #expect(try FunctionRegistry.resolveOperator("=", .date, .timestamptz).argumentTypes == [.timestamptz, .timestamptz])
        #expect(sluiceError { _ = try FunctionRegistry.resolveOperator("=", .int32, .varchar) }?.code == .undefinedFunction)
    }

    @Test func unaryOperators() throws {
        #expect(try FunctionRegistry.resolveUnary("-", .int32).resultType == .int32)
        #expect(try FunctionRegistry.resolveUnary("@", .float64).name == "abs")
        #expect(try FunctionRegistry.resolveUnary("|/", .int32).argumentTypes == [.float64])
        #expect(sluiceError { _ = try FunctionRegistry.resolveUnary("-", .varchar) }?.message == "operator does not exist: - character varying")
    }

    @Test func commonTypeFollowsPostgresRules() throws {
        #expect(try FunctionRegistry.commonType(.int16, .int64, context: "CASE") == .int64)
        #expect(try FunctionRegistry.commonType(.int64, .numeric, context: "CASE") == .numeric)
        #expect(try FunctionRegistry.commonType(.numeric, .float32, context: "CASE") == .float32)
        #expect(try FunctionRegistry.commonType(.unknown, .date, context: "CASE") == .date)
        #expect(try FunctionRegistry.commonType(.date, .timestamp, context: "CASE") == .timestamp)
        #expect(try FunctionRegistry.commonType(.timestamp, .timestamptz, context: "CASE") == .timestamptz)
        #expect(try FunctionRegistry.commonType(.unknown, .unknown, context: "CASE") == .varchar)
        #expect(try FunctionRegistry.commonType(.decimal(precision: 10, scale: 2), .decimal(precision: 5, scale: 1), context: "CASE") == .numeric)
        let error = sluiceError { _ = try FunctionRegistry.commonType(.int32, .varchar, context: "UNION") }
        #expect(error?.code == .datatypeMismatch)
        #expect(error?.message == "UNION types integer and character varying cannot be matched")
    }
}
