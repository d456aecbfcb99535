import SluiceCore
import Testing

@testable import SluiceExpr

/// Evaluates `function` over columns built from `columns` (type and values per argument) the
/// way the executor does, and returns the result values.
func evaluate(_ function: ScalarFunction, _ columns: [(DataType, [Value])], context: EvaluationContext = EvaluationContext()) throws -> [Value] {
    let built = columns.map { Column(type: $0.0, values: $0.1) }
    let chunk = Chunk(columns: built)
    let expression = ScalarExpr.call(function, built.enumerated().map { ScalarExpr.column($0.offset, $0.element.type) })
    return try ExpressionEvaluator.evaluate(expression, on: chunk, context: context).values
}

/// Resolves `name` for the given column types and evaluates it.
func call(_ name: String, _ columns: [(DataType, [Value])], context: EvaluationContext = EvaluationContext()) throws -> [Value] {
    let function = try FunctionRegistry.resolve(name: name, argumentTypes: columns.map(\.0))
    #expect(function.argumentTypes == columns.map(\.0), "\(name) asked for casts: \(function.argumentTypes)")
    return try evaluate(function, columns, context: context)
}

/// Resolves operator `symbol` for the given column types and evaluates it.
func apply(_ symbol: String, _ left: (DataType, [Value]), _ right: (DataType, [Value])) throws -> [Value] {
    let function = try FunctionRegistry.resolveOperator(symbol, left.0, right.0)
    return try evaluate(function, [left, right])
}

/// The SQLSTATE and message of the error `body` throws, or nil.
func sluiceError(_ body: () throws -> Void) -> SluiceError? {
    do {
        try body()
        return nil
    } catch let error as SluiceError {
        return error
    } catch {
        return nil
    }
}

func text(_ values: String?...) -> (DataType, [Value]) {
    (.varchar, values.map { $0.map(Value.string) ?? .null })
}

func int32(_ values: Int32?...) -> (DataType, [Value]) {
    (.int32, values.map { $0.map(Value.int32) ?? .null })
}

func float64(_ values: Double?...) -> (DataType, [Value]) {
    (.float64, values.map { $0.map(Value.float64) ?? .null })
}

func numeric(_ values: String?...) -> (DataType, [Value]) {
    (.numeric, values.map { value in value.map { try! Value(parsingText: $0, as: .numeric) } ?? .null })
}

func strings(_ values: String?...) -> [Value] {
    values.map { $0.map(Value.string) ?? .null }
}
