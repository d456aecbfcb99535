import SluiceCore

/// Exact `numeric` functions and arithmetic on ``Decimal``, with Postgres's result scales.
extension MathFunctions {
    /// A `numeric → numeric` function; `type` is the argument's (possibly constrained) numeric type.
    static func numeric(_ name: String, _ type: DataType, _ operation: @escaping @Sendable (Decimal) throws(SluiceError) -> Decimal) -> ScalarFunction {
        ScalarFunction(name: name, argumentTypes: [type], resultType: .numeric) { (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.unary(arguments[0], resultType: .numeric, operation)
        }
    }

    /// `round(numeric)` (half away from zero), `trunc`, `floor`, `ceil`/`ceiling` to whole numbers.
    static func numericRounding(_ name: String, _ type: DataType, _ rule: Decimal.RoundingRule) -> ScalarFunction {
        numeric(name, type) { (value: Decimal) throws(SluiceError) -> Decimal in try value.rounded(scale: 0, rule: rule) }
    }

    /// `round(numeric, int)` and `trunc(numeric, int)`: to `n` fractional digits (negative `n`
    /// rounds to tens, hundreds, …); the result has scale `max(n, 0)`.
    static func numericRoundingToScale(_ name: String, _ type: DataType, _ rule: Decimal.RoundingRule) -> ScalarFunction {
        ScalarFunction(name: name, argumentTypes: [type, .int32], resultType: .numeric) { (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.binary(arguments[0], arguments[1], resultType: .numeric) { (value: Decimal, scale: Int32) throws(SluiceError) -> Decimal in
                // Postgres clamps the requested scale to the range numeric supports.
                try value.rounded(scale: Int(max(-1000, min(1000, scale))), rule: rule)
            }
        }
    }

    static func numericSign(_ type: DataType) -> ScalarFunction {
        numeric("sign", type) { (value: Decimal) throws(SluiceError) -> Decimal in value.isNaN ? .nan : Decimal(Int64(value.signum)) }
    }

    /// `numeric op numeric` (`+ - * / %`) and `mod`, exact, at Postgres's scales.
    static func numericArithmetic(_ name: String, _ op: ArithmeticOperator, _ left: DataType, _ right: DataType) -> ScalarFunction {
        ScalarFunction(name: name, argumentTypes: [left, right], resultType: .numeric) { (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            if let result = try DecimalKernels.arithmetic(op, arguments[0], arguments[1]) { return result }
            return try Kernels.binary(arguments[0], arguments[1], resultType: .numeric) { (a: Decimal, b: Decimal) throws(SluiceError) -> Decimal in
                switch op {
                case .add: try Decimal.adding(a, b)
                case .subtract: try Decimal.subtracting(a, b)
                case .multiply: try Decimal.multiplying(a, b)
                case .divide: try Decimal.dividing(a, b)
                case .modulo: try Decimal.remainder(a, b)
                }
            }
        }
    }

    /// `scale(numeric)`: the digits after the decimal point as stored; `min_scale(numeric)`: the
    /// fewest that show the value exactly. Both are NULL for NaN and the infinities.
    static func numericScale(_ name: String, _ type: DataType, minimal: Bool) -> ScalarFunction {
        ScalarFunction(name: name, argumentTypes: [type], resultType: .int32) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.buildValues(rowCount: rowCount, type: .int32) { (rowIndex: Int) throws(SluiceError) -> Value in
                guard case .decimal(let value) = arguments[0].value(at: rowIndex), value.isFinite else { return .null }
                return .int32(Int32(max(minimal ? value.normalized.scale : value.scale, 0)))
            }
        }
    }

    /// `trim_scale(numeric)`: the value without trailing fractional zeros.
    static func numericTrimScale(_ type: DataType) -> ScalarFunction {
        numeric("trim_scale", type) { (value: Decimal) throws(SluiceError) -> Decimal in value.isSpecial ? value : value.normalized }
    }

    static func numericNegate(_ type: DataType) -> ScalarFunction {
        numeric("-", type) { (value: Decimal) throws(SluiceError) -> Decimal in value.negated }
    }
}
