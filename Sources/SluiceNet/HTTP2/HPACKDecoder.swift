/// A header block's fields, decoded, and whether the list passed the bound (the fields past it
/// are not kept: the block is still decoded whole to keep the dynamic table in step).
package struct HPACKHeaderList: Sendable, Equatable {
    package var fields: [(name: String, value: String)] = []
    /// Whether the list's size (RFC 9113 Section 6.5.2: names, values and 32 per field) passed
    /// the bound; `fields` then holds only the fields before it.
    package var isTooLarge = false

    package static func == (a: HPACKHeaderList, b: HPACKHeaderList) -> Bool {
        a.isTooLarge == b.isTooLarge && a.fields.elementsEqual(b.fields) { $0.name == $1.name && $0.value == $1.value }
    }
}

/// Decodes header blocks (RFC 7541): the static table, a dynamic table with size updates and
/// eviction, integers, literals and Huffman strings. One per connection, fed its blocks in order.
/// Not `Sendable` in use: the connection owns it.
package struct HPACKDecoder {
    private var table: HPACKDynamicTable
    /// The size our SETTINGS_HEADER_TABLE_SIZE allows the peer's encoder to use.
    package let maximumTableSize: Int

    package init(maximumTableSize: Int = 4096) {
        self.maximumTableSize = maximumTableSize
        table = HPACKDynamicTable(maximumSize: maximumTableSize)
    }

    /// The dynamic table's current size in bytes (for tests).
    package var dynamicTableSize: Int { table.size }
    /// The dynamic table's entries, newest first (for tests).
    package var dynamicTableEntries: [(name: String, value: String)] {
        (0 ..< table.count).map { offset in
            let entry = table.entry(offset + 1)
            return (String(decoding: entry.name, as: UTF8.self), String(decoding: entry.value, as: UTF8.self))
        }
    }

    /// Decodes one complete header block. Fields past `maximumListSize` are dropped and the
    /// list marked too large; the rest of the block is still decoded.
    /// - Throws: ``HPACKError`` for a malformed block; the connection cannot go on.
    package mutating func decode(_ block: [UInt8], maximumListSize: Int = .max) throws(HPACKError) -> HPACKHeaderList {
        var list = HPACKHeaderList()
        var listSize = 0
        var reader = HPACKReader(bytes: block)
        var fieldsSeen = false
        while !reader.isAtEnd {
            let first = reader.peek()
            let name: [UInt8]
            let value: [UInt8]
            if first & 0x80 != 0 {
                // Section 6.1: an indexed field.
                (name, value) = try entry(try reader.integer(prefix: 7))
            } else if first & 0x40 != 0 {
                // Section 6.2.1: a literal added to the table.
                (name, value) = try literal(&reader, prefix: 6)
                table.add(name: name, value: value)
            } else if first & 0x20 != 0 {
                // Section 6.3: a dynamic table size update, only before the first field.
                let newSize = try reader.integer(prefix: 5)
                guard !fieldsSeen, newSize <= maximumTableSize else { throw .invalidTableSizeUpdate(newSize) }
                table.resize(to: newSize)
                continue
            } else {
                // Sections 6.2.2 and 6.2.3: a literal not indexed, or never indexed.
                (name, value) = try literal(&reader, prefix: 4)
            }
            fieldsSeen = true
            guard !list.isTooLarge else { continue }
            listSize += name.count + value.count + 32
            if listSize > maximumListSize {
                list.isTooLarge = true
            } else {
                list.fields.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
            }
        }
        return list
    }

    private func entry(_ index: Int) throws(HPACKError) -> (name: [UInt8], value: [UInt8]) {
        let statics = HPACKStaticTable.byteEntries
        if index >= 1 && index <= statics.count { return statics[index - 1] }
        let dynamicIndex = index - statics.count
        guard index >= 1, dynamicIndex <= table.count else { throw .invalidIndex(index) }
        return table.entry(dynamicIndex)
    }

    private func literal(_ reader: inout HPACKReader, prefix: Int) throws(HPACKError) -> (name: [UInt8], value: [UInt8]) {
        let nameIndex = try reader.integer(prefix: prefix)
        let name = nameIndex == 0 ? try reader.string() : try entry(nameIndex).name
        return (name, try reader.string())
    }
}

/// Reads a block's integers and strings (RFC 7541 Section 5).
struct HPACKReader {
    let bytes: [UInt8]
    var offset = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { offset >= bytes.count }

    func peek() -> UInt8 { bytes[offset] }

    /// Section 5.1: an integer in the low `prefix` bits of the current byte, continued in
    /// 7-bit groups; capped at 2^31 - 1.
    mutating func integer(prefix: Int) throws(HPACKError) -> Int {
        guard offset < bytes.count else { throw .truncated }
        let mask = (1 << prefix) - 1
        var value = Int(bytes[offset]) & mask
        offset += 1
        guard value == mask else { return value }
        var shift = 0
        while true {
            guard offset < bytes.count else { throw .truncated }
            let byte = bytes[offset]
            offset += 1
            guard shift <= 28 else { throw .integerOverflow }
            value += Int(byte & 0x7f) << shift
            guard value <= Int(Int32.max) else { throw .integerOverflow }
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    /// Section 5.2: a length-prefixed string, Huffman-coded when the high bit is set.
    mutating func string() throws(HPACKError) -> [UInt8] {
        guard offset < bytes.count else { throw .truncated }
        let isHuffman = bytes[offset] & 0x80 != 0
        let length = try integer(prefix: 7)
        guard length <= bytes.count - offset else { throw .truncated }
        defer { offset += length }
        if !isHuffman { return Array(bytes[offset ..< offset + length]) }
        var output: [UInt8] = []
        output.reserveCapacity(length + length / 2)
        try HPACKHuffman.decode(bytes[offset ..< offset + length], into: &output)
        return output
    }
}
