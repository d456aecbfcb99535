#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SluiceCore

/// The random draws Nexmark's generator makes (`StringsGenerator`, `PriceGenerator`,
/// `LongGenerator`), over SplitMix64 instead of `java.util.Random`, writing strings straight
/// into the output.
package struct NexmarkRandom {
    package var base: SplitMix64

    package init(_ base: SplitMix64) {
        self.base = base
    }

    /// Uniform in `0 ..< bound`.
    package mutating func nextInt(_ bound: Int) -> Int {
        base.next(below: bound)
    }

    /// Uniform in `0 ..< bound` (0 when `bound` is not positive).
    package mutating func nextLong(_ bound: Int64) -> Int64 {
        bound > 0 ? Int64(base.next() % UInt64(bound)) : 0
    }

    /// A price in cents, log-uniform from $1 to $1,000,000: `round(10^(u·6) · 100)`.
    package mutating func nextPrice() -> Int64 {
        Int64((pow(10.0, base.nextUnit() * 6.0) * 100.0).rounded())
    }

    /// A string of 3 to `maxLength - 1` characters, each a lowercase letter or (1 in 13)
    /// `delimiter`, with spaces trimmed from both ends (`StringsGenerator.nextString`), written
    /// into `out`; returns how many bytes it wrote.
    @discardableResult
    package mutating func writeString(maxLength: Int, delimiter: UInt8 = UInt8(ascii: " "), into out: ByteWriter) -> Int {
        let start = out.count
        let length = 3 + nextInt(maxLength - 3)
        out.reserve(length)
        for _ in 0 ..< length {
            if nextInt(13) == 0 {
                // A leading space would be trimmed: leave it out.
                if delimiter == UInt8(ascii: " ") && out.count == start { continue }
                out.append(delimiter)
            } else {
                out.append(UInt8(ascii: "a") + UInt8(nextInt(26)))
            }
        }
        var end = out.count
        while end > start && out[end - 1] == UInt8(ascii: " ") { end -= 1 }
        out.truncate(to: end)
        return end - start
    }

    /// Exactly `length` lowercase letters, six per 32-bit draw (`nextExactString`).
    package mutating func writeExactString(length: Int, into out: ByteWriter) {
        out.reserve(length)
        var word: UInt32 = 0
        var left = 0
        for _ in 0 ..< length {
            if left == 0 {
                word = UInt32(truncatingIfNeeded: base.next())
                left = 6
            }
            out.append(UInt8(ascii: "a") + UInt8(word % 26))
            word /= 26
            left -= 1
        }
    }

    /// Padding so that an event of `currentSize` bytes averages `averageSize`: within ±20 % of
    /// the difference, or nothing when the event is already larger (`nextExtra`).
    package mutating func writeExtra(currentSize: Int, averageSize: Int, into out: ByteWriter) {
        guard currentSize <= averageSize else { return }
        let desired = averageSize - currentSize
        let delta = Int((Double(desired) * 0.2).rounded())
        let size = desired - delta + (delta == 0 ? 0 : nextInt(2 * delta))
        writeExactString(length: size, into: out)
    }
}
