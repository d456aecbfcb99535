/// Encodes header blocks for our answers (RFC 7541) without a dynamic table: a field that the
/// static table holds whole is indexed, any other is a literal without indexing (Section 6.2.2)
/// naming a static entry when one has its name. Strings are Huffman-coded when that is shorter
/// (and `useHuffman`). Having no table state, it never needs the peer's table size.
package struct HPACKEncoder: Sendable {
    package var useHuffman: Bool

    package init(useHuffman: Bool = true) {
        self.useHuffman = useHuffman
    }

    /// Appends the block of `fields` (names lower-case) to `output`.
    package func encode<Fields: Sequence<(String, String)>>(_ fields: Fields, into output: inout [UInt8]) {
        for (name, value) in fields {
            if let index = Self.fullIndex(name: name, value: value) {
                Self.writeInteger(index, prefix: 7, flags: 0x80, into: &output)
                continue
            }
            if let nameIndex = HPACKStaticTable.nameIndex[name] {
                Self.writeInteger(nameIndex, prefix: 4, flags: 0, into: &output)
            } else {
                output.append(0)
                writeString(name.utf8, into: &output)
            }
            writeString(value.utf8, into: &output)
        }
    }

    /// The static index of the entry with both `name` and `value`, if one has.
    static func fullIndex(name: String, value: String) -> Int? {
        switch (name, value) {
        case (":status", "200"): 8
        case (":status", "204"): 9
        case (":status", "206"): 10
        case (":status", "304"): 11
        case (":status", "400"): 12
        case (":status", "404"): 13
        case (":status", "500"): 14
        case (":method", "GET"): 2
        case (":method", "POST"): 3
        case (":path", "/"): 4
        case (":scheme", "http"): 6
        case (":scheme", "https"): 7
        default: nil
        }
    }

    /// Section 5.1: `value` in the low `prefix` bits of a byte with `flags` in its high bits.
    package static func writeInteger(_ value: Int, prefix: Int, flags: UInt8, into output: inout [UInt8]) {
        let mask = (1 << prefix) - 1
        if value < mask {
            output.append(flags | UInt8(value))
            return
        }
        output.append(flags | UInt8(mask))
        var rest = value - mask
        while rest >= 128 {
            output.append(UInt8(rest & 0x7f) | 0x80)
            rest >>= 7
        }
        output.append(UInt8(rest))
    }

    /// Section 5.2: a string, Huffman-coded when that is shorter.
    func writeString(_ bytes: String.UTF8View, into output: inout [UInt8]) {
        if useHuffman {
            let huffmanLength = HPACKHuffman.encodedLength(bytes)
            if huffmanLength < bytes.count {
                Self.writeInteger(huffmanLength, prefix: 7, flags: 0x80, into: &output)
                HPACKHuffman.encode(bytes, into: &output)
                return
            }
        }
        Self.writeInteger(bytes.count, prefix: 7, flags: 0, into: &output)
        output.append(contentsOf: bytes)
    }
}
