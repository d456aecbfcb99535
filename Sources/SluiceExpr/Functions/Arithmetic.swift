import SluiceCore

/// The binary arithmetic operators.
package enum ArithmeticOperator: String, Sendable, CaseIterable {
    case add = "+"
    case subtract = "-"
    case multiply = "*"
    case divide = "/"
    case modulo = "%"
}

extension ScalarFunction {
    /// `lhs op rhs` for two integer or float operands of the same type.
    package static func integerArithmetic<T: FixedWidthInteger & PrimitiveElement>(
        _ op: ArithmeticOperator, _ type: DataType, _: T.Type
    ) -> ScalarFunction {
        let outOfRange = SluiceError(.numericValueOutOfRange, "\(type.sqlName == "integer" ? "integer" : type.sqlName) out of range")
        let divisionByZero = SluiceError(.divisionByZero, "division by zero")
        return ScalarFunction(name: op.rawValue, argumentTypes: [type, type], resultType: type) { (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            switch op {
            case .add:
                return try Kernels.binary(arguments[0], arguments[1], resultType: type) { (a: T, b: T) throws(SluiceError) -> T in
                    let (sum, overflow) = a.addingReportingOverflow(b)
                    if overflow { throw outOfRange }
                    return sum
                }
            case .subtract:
                return try Kernels.binary(arguments[0], arguments[1], resultType: type) { (a: T, b: T) throws(SluiceError) -> T in
                    let (difference, overflow) = a.subtractingReportingOverflow(b)
                    if overflow { throw outOfRange }
                    return difference
                }
            case .multiply:
                return try Kernels.binary(arguments[0], arguments[1], resultType: type) { (a: T, b: T) throws(SluiceError) -> T in
                    let (product, overflow) = a.multipliedReportingOverflow(by: b)
                    if overflow { throw outOfRange }
                    return product
                }
            case .divide:
                return try Kernels.binary(arguments[0], arguments[1], resultType: type) { (a: T, b: T) throws(SluiceError) -> T in
                    if b == 0 { throw divisionByZero }
                    let (quotient, overflow) = a.dividedReportingOverflow(by: b)
                    if overflow { throw outOfRange }
                    return quotient
                }
            case .modulo:
                return try Kernels.binary(arguments[0], arguments[1], resultType: type) { (a: T, b: T) throws(SluiceError) -> T in
                    if b == 0 { throw divisionByZero }
                    if b == -1 { return 0 }
                    return a % b
                }
            }
        }
    }

    /// `lhs op rhs` for two `double precision` or `real` operands.
    package static func floatArithmetic<T: BinaryFloatingPoint & PrimitiveElement>(
        _ op: ArithmeticOperator, _ type: DataType, _: T.Type
    ) -> ScalarFunction {
        let overflow = SluiceError(.numericValueOutOfRange, "value out of range: overflow")
        let divisionByZero = SluiceError(.divisionByZero, "division by zero")
        return ScalarFunction(name: op.rawValue, argumentTypes: [type, type], resultType: type) { (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.binary(arguments[0], arguments[1], resultType: type) { (a: T, b: T) throws(SluiceError) -> T in
                let result: T
                switch op {
                case .add: result = a + b
                case .subtract: result = a - b
                case .multiply: result = a * b
                case .divide:
                    if b == 0 { throw divisionByZero }
                    result = a / b
                case .modulo:
                    if b == 0 { throw divisionByZero }
                    result = a.truncatingRemainder(dividingBy: b)
                }
                if result.isInfinite && a.isFinite && b.isFinite { throw overflow }
                return result
            }
        }
    }

    /// Unary minus for a numeric type.
    package static func negate(_ type: DataType) -> ScalarFunction? {
        func integer<T: FixedWidthInteger & SignedInteger & PrimitiveElement>(_: T.Type) -> ScalarFunction {
            let outOfRange = SluiceError(.numericValueOutOfRange, "\(type.sqlName) out of range")
            return ScalarFunction(name: "-", argumentTypes: [type], resultType: type) { (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
                try Kernels.unary(arguments[0], resultType: type) { (value: T) throws(SluiceError) -> T in
                    if value == T.min { throw outOfRange }
                    return -value
                }
            }
        }
        switch type {
        case .int16: return integer(Int16.self)
        case .int32: return integer(Int32.self)
        case .int64: return integer(Int64.self)
        case .float32:
            return ScalarFunction(name: "-", argumentTypes: [type], resultType: type) { (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
                try Kernels.unary(arguments[0], resultType: type) { (value: Float) in -value }
            }
        case .float64:
            return ScalarFunction(name: "-", argumentTypes: [type], resultType: type) { (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
                try Kernels.unary(arguments[0], resultType: type) { (value: Double) in -value }
            }
        case .decimal:
            return ScalarFunction(name: "-", argumentTypes: [type], resultType: type) { (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
                try Kernels.unary(arguments[0], resultType: type) { (value: Decimal) in
                    Decimal(mantissa: -value.mantissa, scale: value.scale)
                }
            }
        case .interval:
            return ScalarFunction(name: "-", argumentTypes: [type], resultType: type) { (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
                try Kernels.unary(arguments[0], resultType: type) { (value: Interval) in
                    Interval(months: -value.months, days: -value.days, microseconds: -value.microseconds)
                }
            }
        default:
            return nil
        }
    }

    /// `lhs op rhs` for two operands of numeric type `type`, or nil if the type has no such operator.
    package static func arithmetic(_ op: ArithmeticOperator, _ type: DataType) -> ScalarFunction? {
        switch type {
        case .int16: integerArithmetic(op, type, Int16.self)
        case .int32: integerArithmetic(op, type, Int32.self)
        case .int64: integerArithmetic(op, type, Int64.self)
        case .float32: floatArithmetic(op, type, Float.self)
        case .float64: floatArithmetic(op, type, Double.self)
        default: nil
        }
    }
}
