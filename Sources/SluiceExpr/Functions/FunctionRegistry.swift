import SluiceCore

/// Resolves built-in functions and operators by name and argument types.
package enum FunctionRegistry {
    static let numericRank: [DataType: Int] = [.int16: 0, .int32: 1, .int64: 2, .numeric: 3, .float32: 4, .float64: 5]

    package static func commonType(_ a: DataType, _ b: DataType, context: String) throws(SluiceError) -> DataType {
        if a == b { return a }
        if a == .unknown { return b }
        if b == .unknown { return a }
        if a.isNumeric && b.isNumeric {
            let rankA = numericRank[rankKey(a)] ?? 3
            let rankB = numericRank[rankKey(b)] ?? 3
            return rankA >= rankB ? (rankKey(a) == .numeric ? .numeric : a) : (rankKey(b) == .numeric ? .numeric : b)
        }
        switch (a, b) {
        case (.date, .timestamp), (.timestamp, .date): return .timestamp
        case (.date, .timestamptz), (.timestamptz, .date), (.timestamp, .timestamptz), (.timestamptz, .timestamp): return .timestamptz
        default:
            throw SluiceError(.datatypeMismatch, "\(context) types \(a.sqlName) and \(b.sqlName) cannot be matched")
        }
    }

    static func rankKey(_ type: DataType) -> DataType {
        if case .decimal = type { return .numeric }
        return type
    }

    package static func resolve(name: String, argumentTypes: [DataType]) throws(SluiceError) -> ScalarFunction {
        throw SluiceError(
            .undefinedFunction, "function \(name)(\(argumentTypes.map(\.sqlName).joined(separator: ", "))) does not exist",
            hint: "No function matches the given name and argument types. You might need to add explicit type casts.")
    }

    package static func resolveOperator(_ symbol: String, _ left: DataType, _ right: DataType) throws(SluiceError) -> ScalarFunction {
        if let op = ComparisonOperator(rawValue: symbol == "!=" ? "<>" : symbol) {
            let type = try commonType(left, right, context: "operator")
            return .comparison(op, type)
        }
        if let op = ArithmeticOperator(rawValue: symbol), left.isNumeric, right.isNumeric {
            let type = try commonType(left, right, context: "operator")
            if let function = ScalarFunction.arithmetic(op, type) { return function }
        }
        throw SluiceError(
            .undefinedFunction, "operator does not exist: \(left.sqlName) \(symbol) \(right.sqlName)",
            hint: "No operator matches the given name and argument types. You might need to add explicit type casts.")
    }

    package static func resolveUnary(_ symbol: String, _ operand: DataType) throws(SluiceError) -> ScalarFunction {
        if symbol == "-", let function = ScalarFunction.negate(operand) { return function }
        throw SluiceError(.undefinedFunction, "operator does not exist: \(symbol) \(operand.sqlName)")
    }
}
