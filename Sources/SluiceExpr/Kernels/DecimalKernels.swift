import SluiceCore

/// `+`, `-` and `*` on numeric columns whose values each have one scale (a `numeric(p, s)`
/// column, or a constant): the mantissas are combined in one loop, with the scale worked out
/// once per column instead of per value. The results equal ``Decimal``'s own arithmetic; any
/// other column (mixed scales, NaN or infinities) is left to it.
enum DecimalKernels {
    /// The result of `lhs op rhs`, or nil when the columns do not suit this kernel.
    static func arithmetic(_ op: ArithmeticOperator, _ lhs: Column, _ rhs: Column) throws(SluiceError) -> Column? {
        guard op == .add || op == .subtract || op == .multiply,
              case .decimal(let left) = lhs.storage, case .decimal(let right) = rhs.storage, left.count == right.count,
              let leftScale = uniformScale(left, lhs.validity), let rightScale = uniformScale(right, rhs.validity)
        else { return nil }
        let validity = Kernels.combinedValidity([lhs, rhs])
        let limit = Decimal.maximumMantissa
        var output = [Decimal](repeating: .zero, count: left.count)
        var overflowed = false
        if op == .multiply {
            let scale = Int(leftScale) + Int(rightScale)
            guard scale <= Int(Int16.max) else { return nil }
            let resultScale = Int16(scale)
            left.withUnsafeBufferPointer { left in
                right.withUnsafeBufferPointer { right in
                    output.withUnsafeMutableBufferPointer { output in
                        for row in 0 ..< left.count where validity?[row] ?? true {
                            let (product, overflow) = left[row].mantissa.multipliedReportingOverflow(by: right[row].mantissa)
                            if overflow || product > limit || product < -limit { overflowed = true }
                            output[row] = Decimal(mantissa: product, scale: resultScale)
                        }
                    }
                }
            }
        } else {
            // Both sides at the larger scale, as numeric_add does.
            let scale = max(leftScale, rightScale)
            guard Int(scale - min(leftScale, rightScale)) <= Decimal.maximumDigits else { return nil }
            let leftFactor = Decimal.powerOfTen(Int(scale - leftScale))
            let rightFactor = Decimal.powerOfTen(Int(scale - rightScale))
            let subtract = op == .subtract
            left.withUnsafeBufferPointer { left in
                right.withUnsafeBufferPointer { right in
                    output.withUnsafeMutableBufferPointer { output in
                        for row in 0 ..< left.count where validity?[row] ?? true {
                            let (a, overflowA) = left[row].mantissa.multipliedReportingOverflow(by: leftFactor)
                            let (b, overflowB) = right[row].mantissa.multipliedReportingOverflow(by: rightFactor)
                            let (sum, overflow) = subtract ? a.subtractingReportingOverflow(b) : a.addingReportingOverflow(b)
                            // (Each side, raised, must fit too, as Decimal.rescaled(to:) checks.)
                            if overflowA || overflowB || overflow || sum > limit || sum < -limit || a > limit || a < -limit || b > limit || b < -limit {
                                overflowed = true
                            }
                            output[row] = Decimal(mantissa: sum, scale: scale)
                        }
                    }
                }
            }
        }
        if overflowed { throw Decimal.overflowError }
        return Column(type: .numeric, storage: .decimal(output), validity: validity)
    }

    /// The scale of every value not null in `values`, or nil when they differ or one is special
    /// (or none is valid).
    static func uniformScale(_ values: [Decimal], _ validity: Bitmap?) -> Int16? {
        values.withUnsafeBufferPointer { values in
            var scale: Int16?
            for row in 0 ..< values.count where validity?[row] ?? true {
                let rowScale = values[row].scale
                if let scale {
                    if scale != rowScale { return nil }
                } else {
                    if rowScale == Decimal.specialScale { return nil }
                    scale = rowScale
                }
            }
            return scale
        }
    }
}
