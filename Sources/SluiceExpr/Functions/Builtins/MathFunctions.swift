#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import SluiceCore

/// Postgres mathematical functions on `double precision` and the integer types, with
/// Postgres's domain errors (`float.c`, `int.c`).
enum MathFunctions {
    typealias DoubleOperation = @Sendable (Double) throws(SluiceError) -> Double

    static let overflow = SluiceError(.numericValueOutOfRange, "value out of range: overflow")
    static let underflow = SluiceError(.numericValueOutOfRange, "value out of range: underflow")
    static let inputOutOfRange = SluiceError(.numericValueOutOfRange, "input is out of range")

    /// A `double precision → double precision` function.
    static func float(_ name: String, _ operation: @escaping DoubleOperation) -> ScalarFunction {
        ScalarFunction(name: name, argumentTypes: [.float64], resultType: .float64) { (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.unary(arguments[0], resultType: .float64, operation)
        }
    }

    /// A `(double precision, double precision) → double precision` function.
    static func float2(_ name: String, _ operation: @escaping @Sendable (Double, Double) throws(SluiceError) -> Double) -> ScalarFunction {
        ScalarFunction(name: name, argumentTypes: [.float64, .float64], resultType: .float64) { (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.binary(arguments[0], arguments[1], resultType: .float64, operation)
        }
    }

    /// Checks a result the way Postgres's `float_overflow_error`/`float_underflow_error` do.
    @inline(__always)
    static func checked(_ result: Double, _ input: Double, zeroAllowed: Bool) throws(SluiceError) -> Double {
        if result.isInfinite && input.isFinite { throw overflow }
        if result == 0 && !zeroAllowed { throw underflow }
        return result
    }

    static func sqrtFunction() -> ScalarFunction {
        float("sqrt") { (value: Double) throws(SluiceError) -> Double in
            if value < 0 { throw SluiceError(SQLState("2201F"), "cannot take square root of a negative number") }
            return value.squareRoot()
        }
    }

    static func cbrtFunction() -> ScalarFunction {
        float("cbrt") { (value: Double) throws(SluiceError) -> Double in cbrt(value) }
    }

    static func expFunction() -> ScalarFunction {
        float("exp") { (value: Double) throws(SluiceError) -> Double in
            let result = exp(value)
            return try checked(result, value, zeroAllowed: value.isInfinite || value.isNaN)
        }
    }

    /// `ln` and `log` (base 10).
    static func logarithm(_ name: String, base10: Bool) -> ScalarFunction {
        float(name) { (value: Double) throws(SluiceError) -> Double in
            if value == 0 { throw SluiceError(SQLState("2201E"), "cannot take logarithm of zero") }
            if value < 0 { throw SluiceError(SQLState("2201E"), "cannot take logarithm of a negative number") }
            return base10 ? log10(value) : log(value)
        }
    }

    /// `log(base, x)`: Postgres has it for numeric only; Sluice computes it in double precision.
    static func logarithmWithBase() -> ScalarFunction {
        float2("log") { (base: Double, value: Double) throws(SluiceError) -> Double in
            if base == 0 || value == 0 { throw SluiceError(SQLState("2201E"), "cannot take logarithm of zero") }
            if base < 0 || value < 0 { throw SluiceError(SQLState("2201E"), "cannot take logarithm of a negative number") }
            if base == 1 { throw SluiceError(.divisionByZero, "division by zero") }
            return log(value) / log(base)
        }
    }

    /// `power`/`pow` and the `^` operator (`dpow`).
    static func power(_ name: String) -> ScalarFunction {
        float2(name) { (base: Double, exponent: Double) throws(SluiceError) -> Double in
            if base == 0 && exponent < 0 { throw SluiceError(SQLState("2201F"), "zero raised to a negative power is undefined") }
            if base < 0 && exponent.isFinite && exponent.rounded(.towardZero) != exponent {
                throw SluiceError(SQLState("2201F"), "a negative number raised to a non-integer power yields a complex result")
            }
            let result = pow(base, exponent)
            if result.isInfinite && base.isFinite && exponent.isFinite { throw overflow }
            if result == 0 && base != 0 && base.isFinite && exponent.isFinite { throw underflow }
            return result
        }
    }

    /// `sin`, `cos`, `tan`, `asin`, `acos`, `atan` and `cot`.
    static func trigonometric(_ name: String) -> ScalarFunction? {
        let body: (@Sendable (Double) -> Double)?
        var domain: ClosedRange<Double> = -Double.infinity ... Double.infinity
        var finiteOnly = true
        switch name {
        case "sin": body = { sin($0) }
        case "cos": body = { cos($0) }
        case "tan": body = { tan($0) }
        case "cot": body = { 1 / tan($0) }
        case "asin": body = { asin($0) }; domain = -1 ... 1
        case "acos": body = { acos($0) }; domain = -1 ... 1
        case "atan": body = { atan($0) }; finiteOnly = false
        default: body = nil
        }
        guard let body else { return nil }
        return float(name) { [domain, finiteOnly] (value: Double) throws(SluiceError) -> Double in
            if value.isNaN { return .nan }
            if (finiteOnly && value.isInfinite) || !domain.contains(value) { throw inputOutOfRange }
            return body(value)
        }
    }

    static func atan2Function() -> ScalarFunction {
        float2("atan2") { (y: Double, x: Double) throws(SluiceError) -> Double in atan2(y, x) }
    }

    static func degreesFunction() -> ScalarFunction {
        float("degrees") { (value: Double) throws(SluiceError) -> Double in try checked(value * (180 / Double.pi), value, zeroAllowed: true) }
    }

    static func radiansFunction() -> ScalarFunction {
        float("radians") { (value: Double) throws(SluiceError) -> Double in try checked(value * (Double.pi / 180), value, zeroAllowed: true) }
    }

    /// `round`, `trunc`, `floor`, `ceil`/`ceiling` on double precision; `round` is `rint` (half to even).
    static func rounding(_ name: String, _ rule: FloatingPointRoundingRule) -> ScalarFunction {
        float(name) { (value: Double) throws(SluiceError) -> Double in value.rounded(rule) }
    }

    static func signFunction() -> ScalarFunction {
        float("sign") { (value: Double) throws(SluiceError) -> Double in value > 0 ? 1 : (value < 0 ? -1 : 0) }
    }

    static func pi() -> ScalarFunction {
        ScalarFunction(name: "pi", argumentTypes: [], resultType: .float64) { (_: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            Column(type: .float64, storage: .float64([Double](repeating: Double.pi, count: rowCount)))
        }
    }

    /// `random()`: uniform in [0, 1), different per row and per call.
    static func random() -> ScalarFunction {
        ScalarFunction(name: "random", argumentTypes: [], resultType: .float64, isDeterministic: false) { (_: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            var generator = SystemRandomNumberGenerator()
            var values = [Double]()
            values.reserveCapacity(rowCount)
            for _ in 0 ..< rowCount { values.append(Double.random(in: 0 ..< 1, using: &generator)) }
            return Column(type: .float64, storage: .float64(values))
        }
    }

    /// `abs` for integers, floats and numeric; `abs(integer minimum)` overflows as in Postgres.
    static func abs(_ type: DataType) -> ScalarFunction? {
        func integer<T: FixedWidthInteger & SignedInteger & PrimitiveElement>(_: T.Type) -> ScalarFunction {
            let outOfRange = SluiceError(.numericValueOutOfRange, "\(type.sqlName) out of range")
            return ScalarFunction(name: "abs", argumentTypes: [type], resultType: type) { (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
                try Kernels.unary(arguments[0], resultType: type) { (value: T) throws(SluiceError) -> T in
                    if value == T.min { throw outOfRange }
                    return value < 0 ? -value : value
                }
            }
        }
        switch type {
        case .int16: return integer(Int16.self)
        case .int32: return integer(Int32.self)
        case .int64: return integer(Int64.self)
        case .float32:
            return ScalarFunction(name: "abs", argumentTypes: [type], resultType: type) { (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
                try Kernels.unary(arguments[0], resultType: type) { (value: Float) in Swift.abs(value) }
            }
        case .float64:
            return ScalarFunction(name: "abs", argumentTypes: [type], resultType: type) { (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
                try Kernels.unary(arguments[0], resultType: type) { (value: Double) in Swift.abs(value) }
            }
        case .decimal:
            return ScalarFunction(name: "abs", argumentTypes: [type], resultType: .numeric) { (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
                try Kernels.unary(arguments[0], resultType: .numeric) { (value: Decimal) in value.magnitude }
            }
        default: return nil
        }
    }

    /// `mod(a, b)` for integers: the remainder with the dividend's sign.
    static func mod(_ type: DataType) -> ScalarFunction? {
        guard var function = ScalarFunction.arithmetic(.modulo, type), type.isInteger else { return nil }
        function.name = "mod"
        return function
    }
}
