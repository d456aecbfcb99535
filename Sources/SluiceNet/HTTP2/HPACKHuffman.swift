/// HPACK's static Huffman code (RFC 7541 Section 5.2, Appendix B): strings decoded through a
/// tree of the 257 codes, encoded bit by bit into a 64-bit accumulator.
package enum HPACKHuffman {
    /// The decoding tree, flattened: node `n`'s children are `tree[2n]` (bit 0) and `tree[2n+1]`
    /// (bit 1); a child ≥ 0 is a node, -1 a hole, and `-2 - symbol` a leaf.
    static let tree: [Int32] = {
        var tree: [Int32] = [-1, -1]
        for (symbol, entry) in codes.enumerated() {
            var node = 0
            for bitIndex in stride(from: Int(entry.length) - 1, through: 0, by: -1) {
                let slot = 2 * node + Int((entry.code >> UInt32(bitIndex)) & 1)
                if bitIndex == 0 {
                    tree[slot] = -2 - Int32(symbol)
                } else {
                    if tree[slot] == -1 {
                        tree[slot] = Int32(tree.count / 2)
                        tree.append(contentsOf: [-1, -1])
                    }
                    node = Int(tree[slot])
                }
            }
        }
        return tree
    }()

    /// Decodes `bytes` onto `output`. The padding must be the code of EOS's first bits (ones),
    /// shorter than a byte; EOS itself is an error (Section 5.2).
    package static func decode<Bytes: Sequence<UInt8>>(_ bytes: Bytes, into output: inout [UInt8]) throws(HPACKError) {
        let tree = Self.tree
        var node = 0
        // Bits read since the last symbol, and whether all were ones.
        var pendingBits = 0
        var pendingOnes = true
        for byte in bytes {
            for bitIndex in stride(from: 7, through: 0, by: -1) {
                let bit = Int((byte >> UInt8(bitIndex)) & 1)
                let next = tree[2 * node + bit]
                pendingBits += 1
                pendingOnes = pendingOnes && bit == 1
                if next >= 0 {
                    node = Int(next)
                } else if next == -1 {
                    throw .invalidHuffmanCode
                } else {
                    let symbol = Int(-2 - next)
                    if symbol == 256 { throw .invalidHuffmanCode }
                    output.append(UInt8(symbol))
                    node = 0
                    pendingBits = 0
                    pendingOnes = true
                }
            }
        }
        if pendingBits > 7 || !pendingOnes { throw .invalidHuffmanCode }
    }

    /// The length of `bytes` Huffman-encoded, in bytes.
    package static func encodedLength<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> Int {
        var bits = 0
        for byte in bytes { bits += Int(codes[Int(byte)].length) }
        return (bits + 7) / 8
    }

    /// Appends `bytes` Huffman-encoded to `output`, padded with ones.
    package static func encode<Bytes: Sequence<UInt8>>(_ bytes: Bytes, into output: inout [UInt8]) {
        var accumulator: UInt64 = 0
        var count = 0
        for byte in bytes {
            let entry = codes[Int(byte)]
            accumulator = (accumulator << UInt64(entry.length)) | UInt64(entry.code)
            count += Int(entry.length)
            while count >= 8 {
                count -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt64(count)))
            }
        }
        if count > 0 {
            let padding = 8 - count
            output.append(UInt8(truncatingIfNeeded: (accumulator << UInt64(padding)) | ((1 << UInt64(padding)) - 1)))
        }
    }
}
