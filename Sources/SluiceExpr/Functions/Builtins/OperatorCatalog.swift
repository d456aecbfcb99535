import SluiceCore

/// The built-in operators: arithmetic and comparison on every pair of numeric types, string
/// concatenation and matching, jsonb access and date/time arithmetic.
enum OperatorCatalog {
    static func notUnique(_ symbol: String, _ left: DataType, _ right: DataType) -> SluiceError {
        SluiceError(
            SQLState("42725"), "operator is not unique: \(left.sqlName) \(symbol) \(right.sqlName)",
            hint: "Could not choose a best candidate operator. You might need to add explicit type casts.")
    }

    /// The operator `left symbol right`, nil when there is none.
    static func binary(_ symbol: String, _ left: DataType, _ right: DataType) throws(SluiceError) -> ScalarFunction? {
        switch symbol {
        case "+", "-", "*", "/", "%":
            if let temporal = TemporalOperators.binary(symbol, left, right) { return temporal }
            return try arithmetic(ArithmeticOperator(rawValue: symbol)!, left, right)
        case "^":
            guard isNumericOrUnknown(left), isNumericOrUnknown(right) else { return nil }
            return withArguments(MathFunctions.power("^"), [.float64, .float64])
        case "=", "<>", "!=", "<", "<=", ">", ">=":
            let op = ComparisonOperator(rawValue: symbol == "!=" ? "<>" : symbol)!
            if left == .unknown && right == .unknown { return ScalarFunction.comparison(op, .varchar) }
            guard let common = TypeCoercion.commonType(left, right) else { return nil }
            var function = ScalarFunction.comparison(op, common)
            function.argumentTypes = [castType(left, to: common), castType(right, to: common)]
            return function
        case "||":
            return concatenation(left, right)
        case "&", "|", "#":
            return bitwise(symbol, left, right)
        case "like", "~~", "not like", "!~~", "ilike", "~~*", "not ilike", "!~~*":
            guard isStringOrUnknown(left), isStringOrUnknown(right) else { return nil }
            let negated = symbol.hasPrefix("not") || symbol.hasPrefix("!")
            let caseInsensitive = symbol.hasSuffix("ilike") || symbol.hasSuffix("*")
            return PatternMatching.like(negated: negated, caseInsensitive: caseInsensitive)
        case "~", "~*", "!~", "!~*":
            guard isStringOrUnknown(left), isStringOrUnknown(right) else { return nil }
            return RegexFunctions.matchOperator(symbol)
        case "->", "->>":
            guard left == .jsonb || left == .unknown else { return nil }
            let asText = symbol == "->>"
            switch right {
            case .varchar, .unknown: return withArguments(JSONAccess.access(byIndex: false, asText: asText), [.jsonb, .varchar])
            case .int16, .int32: return withArguments(JSONAccess.access(byIndex: true, asText: asText), [.jsonb, .int32])
            default: return nil
            }
        case "#>", "#>>":
            guard left == .jsonb || left == .unknown, right == .list(.varchar) || right == .unknown else { return nil }
            return JSONFunctions.path(asText: symbol == "#>>")
        case "?":
            guard left == .jsonb || left == .unknown, isStringOrUnknown(right) else { return nil }
            return JSONFunctions.hasKey()
        default:
            return nil
        }
    }

    /// The prefix operator `symbol operand`, nil when there is none.
    static func unary(_ symbol: String, _ operand: DataType) throws(SluiceError) -> ScalarFunction? {
        if operand == .unknown && ["-", "+", "@"].contains(symbol) {
            throw SluiceError(
                SQLState("42725"), "operator is not unique: \(symbol) unknown",
                hint: "Could not choose a best candidate operator. You might need to add an explicit type cast.")
        }
        switch symbol {
        case "-":
            if case .decimal = operand { return MathFunctions.numericNegate(operand) }
            return ScalarFunction.negate(operand)
        case "+":
            guard operand.isNumeric || operand == .interval else { return nil }
            return ScalarFunction(name: "+", argumentTypes: [operand], resultType: operand) { (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
                arguments[0]
            }
        case "@":
            return MathFunctions.abs(operand)
        case "|/", "||/":
            guard isNumericOrUnknown(operand) else { return nil }
            let function = symbol == "|/" ? MathFunctions.sqrtFunction() : MathFunctions.cbrtFunction()
            return withArguments(function, [.float64])
        default:
            return nil
        }
    }

    /// `+ - * / %` on two numeric operands, computed in their common type: integer division
    /// truncates, `numeric` is exact, and `%` does not exist for floating point (as in Postgres).
    static func arithmetic(_ op: ArithmeticOperator, _ left: DataType, _ right: DataType) throws(SluiceError) -> ScalarFunction? {
        guard isNumericOrUnknown(left), isNumericOrUnknown(right) else { return nil }
        if left == .unknown && right == .unknown { throw notUnique(op.rawValue, left, right) }
        guard let common = TypeCoercion.commonType(left, right) else { return nil }
        switch common {
        case .decimal:
            let types = [castType(left, to: .numeric), castType(right, to: .numeric)]
            return MathFunctions.numericArithmetic(op.rawValue, op, types[0], types[1])
        case .float32 where op == .modulo, .float64 where op == .modulo:
            return nil
        default:
            guard let function = ScalarFunction.arithmetic(op, common) else { return nil }
            return withArguments(function, [common, common])
        }
    }

    /// `&`, `|` and `#` (and, or, exclusive or) on integers of the operands' common type.
    static func bitwise(_ symbol: String, _ left: DataType, _ right: DataType) -> ScalarFunction? {
        guard left.isInteger || left == .unknown, right.isInteger || right == .unknown else { return nil }
        let common: DataType?
        if left == .unknown {
            common = right == .unknown ? .int32 : right
        } else {
            common = right == .unknown ? left : TypeCoercion.commonType(left, right)
        }
        guard let common, common.isInteger else { return nil }
        @Sendable func combine(_ a: Int64, _ b: Int64) -> Int64 {
            switch symbol {
            case "&": return a & b
            case "|": return a | b
            default: return a ^ b
            }
        }
        return ScalarFunction(name: symbol, argumentTypes: [common, common], resultType: common) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.buildValues(rowCount: rowCount, type: common) { (rowIndex: Int) throws(SluiceError) -> Value in
                switch (arguments[0].value(at: rowIndex), arguments[1].value(at: rowIndex)) {
                case (.int16(let a), .int16(let b)): return .int16(Int16(truncatingIfNeeded: combine(Int64(a), Int64(b))))
                case (.int32(let a), .int32(let b)): return .int32(Int32(truncatingIfNeeded: combine(Int64(a), Int64(b))))
                case (.int64(let a), .int64(let b)): return .int64(combine(a, b))
                default: return .null
                }
            }
        }
    }

    /// `text || anything` and `anything || text`: the other operand is cast to text.
    static func concatenation(_ left: DataType, _ right: DataType) -> ScalarFunction? {
        switch (left, right) {
        case (.list(let element), .list(let other)) where element == other:
            return ArrayFunctions.concatenate(elementType: element, left: true, right: true)
        case (.list(let element), .unknown), (.unknown, .list(let element)):
            return ArrayFunctions.concatenate(elementType: element, left: true, right: true)
        case (.list(let element), let other) where other == element:
            return ArrayFunctions.concatenate(elementType: element, left: true, right: false)
        case (let other, .list(let element)) where other == element:
            return ArrayFunctions.concatenate(elementType: element, left: false, right: true)
        default:
            break
        }
        let leftIsText = left == .varchar || left == .unknown
        let rightIsText = right == .varchar || right == .unknown
        guard leftIsText || rightIsText else { return nil }
        if case .list = left { return nil }
        if case .list = right { return nil }
        return withArguments(StringFunctions.concatOperator(), [.varchar, .varchar])
    }

    /// The type to cast an operand of `type` to for a parameter of `target`: itself when they
    /// are the same type up to numeric precision and scale.
    static func castType(_ type: DataType, to target: DataType) -> DataType {
        TypeCoercion.isSameType(type, target) ? type : target
    }

    static func withArguments(_ function: ScalarFunction, _ types: [DataType]) -> ScalarFunction {
        var copy = function
        copy.argumentTypes = types
        return copy
    }

    static func isNumericOrUnknown(_ type: DataType) -> Bool { type.isNumeric || type == .unknown }
    static func isStringOrUnknown(_ type: DataType) -> Bool { type == .varchar || type == .unknown }
}
