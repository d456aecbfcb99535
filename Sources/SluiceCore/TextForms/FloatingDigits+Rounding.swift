/// Correct rounding of a binary float's exact value to fewer significant digits, as
/// `printf("%.*g")` does it, using the shortest digits plus one exact comparison.
extension FloatingDigits {
    /// Rounds to at most `count` significant digits the way C's `%.{count}g` rounds the exact
    /// binary value `exact` (half to even on an exact tie).
    ///
    /// The shortest round-trip digits share their first `count` digits with the exact value
    /// whenever they are longer than `count` (a shorter boundary between the two would itself
    /// round-trip), so only the round-up decision needs the exact value: it is compared with the
    /// midpoint `d1…d{count}5` in big-integer arithmetic.
    package mutating func round(toSignificantDigits count: Int, exact: Double) {
        guard digits.count > count else { return }
        var midpoint = Array(digits[..<count])
        midpoint.append(5)
        let comparison = FloatingDigits.compare(exact.magnitude, toDigits: midpoint, exponent: exponent)
        let odd = digits[count - 1] % 2 == 1
        let roundUp = comparison > 0 || (comparison == 0 && odd)
        digits.removeSubrange(count...)
        if roundUp {
            var index = count - 1
            while index >= 0 {
                if digits[index] == 9 {
                    digits[index] = 0
                    index -= 1
                } else {
                    digits[index] += 1
                    break
                }
            }
            if index < 0 {
                digits.insert(1, at: 0)
                exponent += 1
            }
        }
        while let last = digits.last, last == 0 { digits.removeLast() }
    }

    /// -1, 0 or 1 as the finite nonnegative `value` is below, at or above `0.digits × 10^exponent`.
    static func compare(_ value: Double, toDigits digits: [UInt8], exponent: Int) -> Int {
        // value = significand × 2^binaryExponent exactly.
        guard value != 0 else { return digits.allSatisfy { $0 == 0 } ? 0 : -1 }
        let significand = value.significandBitPattern | (value.isNormal ? (1 << 52) : 0)
        let binaryExponent = Int(value.isNormal ? value.exponent : Double.leastNormalMagnitude.exponent) - 52
        var left = BigNatural(significand)
        var right = BigNatural(0)
        for digit in digits {
            right.multiply(by: 10)
            right.add(UInt32(digit))
        }
        let decimalExponent = exponent - digits.count
        if binaryExponent >= 0 { left.multiply(byPowerOf: 2, binaryExponent) } else { right.multiply(byPowerOf: 2, -binaryExponent) }
        if decimalExponent >= 0 { right.multiply(byPowerOf: 10, decimalExponent) } else { left.multiply(byPowerOf: 10, -decimalExponent) }
        return left.compare(to: right)
    }
}

extension Double {
    /// The value as C's `printf("%g")` prints it: six significant digits, exponent form
    /// below 1e-4 or from 1e6 on (Postgres uses it in some error messages).
    package var cFormatG: String {
        if isNaN { return "nan" }
        if isInfinite { return self < 0 ? "-inf" : "inf" }
        var digits = FloatingDigits(self)
        digits.round(toSignificantDigits: 6, exact: self)
        return digits.postgresText(fixedLimit: 6)
    }
}

/// A minimal arbitrary-size natural number (little-endian 32-bit limbs), enough for exact
/// comparisons of float values with decimal strings.
struct BigNatural {
    private var limbs: [UInt32]

    init(_ value: UInt64) {
        limbs = [UInt32(truncatingIfNeeded: value), UInt32(truncatingIfNeeded: value >> 32)]
    }

    mutating func multiply(by factor: UInt32) {
        var carry: UInt64 = 0
        for index in limbs.indices {
            let product = UInt64(limbs[index]) * UInt64(factor) + carry
            limbs[index] = UInt32(truncatingIfNeeded: product)
            carry = product >> 32
        }
        if carry != 0 { limbs.append(UInt32(carry)) }
    }

    mutating func multiply(byPowerOf base: UInt32, _ exponent: Int) {
        for _ in 0 ..< exponent { multiply(by: base) }
    }

    mutating func add(_ addend: UInt32) {
        var carry = UInt64(addend)
        var index = 0
        while carry != 0 {
            if index == limbs.count { limbs.append(0) }
            let sum = UInt64(limbs[index]) + carry
            limbs[index] = UInt32(truncatingIfNeeded: sum)
            carry = sum >> 32
            index += 1
        }
    }

    func compare(to other: BigNatural) -> Int {
        var lhs = limbs, rhs = other.limbs
        while lhs.last == 0 { lhs.removeLast() }
        while rhs.last == 0 { rhs.removeLast() }
        if lhs.count != rhs.count { return lhs.count < rhs.count ? -1 : 1 }
        for index in lhs.indices.reversed() where lhs[index] != rhs[index] {
            return lhs[index] < rhs[index] ? -1 : 1
        }
        return 0
    }
}
