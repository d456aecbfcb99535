import SluiceCore

/// `var_pop`, `var_samp` (`variance`), `stddev_pop` and `stddev_samp` (`stddev`): the binder
/// computes them from three retractable aggregates, `count(x)`, `sum(x)` and `sum(x * x)`, and
/// this function finishes them, so they work alike in queries and in materialized views.
///
/// Over integers and numeric, the sums are exact numerics and the result follows Postgres's
/// `numeric_stddev_internal`: `(N·Σx² − (Σx)²) / (N·(N−1))` (`N·N` for the population forms) at
/// the scale `select_div_scale` gives, zero when the numerator is not positive, and the square
/// root at that same scale. Over float4 and float8 the same formula runs in double precision.
package enum StatisticalAggregate: String, Sendable, CaseIterable {
    case variancePopulation = "var_pop"
    case varianceSample = "var_samp"
    case deviationPopulation = "stddev_pop"
    case deviationSample = "stddev_samp"

    /// The statistical aggregate named `name`, if any (`variance` is `var_samp`, `stddev` is
    /// `stddev_samp`).
    package init?(name: String) {
        switch name {
        case "var_pop": self = .variancePopulation
        case "var_samp", "variance": self = .varianceSample
        case "stddev_pop": self = .deviationPopulation
        case "stddev_samp", "stddev": self = .deviationSample
        default: return nil
        }
    }

    var isSample: Bool { self == .varianceSample || self == .deviationSample }
    var isDeviation: Bool { self == .deviationPopulation || self == .deviationSample }

    /// The type the sums are kept in for an argument of `argumentType` (and the result's type),
    /// or nil when the aggregate does not take that type.
    package static func sumType(for argumentType: DataType) -> DataType? {
        switch argumentType {
        case .int16, .int32, .int64, .decimal: .numeric
        case .float32, .float64: .float64
        default: nil
        }
    }

    /// The function of `(count, Σx, Σx²)` giving the aggregate's value, over sums of `sumType`.
    package func finish(sumType: DataType) -> ScalarFunction {
        let aggregate = self
        return ScalarFunction(name: rawValue, argumentTypes: [.int64, sumType, sumType], resultType: sumType) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            var builder = ColumnBuilder(type: sumType, capacity: rowCount)
            for row in 0 ..< rowCount {
                let count = arguments[0].isNull(row) ? 0 : arguments[0].int64(at: row)
                if count == 0 || (aggregate.isSample && count == 1) || arguments[1].isNull(row) || arguments[2].isNull(row) {
                    builder.appendNull()
                    continue
                }
                switch (arguments[1].storage, arguments[2].storage) {
                case (.float64(let sums), .float64(let squares)):
                    builder.append(double: aggregate.result(count: count, sum: sums[row], squares: squares[row]))
                case (.decimal(let sums), .decimal(let squares)):
                    builder.append(decimal: try aggregate.result(count: count, sum: sums[row], squares: squares[row]))
                default:
                    throw SluiceError.internalError("\(aggregate.rawValue) over sums of \(arguments[1].type.sqlName)")
                }
            }
            return builder.finish()
        }.withOrigin(.statisticalFinish(self, sumType: sumType))
    }

    func result(count: Int64, sum: Double, squares: Double) -> Double {
        let n = Double(count)
        let numerator = n * squares - sum * sum
        if numerator.isNaN { return .nan }
        guard numerator > 0 else { return 0 }
        let variance = numerator / (isSample ? n * (n - 1) : n * n)
        return isDeviation ? variance.squareRoot() : variance
    }

    func result(count: Int64, sum: Decimal, squares: Decimal) throws(SluiceError) -> Decimal {
        // Postgres: any NaN or infinity among the values makes the variance NaN.
        if sum.isSpecial || squares.isSpecial { return .nan }
        let n = Decimal(mantissa: Int128(count), scale: 0)
        let numerator = try Decimal.subtracting(try Decimal.multiplying(n, squares), try Decimal.multiplying(sum, sum))
        guard numerator.mantissa > 0 else { return .zero }
        let denominator = Decimal(mantissa: Int128(count) * Int128(isSample ? count - 1 : count), scale: 0)
        let scale = Decimal.divisionScale(numerator, denominator)
        let variance = try Decimal.dividing(numerator, denominator, scale: scale)
        return isDeviation ? try Self.squareRoot(variance, scale: scale) : variance
    }

    /// The square root of a positive `value`, rounded half away from zero to `scale` digits:
    /// Newton's steps in numeric from a double-precision start (each doubles the correct digits,
    /// so three reach the 38 a ``Decimal`` holds), two guard digits past `scale`.
    static func squareRoot(_ value: Decimal, scale: Int) throws(SluiceError) -> Decimal {
        let working = scale + 2
        var root = try Decimal(value.doubleValue.squareRoot())
        let two = Decimal(mantissa: 2, scale: 0)
        for _ in 0 ..< 3 {
            let quotient = try Decimal.dividing(value, root, scale: working)
            root = try Decimal.dividing(try Decimal.adding(root, quotient), two, scale: working)
        }
        return try root.rounded(scale: scale)
    }
}
