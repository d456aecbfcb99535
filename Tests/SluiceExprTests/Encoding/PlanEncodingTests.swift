import SluiceCore
import Testing

@testable import SluiceExpr

/// The parts of a stored plan below the plan nodes: varints, types, values, expressions and
/// function origins written and read back, and bytes that are not what was written refused.
@Suite struct PlanEncodingTests {
    static func bytes(_ value: some PlanCodable) throws -> [UInt8] {
        var writer = PlanWriter()
        try value.encode(into: &writer)
        return writer.bytes
    }

    static func readBack<T: PlanCodable>(_ value: T) throws -> T {
        var reader = PlanReader(try bytes(value))
        let read = try T(from: &reader)
        #expect(reader.isAtEnd)
        return read
    }

    @Test func integersKeepTheirExtremes() throws {
        let values: [Int64] = [0, 1, -1, 63, -64, 64, 300, -300, .max, .min, .max - 1, .min + 1]
        var writer = PlanWriter()
        for value in values { writer.write(int64: value) }
        writer.write(unsigned: .max)
        var reader = PlanReader(writer.bytes)
        for value in values { #expect(try reader.readInt64() == value) }
        #expect(try reader.readUnsigned() == .max)
        #expect(reader.isAtEnd)
        // Eleven continuation bytes overflow 64 bits; a count past the bytes left is refused.
        var overlong = PlanReader(Array(repeating: 0xFF, count: 11) + [0])
        #expect(throws: SluiceError.self) { try overlong.readUnsigned() }
        var counted = PlanReader([5, 1, 2])
        #expect(throws: SluiceError.self) { try counted.readCount() }
        var narrow = PlanReader({ var w = PlanWriter(); w.write(int64: 70_000); return w.bytes }())
        #expect(throws: SluiceError.self) { try narrow.readInteger(Int16.self) }
    }

    @Test func everyTypeReadsBack() throws {
        let types: [DataType] = [
            .boolean, .int16, .int32, .int64, .float32, .float64, .numeric, .decimal(precision: 10, scale: 2), .decimal(precision: 5, scale: nil),
            .varchar, .date, .time, .timestamp, .timestamptz, .interval, .jsonb, .bytea, .unknown, .list(.list(.int32)),
            .structure([StructField(name: "a", type: .int64), StructField(name: "b", type: .list(.varchar))]),
        ]
        for type in types { #expect(try Self.readBack(type) == type) }
    }

    @Test func everyValueReadsBackToTheSameBytes() throws {
        let values: [Value] = [
            .null, .bool(true), .int16(-7), .int32(.min), .int64(.max), .float32(-0.0), .float32(.nan), .float64(.infinity), .float64(.nan),
            .decimal(Decimal(mantissa: -12345, scale: 2)), .decimal(.nan), .decimal(Decimal(mantissa: Int128.max, scale: 0)), .string("é ☃"),
            .date(-1), .time(86_399_999_999), .timestamp(.min), .timestamptz(1_700_000_000_000_000),
            .interval(Interval(months: -1, days: 2, microseconds: -3)), .jsonb("{\"a\":1}"), .bytea([0, 255]),
            .structure([.int32(1), .null]), .list([.list([.string("x")]), .null]),
        ]
        for value in values {
            let read = try Self.readBack(value)
            #expect(try Self.bytes(read) == Self.bytes(value), "\(value)")
        }
    }

    /// An example of every origin, each as it is set at its entry point.
    static func functions() throws -> [ScalarFunction] {
        [
            try FunctionRegistry.resolve(name: "upper", argumentTypes: [.varchar]),
            try FunctionRegistry.resolve(name: "round", argumentTypes: [.numeric, .unknown]),
            try FunctionRegistry.resolve(name: "concat", argumentTypes: [.varchar, .int32]),
            try FunctionRegistry.resolve(name: "tumble_start", argumentTypes: [.timestamptz, .interval, .interval]),
            try FunctionRegistry.resolveOperator("+", .int32, .int64),
            try FunctionRegistry.resolveOperator("like", .varchar, .varchar),
            try FunctionRegistry.resolveOperator("->>", .jsonb, .varchar),
            try FunctionRegistry.resolveUnary("-", .numeric),
            .comparison(.lessOrEqual, .timestamptz),
            .distinctFrom(.int32, negated: true),
            ArrayFunctions.constructor(elementType: .int64, count: 3),
            ArrayFunctions.quantified(.equal, all: false, elementType: .varchar),
            ArrayFunctions.toString(elementType: .int32),
            ArrayFunctions.element(elementType: .int32),
            ArrayFunctions.slice(elementType: .int32, hasLower: true, hasUpper: false),
            ArrayFunctions.upperBound(elementType: .int32, name: "array_length"),
            ArrayFunctions.cardinality(elementType: .varchar),
            TimeZoneFunctions.atTimeZone(.timestamptz, zoneType: .varchar),
            TimeWindows.end(.timestamptz, size: 60_000_000),
            TimeWindows.hopStarts(.timestamp, slide: 5_000_000, size: 20_000_000, offset: 1_000_000),
            TimeWindows.cumulateEnds(.timestamptz, step: 5_000_000, size: 20_000_000, offset: 0),
            JSONFunctions.arrayElements(asText: true),
            JSONFunctions.members(asText: false, keysOnly: false),
            StatisticalAggregate.deviationPopulation.finish(sumType: .float64),
            OrderedSetAggregate.mode.finish(elementType: .varchar),
            JSONFunctions.buildObject([.varchar, .int32]),
            StructFunctions.constructor([.int32, .varchar]),
            StructFunctions.field(1, of: .structure([StructField(name: "a", type: .int32), StructField(name: "b", type: .varchar)])),
            SetReturningFunctions.subscripts(of: .list(.int32)),
            SetReturningFunctions.series(count: 3),
            SetReturningFunctions.expandArray(elementType: .int32).function,
            SetReturningFunctions.field(0, of: .structure([StructField(name: "x", type: .int32)])),
            GroupingFunctions.grouping(masks: [0, 1, 3]),
            GroupingFunctions.copiesArray(intersect: false, all: true),
        ]
    }

    @Test func everyOriginRebuildsItsFunction() throws {
        for function in try Self.functions() {
            let origin = try #require(function.origin, "\(function)")
            let rebuilt = try ScalarFunction(replaying: origin)
            #expect(rebuilt == function && rebuilt.origin == origin && rebuilt.isDeterministic == function.isDeterministic, "\(function)")
            #expect(try Self.readBack(origin) == origin)
            let read = try Self.readBack(function)
            #expect(read == function && read.origin == origin)
        }
    }

    @Test func originsTheFactoriesWouldTrapOnAreRefused() {
        let origins: [FunctionOrigin] = [
            .structField(2, type: .structure([StructField(name: "a", type: .int32)])), .structField(0, type: .int32),
            .setReturningField(0, elementType: .varchar), .series(count: 1), .jsonBuildObject(argumentTypes: [.varchar]),
            .hopStarts(.timestamp, slide: 0, size: 10, offset: 0), .hopStarts(.timestamp, slide: 3, size: 10, offset: 0),
            .cumulateEnds(.timestamp, step: 0, size: 10, offset: 0), .cumulateEnds(.timestamp, step: 3, size: 10, offset: 0),
        ]
        for origin in origins {
            #expect(throws: SluiceError.self, "\(origin)") { try ScalarFunction(replaying: origin) }
        }
    }

    @Test func aFunctionWithoutOriginCannotBeStored() {
        let made = ScalarFunction(name: "made_here", argumentTypes: [], resultType: .int32) {
            (_: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            Column(type: .int32, repeating: .int32(1), count: rowCount)
        }
        #expect(throws: SluiceError.self) { try Self.bytes(made) }
    }

    @Test func aFunctionThatRebuildsDifferentlyIsRefused() throws {
        // Written as `upper(varchar) -> varchar`, but its origin now resolves `lower`.
        var writer = PlanWriter()
        writer.write(string: "upper")
        try writer.write(list: [DataType.varchar])
        try DataType.varchar.encode(into: &writer)
        try FunctionOrigin.function(name: "lower", argumentTypes: [.varchar]).encode(into: &writer)
        var reader = PlanReader(writer.bytes)
        #expect(throws: SluiceError.self) { try ScalarFunction(from: &reader) }
    }

    @Test func expressionsReadBackAndDeepNestingIsRefused() throws {
        let column = ScalarExpr.column(0, .int32)
        let sum = ScalarExpr.call(try FunctionRegistry.resolveOperator("+", .int32, .int32), [column, .literal(.int32(1), .int32)])
        let expression = ScalarExpr.caseWhen(
            [CaseBranch(condition: .isNull(column, negated: true), result: .cast(sum, .varchar))],
            otherwise: .coalesce([.literal(.null, .varchar), .literal(.string("x"), .varchar)], .varchar), .varchar)
        let both = ScalarExpr.and([.or([.not(.isNull(column, negated: false)), .literal(.bool(false), .boolean)]), .literal(.bool(true), .boolean)])
        for value in [expression, both] {
            #expect(try Self.readBack(value) == value)
        }
        var deep = column
        for _ in 0 ..< 1_000 { deep = .not(deep) }
        var reader = PlanReader(try Self.bytes(deep))
        #expect(throws: SluiceError.self) { try ScalarExpr(from: &reader) }
    }
}
