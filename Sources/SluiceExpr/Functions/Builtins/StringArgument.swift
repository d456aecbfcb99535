import SluiceCore

/// Row access to a string column (`varchar`, `jsonb`, `bytea`) for kernels: its packed bytes
/// and validity, taken out of the column's storage once per call.
struct StringArgument {
    let bytes: VarBytes
    let validity: Bitmap?

    init(_ column: Column) {
        guard case .bytes(let bytes) = column.storage else { preconditionFailure("column is not a string column") }
        self.bytes = bytes
        self.validity = column.validity
    }

    @inline(__always)
    func isNull(_ rowIndex: Int) -> Bool {
        guard let validity else { return false }
        return !validity[rowIndex]
    }

    /// Calls `body` with the bytes of row `rowIndex`.
    @inline(__always)
    func withBytes<R, E: Error>(_ rowIndex: Int, _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        let range = bytes.byteRange(at: rowIndex)
        return try bytes.data.withUnsafeBufferPointer { (buffer) throws(E) -> R in
            try body(UnsafeBufferPointer(rebasing: buffer[range]))
        }
    }

    /// The bytes of row `rowIndex` as a slice (for comparisons and cache keys).
    @inline(__always)
    func slice(_ rowIndex: Int) -> ArraySlice<UInt8> {
        bytes.data[bytes.byteRange(at: rowIndex)]
    }

    /// Row `rowIndex` as a `String` (for Unicode-aware work the bytes cannot do alone).
    func string(_ rowIndex: Int) -> String {
        bytes.string(at: rowIndex)
    }
}

/// UTF-8 scanning on raw bytes: character counts and character-to-byte offsets, so string
/// functions count and cut by characters as Postgres does without decoding to `String`.
enum UTF8Bytes {
    /// True for the bytes that continue a multi-byte sequence (`10xxxxxx`).
    @inline(__always)
    static func isContinuation(_ byte: UInt8) -> Bool { byte & 0xC0 == 0x80 }

    /// The number of characters (code points) in `bytes`.
    static func characterCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var count = 0
        for byte in bytes where !isContinuation(byte) { count += 1 }
        return count
    }

    /// The byte offset where character `characterIndex` (0-based) starts, or `bytes.count` when the
    /// string has no more characters than that.
    static func byteOffset(ofCharacter characterIndex: Int, in bytes: UnsafeBufferPointer<UInt8>, from start: Int = 0) -> Int {
        if characterIndex <= 0 { return start }
        var remaining = characterIndex
        var offset = start
        while offset < bytes.count {
            offset += 1
            while offset < bytes.count, isContinuation(bytes[offset]) { offset += 1 }
            remaining -= 1
            if remaining == 0 { return offset }
        }
        return bytes.count
    }

    /// The length in bytes of the character starting at `offset`.
    @inline(__always)
    static func characterLength(at offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var end = offset + 1
        while end < bytes.count, isContinuation(bytes[end]) { end += 1 }
        return end - offset
    }

    /// Byte ranges of each character of `bytes`.
    static func characterRanges(_ bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var offset = 0
        while offset < bytes.count {
            let length = characterLength(at: offset, in: bytes)
            ranges.append(offset ..< offset + length)
            offset += length
        }
        return ranges
    }

    /// True when every byte is ASCII.
    @inline(__always)
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where byte >= 0x80 { return false }
        return true
    }

    /// The code point of the character starting at `offset` (malformed input decodes as its lead byte).
    static func codePoint(at offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        let lead = bytes[offset]
        if lead < 0x80 { return UInt32(lead) }
        let length = characterLength(at: offset, in: bytes)
        var value: UInt32
        switch length {
        case 2: value = UInt32(lead & 0x1F)
        case 3: value = UInt32(lead & 0x0F)
        case 4: value = UInt32(lead & 0x07)
        default: return UInt32(lead)
        }
        for index in offset + 1 ..< offset + length { value = value << 6 | UInt32(bytes[index] & 0x3F) }
        return value
    }

    /// Appends the UTF-8 encoding of `scalar`.
    static func append(_ scalar: Unicode.Scalar, to out: inout [UInt8]) {
        out.append(contentsOf: UTF8.encode(scalar)!)
    }

    /// Finds the first occurrence of `needle` in `haystack` at or after byte `start`.
    static func firstRange(of needle: UnsafeBufferPointer<UInt8>, in haystack: UnsafeBufferPointer<UInt8>, from start: Int = 0) -> Range<Int>? {
        if needle.isEmpty { return start ..< start }
        if needle.count > haystack.count - start { return nil }
        let first = needle[0]
        var offset = start
        let last = haystack.count - needle.count
        while offset <= last {
            if haystack[offset] == first {
                var matched = true
                for index in 1 ..< needle.count where haystack[offset + index] != needle[index] {
                    matched = false
                    break
                }
                if matched { return offset ..< offset + needle.count }
            }
            offset += 1
        }
        return nil
    }
}

extension Kernels {
    /// A string result built row by row over argument columns: rows where any argument is null
    /// are null; `operation` appends the result of the other rows and may return false for null.
    static func strings(
        _ arguments: [Column], rowCount: Int, type: DataType = .varchar,
        _ operation: (_ rowIndex: Int, _ out: inout [UInt8]) throws(SluiceError) -> Bool
    ) throws(SluiceError) -> Column {
        let validity = combinedValidity(arguments)
        return try buildBytes(rowCount: rowCount, type: type) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
            if let validity, !validity[rowIndex] { return false }
            return try operation(rowIndex, &out)
        }
    }

    /// A fixed-width result built row by row over argument columns; rows where any argument is
    /// null are null.
    static func values<R: PrimitiveElement>(
        _ arguments: [Column], rowCount: Int, type: DataType, _ operation: (_ rowIndex: Int) throws(SluiceError) -> R
    ) throws(SluiceError) -> Column {
        let validity = combinedValidity(arguments)
        var output = [R]()
        output.reserveCapacity(rowCount)
        for rowIndex in 0 ..< rowCount {
            if let validity, !validity[rowIndex] {
                output.append(R.nullSlot)
            } else {
                output.append(try operation(rowIndex))
            }
        }
        return Column(type: type, storage: R.storage(output), validity: validity)
    }
}

extension Column {
    /// The elements of an integer column widened to `Int64` (for integer arguments of any width).
    func integerElements() -> [Int64] {
        switch storage {
        case .int16(let values): values.map { Int64($0) }
        case .int32(let values): values.map { Int64($0) }
        case .int64(let values): values
        default: preconditionFailure("column is not an integer column")
        }
    }
}
