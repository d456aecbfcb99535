/// Text forms written through raw memory, for renderers that lay out thousands of values at once:
/// the caller makes room first (each writer says its most), then each value is stored a byte at
/// a time with no capacity or uniqueness check, and the writer returns how many bytes it took.
package enum RawText {
    /// `"00" "01" … "99"`: two digits a store.
    @usableFromInline static let pairs: StaticString =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    @usableFromInline static let hexDigits: StaticString = "0123456789abcdef"

    /// The most bytes ``writeDecimal(_:to:)`` takes.
    package static let maximumDecimalLength = 20

    /// `value` in decimal; returns its length.
    @inline(__always)
    package static func writeDecimal(_ value: Int64, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var magnitude = value.magnitude
        var start = 0
        if value < 0 {
            out[0] = UInt8(ascii: "-")
            start = 1
        }
        var digits = 1
        var limit: UInt64 = 10
        while digits < 19 && magnitude >= limit {
            digits += 1
            limit &*= 10
        }
        if magnitude >= limit { digits = 20 }
        let end = start + digits
        var position = end
        let pairs = Self.pairs.utf8Start
        while magnitude >= 100 {
            let pair = Int(magnitude % 100) &* 2
            magnitude /= 100
            position -= 2
            out[position] = pairs[pair]
            out[position + 1] = pairs[pair + 1]
        }
        if magnitude >= 10 {
            let pair = Int(magnitude) &* 2
            out[position - 2] = pairs[pair]
            out[position - 1] = pairs[pair + 1]
        } else {
            out[position - 1] = UInt8(ascii: "0") &+ UInt8(magnitude)
        }
        return end
    }

    /// `value` (0…99) as two digits.
    @inline(__always)
    package static func writeTwoDigits(_ value: Int, to out: UnsafeMutablePointer<UInt8>) {
        let pairs = Self.pairs.utf8Start
        out[0] = pairs[value &* 2]
        out[1] = pairs[value &* 2 + 1]
    }

    /// The most bytes ``writeQuotedJSON(_:to:)`` takes for `count` bytes of text.
    @inline(__always)
    package static func maximumQuotedJSONLength(_ count: Int) -> Int { 2 + 6 * count }

    /// `text` as a JSON string, quoted, with `"`, `\` and the control characters escaped (the
    /// short escapes where JSON has them, `\u00XX` for the rest); returns its length.
    @inline(__always)
    package static func writeQuotedJSON(_ text: UnsafeRawBufferPointer, to out: UnsafeMutablePointer<UInt8>) -> Int {
        out[0] = UInt8(ascii: "\"")
        var at = 1
        var start = 0
        let count = text.count
        if let base = text.baseAddress?.assumingMemoryBound(to: UInt8.self) {
            for index in 0 ..< count {
                let byte = base[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                (out + at).update(from: base + start, count: index - start)
                at += index - start
                at += writeEscape(byte, to: out + at)
                start = index + 1
            }
            (out + at).update(from: base + start, count: count - start)
            at += count - start
        }
        out[at] = UInt8(ascii: "\"")
        return at + 1
    }

    /// The JSON escape of a byte that needs one.
    package static func writeEscape(_ byte: UInt8, to out: UnsafeMutablePointer<UInt8>) -> Int {
        out[0] = UInt8(ascii: "\\")
        switch byte {
        case 0x08: out[1] = UInt8(ascii: "b")
        case 0x0C: out[1] = UInt8(ascii: "f")
        case 0x0A: out[1] = UInt8(ascii: "n")
        case 0x0D: out[1] = UInt8(ascii: "r")
        case 0x09: out[1] = UInt8(ascii: "t")
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): out[1] = byte
        default:
            let hex = Self.hexDigits.utf8Start
            out[1] = UInt8(ascii: "u")
            out[2] = UInt8(ascii: "0")
            out[3] = UInt8(ascii: "0")
            out[4] = hex[Int(byte >> 4)]
            out[5] = hex[Int(byte & 15)]
            return 6
        }
        return 2
    }

    /// Appends to `out` what `write` stores through raw memory, at most `room` bytes.
    @inline(__always)
    package static func append(to out: inout [UInt8], room: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: room))
        let written = out.withUnsafeMutableBufferPointer { buffer in write(buffer.baseAddress! + start) }
        out.removeLast(room - written)
    }
}
