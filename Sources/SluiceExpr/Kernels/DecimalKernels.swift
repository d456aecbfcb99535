import SluiceCore

/// `+`, `-` and `*` on numeric columns whose values each have one scale (a `numeric(p, s)`
/// column, or a constant): the mantissas are combined in one loop, with the scale worked out
/// once per column instead of per value, and in 64-bit arithmetic without overflow checks when
/// the column's largest values show that none can overflow. The results equal ``Decimal``'s own arithmetic; any
/// other column (mixed scales, NaN or infinities) is left to it.
enum DecimalKernels {
    /// The result of `lhs op rhs`, or nil when the columns do not suit this kernel.
    static func arithmetic(_ op: ArithmeticOperator, _ lhs: Column, _ rhs: Column) throws(SluiceError) -> Column? {
        guard op == .add || op == .subtract || op == .multiply,
              case .decimal(let left) = lhs.storage, case .decimal(let right) = rhs.storage, left.count == right.count,
              let leftProfile = lhs.profileOfDecimals, let rightProfile = rhs.profileOfDecimals
        else { return nil }
        let validity = Kernels.combinedValidity([lhs, rhs])
        if let result = smallArithmetic(op, left, leftProfile, right, rightProfile, validity: validity) { return result }
        let leftScale = leftProfile.scale, rightScale = rightProfile.scale
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
        var result = Column(type: .numeric, storage: .decimal(output), validity: validity)
        result.decimalProfile = DecimalProfile(
            scale: op == .multiply ? leftScale + rightScale : max(leftScale, rightScale), magnitude: nil)
        return result
    }

    /// `+ - *` when the mantissas, raised to the result's scale, fit in 64 bits and so does
    /// the result (or, for `*`, the product of two such mantissas, which fits in 127 bits and
    /// below ``Decimal/maximumMantissa``): one loop with no overflow checks. Nil otherwise.
    private static func smallArithmetic(
        _ op: ArithmeticOperator, _ left: [Decimal], _ leftProfile: DecimalProfile, _ right: [Decimal], _ rightProfile: DecimalProfile, validity: Bitmap?
    ) -> Column? {
        guard let leftMagnitude = leftProfile.magnitude, let rightMagnitude = rightProfile.magnitude else { return nil }
        let count = left.count
        let output: [Decimal]
        // The result's: its scale, and the bound its values keep to.
        let profile: DecimalProfile
        if op == .multiply {
            let scale = Int(leftProfile.scale) + Int(rightProfile.scale)
            guard scale <= Int(Int16.max) else { return nil }
            let resultScale = Int16(scale)
            let (bound, overflow) = leftMagnitude.multipliedReportingOverflow(by: rightMagnitude)
            let narrow = !overflow && bound <= UInt64(Int64.max)
            profile = DecimalProfile(scale: resultScale, magnitude: narrow ? bound : nil)
            // (Null rows hold whatever their slots held; wrapping keeps them from trapping.)
            output = left.withUnsafeBufferPointer { left in
                right.withUnsafeBufferPointer { right in
                    [Decimal](unsafeUninitializedCapacity: count) { buffer, initialized in
                        if narrow {
                            for row in 0 ..< count {
                                let product = Int64(truncatingIfNeeded: left[row].mantissa) &* Int64(truncatingIfNeeded: right[row].mantissa)
                                buffer.initializeElement(at: row, to: Decimal(mantissa: Int128(product), scale: resultScale))
                            }
                        } else {
                            for row in 0 ..< count {
                                let product = Int128(Int64(truncatingIfNeeded: left[row].mantissa)) &* Int128(Int64(truncatingIfNeeded: right[row].mantissa))
                                buffer.initializeElement(at: row, to: Decimal(mantissa: product, scale: resultScale))
                            }
                        }
                        initialized = count
                    }
                }
            }
        } else {
            let scale = max(leftProfile.scale, rightProfile.scale)
            guard Int(scale - min(leftProfile.scale, rightProfile.scale)) <= 18 else { return nil }
            let leftFactor = Int64(Decimal.powerOfTen(Int(scale - leftProfile.scale)))
            let rightFactor = Int64(Decimal.powerOfTen(Int(scale - rightProfile.scale)))
            let (raisedLeft, overflowLeft) = leftMagnitude.multipliedReportingOverflow(by: UInt64(leftFactor))
            let (raisedRight, overflowRight) = rightMagnitude.multipliedReportingOverflow(by: UInt64(rightFactor))
            let (bound, overflowSum) = raisedLeft.addingReportingOverflow(raisedRight)
            guard !overflowLeft, !overflowRight, !overflowSum, bound <= UInt64(Int64.max) else { return nil }
            profile = DecimalProfile(scale: scale, magnitude: bound)
            let subtract = op == .subtract
            output = left.withUnsafeBufferPointer { left in
                right.withUnsafeBufferPointer { right in
                    [Decimal](unsafeUninitializedCapacity: count) { buffer, initialized in
                        for row in 0 ..< count {
                            let a = Int64(truncatingIfNeeded: left[row].mantissa) &* leftFactor
                            let b = Int64(truncatingIfNeeded: right[row].mantissa) &* rightFactor
                            buffer.initializeElement(at: row, to: Decimal(mantissa: Int128(subtract ? a &- b : a &+ b), scale: scale))
                        }
                        initialized = count
                    }
                }
            }
        }
        var result = Column(type: .numeric, storage: .decimal(output), validity: validity)
        result.decimalProfile = profile
        return result
    }
}
