/// The RLE / bit-packing hybrid encoder (parquet-format Encodings.md, "Run Length Encoding /
/// Bit-Packing Hybrid"), for definition and repetition levels and dictionary indices.
///
/// Runs of at least 8 equal values become RLE runs; everything else is bit-packed in groups of
/// 8, a run's first values filling the last group of the literal before it, so every literal
/// but the last holds a multiple of 8 values (the last is padded with zeros, which the reader
/// ignores because it knows the value count).
enum RLEHybridEncoder {
    /// Appends the encoding of `values` (each below `1 << bitWidth`) to `output`, without a
    /// length prefix.
    ///
    /// - Complexity: O(n). Where no two neighbours are equal (dictionary indices of varied
    ///   values), eight values are passed over at a time, compared a word at a time.
    static func encode<Value: FixedWidthInteger & UnsignedInteger>(
        _ values: UnsafeBufferPointer<Value>, bitWidth: Int, into output: inout [UInt8]
    ) {
        let count = values.count
        guard let base = values.baseAddress else { return }
        let raw = UnsafeRawPointer(base)
        // Eight values take `width` words; in each word, lanes of `width` bytes. A lane of
        // `a ^ b` is zero where two neighbours are equal, which `(x - ones) & ~x & highs` finds
        // (the exact zero-lane test: no borrow reaches a lane's high bit from a lane that is not zero).
        let width = MemoryLayout<Value>.size
        let ones: UInt64 = width == 1 ? 0x0101_0101_0101_0101 : width == 2 ? 0x0001_0001_0001_0001 : width == 4 ? 0x0000_0001_0000_0001 : 1
        let highs = ones << UInt64(8 * width - 1)
        var literalStart = 0
        var index = 0
        while index < count {
            // `index` starts a run. When values index ... index + 8 hold no equal neighbours,
            // each of the eight runs starting there has length 1: nothing to do but go on.
            if index + 9 <= count && width <= 8 {
                var equalNeighbours: UInt64 = 0
                for word in 0 ..< width {
                    let these = raw.loadUnaligned(fromByteOffset: index * width + 8 * word, as: UInt64.self)
                    let next = raw.loadUnaligned(fromByteOffset: (index + 1) * width + 8 * word, as: UInt64.self)
                    let difference = these ^ next
                    equalNeighbours |= (difference &- ones) & ~difference & highs
                }
                if equalNeighbours == 0 {
                    index += 8
                    continue
                }
            }
            let value = base[index]
            var runEnd = index + 1
            while runEnd < count && base[runEnd] == value { runEnd += 1 }
            let runLength = runEnd - index
            if runLength >= 8 {
                let pending = index - literalStart
                let fill = (8 - pending % 8) % 8
                if runLength - fill >= 8 {
                    if pending + fill > 0 {
                        appendLiteral(UnsafeBufferPointer(rebasing: values[literalStart ..< index + fill]), bitWidth: bitWidth, into: &output)
                    }
                    appendRun(UInt64(value), length: runLength - fill, bitWidth: bitWidth, into: &output)
                    literalStart = runEnd
                }
            }
            index = runEnd
        }
        if literalStart < count {
            appendLiteral(UnsafeBufferPointer(rebasing: values[literalStart ..< count]), bitWidth: bitWidth, into: &output)
        }
    }

    /// Appends `count` copies of `value` as RLE runs.
    static func encodeRepeated(_ value: UInt64, count: Int, bitWidth: Int, into output: inout [UInt8]) {
        if count > 0 { appendRun(value, length: count, bitWidth: bitWidth, into: &output) }
    }

    private static func appendRun(_ value: UInt64, length: Int, bitWidth: Int, into output: inout [UInt8]) {
        appendVarint(UInt64(length) << 1, to: &output)
        var rest = value
        for _ in 0 ..< (bitWidth + 7) / 8 {
            output.append(UInt8(truncatingIfNeeded: rest))
            rest >>= 8
        }
    }

    /// A bit-packed run of `values`, padded with zeros to a multiple of 8.
    private static func appendLiteral<Value: FixedWidthInteger & UnsignedInteger>(
        _ values: UnsafeBufferPointer<Value>, bitWidth: Int, into output: inout [UInt8]
    ) {
        let groups = (values.count + 7) / 8
        appendVarint(UInt64(groups) << 1 | 1, to: &output)
        BitPacking.pack(values, bitWidth: bitWidth, paddedTo: groups * 8, into: &output)
    }

    static func appendVarint(_ value: UInt64, to output: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            output.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        output.append(UInt8(rest))
    }
}

/// Little-endian bit packing, least significant bit first (Encodings.md, "Bit-packed").
enum BitPacking {
    /// Appends `values` packed at `bitWidth` bits each (at most 32), then zero values up to
    /// `paddedCount`. Bits gather in a 64-bit accumulator that is stored 32 bits at a time:
    /// fewer than 32 bits stay in it after each value, so a 32-bit value always fits beside
    /// them, and a store is only made of bits that belong to the output.
    static func pack<Value: FixedWidthInteger & UnsignedInteger>(
        _ values: UnsafeBufferPointer<Value>, bitWidth: Int, paddedTo paddedCount: Int, into output: inout [UInt8]
    ) {
        let byteCount = (paddedCount * bitWidth + 7) / 8
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: byteCount))
        guard bitWidth > 0 else { return }
        output.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress.map({ $0 + start }) else { return }
            let width = UInt64(bitWidth)
            var accumulator: UInt64 = 0
            var bits: UInt64 = 0
            var position = 0
            for value in values {
                accumulator |= UInt64(truncatingIfNeeded: value) << bits
                bits += width
                if bits >= 32 {
                    base.storeBytes(of: UInt32(truncatingIfNeeded: accumulator).littleEndian, toByteOffset: position, as: UInt32.self)
                    position += 4
                    accumulator >>= 32
                    bits -= 32
                }
            }
            while bits > 0 {
                base.storeBytes(of: UInt8(truncatingIfNeeded: accumulator), toByteOffset: position, as: UInt8.self)
                position += 1
                accumulator >>= 8
                bits = bits > 8 ? bits - 8 : 0
            }
        }
    }
}

extension Array {
    /// Makes room for `additional` more elements, growing geometrically: `reserveCapacity`
    /// with an exact count reallocates (and copies) on every call that asks for a little more.
    @inline(__always)
    mutating func reserveAdditional(_ additional: Int) {
        let needed = count + additional
        if needed > capacity { reserveCapacity(Swift.max(needed, capacity * 2)) }
    }
}
