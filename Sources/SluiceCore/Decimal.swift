/// An exact decimal number: `mantissa × 10^-scale`.
///
/// The scale is kept per value so results display as Postgres shows them (`1.50` stays `1.50`).
/// Values with different scales compare by numeric value; ``Hashable`` is numeric too, so
/// `1.5` and `1.50` hash alike. At most 38 significant digits fit; operations that need more
/// raise `numericValueOutOfRange`.
///
/// PostgreSQL's special values `NaN`, `Infinity` and `-Infinity` are kept with the scale
/// ``specialScale`` and a mantissa of 0, 1 or -1. They order as PostgreSQL orders them:
/// `-Infinity` below every number, `Infinity` above, and `NaN` above everything, equal to itself.
package struct Decimal: Sendable {
    package var mantissa: Int128
    package var scale: Int16

    package init(mantissa: Int128, scale: Int16) {
        self.mantissa = mantissa
        self.scale = scale
    }

    package init(_ integer: Int64) {
        self.mantissa = Int128(integer)
        self.scale = 0
    }

    package static let zero = Decimal(mantissa: 0, scale: 0)

    /// The scale that marks a special value.
    package static let specialScale = Int16.min
    package static let nan = Decimal(mantissa: 0, scale: specialScale)
    package static let infinity = Decimal(mantissa: 1, scale: specialScale)
    package static let negativeInfinity = Decimal(mantissa: -1, scale: specialScale)

    /// Whether the value is `NaN` or an infinity.
    package var isSpecial: Bool { scale == Decimal.specialScale }
    package var isNaN: Bool { isSpecial && mantissa == 0 }
    package var isInfinite: Bool { isSpecial && mantissa != 0 }
    package var isFinite: Bool { !isSpecial }
}

extension Decimal: Hashable, Comparable {
    /// The same number with trailing fractional zeros removed (`1.50` → `1.5`, `2.00` → `2`).
    package var normalized: Decimal {
        var result = self
        while result.scale > 0, result.mantissa % 10 == 0 {
            result.mantissa /= 10
            result.scale -= 1
        }
        return result
    }

    package static func == (lhs: Decimal, rhs: Decimal) -> Bool {
        compare(lhs, rhs) == 0
    }

    package static func < (lhs: Decimal, rhs: Decimal) -> Bool {
        compare(lhs, rhs) < 0
    }

    package func hash(into hasher: inout Hasher) {
        if isSpecial {
            hasher.combine(mantissa)
            hasher.combine(scale)
            return
        }
        let canonical = normalized
        hasher.combine(canonical.mantissa)
        hasher.combine(canonical.mantissa == 0 ? 0 : canonical.scale)
    }

    /// -1, 0 or 1 as `lhs` is less than, equal to or greater than `rhs` numerically.
    package static func compare(_ lhs: Decimal, _ rhs: Decimal) -> Int {
        if lhs.isSpecial || rhs.isSpecial {
            // -Infinity < numbers < Infinity < NaN.
            func rank(_ value: Decimal) -> Int {
                guard value.isSpecial else { return 0 }
                return value.mantissa == 0 ? 2 : Int(value.mantissa)
            }
            let (left, right) = (rank(lhs), rank(rhs))
            return left < right ? -1 : (left == right ? 0 : 1)
        }
        if lhs.scale == rhs.scale { return lhs.mantissa < rhs.mantissa ? -1 : (lhs.mantissa == rhs.mantissa ? 0 : 1) }
        // Bring the value with the smaller scale up to the larger; if that overflows, its
        // magnitude exceeds anything the other can hold, so its sign decides.
        let (small, large, flipped) = lhs.scale < rhs.scale ? (lhs, rhs, false) : (rhs, lhs, true)
        var scaled = small.mantissa
        var overflowed = false
        for _ in 0 ..< Int(large.scale - small.scale) {
            let (product, overflow) = scaled.multipliedReportingOverflow(by: 10)
            if overflow { overflowed = true; break }
            scaled = product
        }
        var result: Int
        if overflowed {
            result = small.mantissa < 0 ? -1 : 1
        } else {
            result = scaled < large.mantissa ? -1 : (scaled == large.mantissa ? 0 : 1)
        }
        if flipped { result = -result }
        return result
    }
}

/// What the fast numeric kernels need to know of a column's values: their one scale (a
/// `numeric(p, s)` column's, or a constant's) and, when every mantissa fits in 64 bits, a bound
/// on their magnitude.
package struct DecimalProfile: Sendable, Equatable {
    package var scale: Int16
    /// At least the largest magnitude of the values' mantissas; nil when one needs more than 64
    /// bits.
    package var magnitude: UInt64?

    package init(scale: Int16, magnitude: UInt64?) {
        self.scale = scale
        self.magnitude = magnitude
    }

    /// The profile of one value (nil for a special one).
    package init?(of value: Decimal) {
        guard value.isFinite else { return nil }
        let low = Int64(truncatingIfNeeded: value.mantissa)
        self.init(scale: value.scale, magnitude: Int128(low) == value.mantissa ? low.magnitude : nil)
    }

    /// The profile of the values not null in `values` (nil when their scales differ, one is
    /// special, or none is valid): one pass.
    package static func of(_ values: [Decimal], _ validity: Bitmap?) -> DecimalProfile? {
        values.withUnsafeBufferPointer { values in
            guard let first = (0 ..< values.count).first(where: { validity?[$0] ?? true }) else { return nil }
            let scale = values[first].scale
            if scale == Decimal.specialScale { return nil }
            // Without branches: whether any scale differs, whether any mantissa needs more than
            // 64 bits, and the largest 64-bit magnitude.
            var differs = false
            var wide = false
            var largest: UInt64 = 0
            if let validity {
                for row in first ..< values.count where validity[row] {
                    let value = values[row]
                    let low = Int64(truncatingIfNeeded: value.mantissa)
                    differs = differs || value.scale != scale
                    wide = wide || Int128(low) != value.mantissa
                    largest = max(largest, low.magnitude)
                }
            } else {
                for row in first ..< values.count {
                    let value = values[row]
                    let low = Int64(truncatingIfNeeded: value.mantissa)
                    differs = differs || value.scale != scale
                    wide = wide || Int128(low) != value.mantissa
                    largest = max(largest, low.magnitude)
                }
            }
            return differs ? nil : DecimalProfile(scale: scale, magnitude: wide ? nil : largest)
        }
    }

    /// The profile of values that have either profile (nil unless the scales agree).
    package func merged(with other: DecimalProfile) -> DecimalProfile? {
        guard scale == other.scale else { return nil }
        return DecimalProfile(scale: scale, magnitude: magnitude.flatMap { a in other.magnitude.map { max(a, $0) } })
    }
}

extension Column {
    /// The column's ``DecimalProfile``: the one it carries, else worked out from its values (nil
    /// for a column that is not numeric or has none).
    package var profileOfDecimals: DecimalProfile? {
        if let decimalProfile { return decimalProfile }
        guard case .decimal(let values) = storage else { return nil }
        return DecimalProfile.of(values, validity)
    }
}
