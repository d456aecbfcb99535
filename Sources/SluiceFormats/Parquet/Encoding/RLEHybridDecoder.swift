import SluiceCore

/// The RLE / bit-packing hybrid decoder (Encodings.md), for levels and dictionary indices.
///
/// Reads exactly the values asked for and fails, never traps, on input that ends early, runs
/// that claim more values than asked for are clipped (a writer pads its last bit-packed group).
struct RLEHybridDecoder {
    private let bytes: UnsafeRawBufferPointer
    private var position: Int
    private let bitWidth: Int

    init(_ bytes: UnsafeRawBufferPointer, bitWidth: Int) {
        self.bytes = bytes
        self.position = 0
        self.bitWidth = bitWidth
    }

    static func corrupt(_ what: String) -> SluiceError {
        SluiceError(.dataCorrupted, "invalid parquet page: \(what)")
    }

    /// Decodes `output.count` values into `output`; values wider than `Value` are refused.
    mutating func decode<Value: FixedWidthInteger & UnsignedInteger>(into output: UnsafeMutableBufferPointer<Value>) throws(SluiceError) {
        guard bitWidth <= 32, bitWidth <= Value.bitWidth else { throw Self.corrupt("bit width \(bitWidth)") }
        var written = 0
        let total = output.count
        let mask: UInt64 = bitWidth == 64 ? ~0 : (1 << UInt64(bitWidth)) - 1
        while written < total {
            let header = try readVarint()
            if header & 1 == 0 {
                let runLength = header >> 1
                let valueBytes = (bitWidth + 7) / 8
                guard bytes.count - position >= valueBytes else { throw Self.corrupt("RLE run past the end") }
                var value: UInt64 = 0
                for byteIndex in 0 ..< valueBytes { value |= UInt64(bytes[position + byteIndex]) << UInt64(8 * byteIndex) }
                position += valueBytes
                guard value <= mask else { throw Self.corrupt("RLE value wider than its bit width") }
                guard runLength > 0 else { throw Self.corrupt("empty RLE run") }
                let take = Int(min(runLength, UInt64(total - written)))
                (output.baseAddress! + written).update(repeating: Value(truncatingIfNeeded: value), count: take)
                written += take
            } else {
                let groups = header >> 1
                guard groups > 0, groups <= UInt64(bytes.count) else { throw Self.corrupt("bit-packed run of \(groups) groups") }
                let valueCount = Int(groups) * 8
                let byteCount = (valueCount * bitWidth + 7) / 8
                // A writer may end the last run early when its values run out (parquet-mr does).
                let available = min(byteCount, bytes.count - position)
                let take = min(valueCount, total - written, bitWidth == 0 ? valueCount : available * 8 / bitWidth)
                guard take > 0 || total == written else { throw Self.corrupt("bit-packed run past the end") }
                BitUnpacking.unpack(
                    UnsafeRawBufferPointer(rebasing: bytes[position ..< position + available]), bitWidth: bitWidth,
                    count: take, into: output.baseAddress! + written)
                written += take
                position += available
            }
        }
    }

    /// Whether `bytes` begin with one RLE run of `value` covering at least `count` values: the
    /// levels of a page without NULLs, known without decoding them.
    static func startsWithRun(_ bytes: UnsafeRawBufferPointer, of value: Int, count: Int, bitWidth: Int) -> Bool {
        var decoder = RLEHybridDecoder(bytes, bitWidth: bitWidth)
        guard bitWidth <= 32, let header = try? decoder.readVarint(), header & 1 == 0, header >> 1 >= UInt64(count) else { return false }
        let valueBytes = (bitWidth + 7) / 8
        guard bytes.count - decoder.position >= valueBytes else { return false }
        var decoded = 0
        for byteIndex in 0 ..< valueBytes { decoded |= Int(bytes[decoder.position + byteIndex]) << (8 * byteIndex) }
        return decoded == value
    }

    private mutating func readVarint() throws(SluiceError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < bytes.count else { throw Self.corrupt("levels or indices end early") }
            let byte = bytes[position]
            position += 1
            guard shift < 64 else { throw Self.corrupt("varint too long") }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }
}

/// Unpacking of little-endian bit-packed values.
enum BitUnpacking {
    /// Unpacks `count` values of `bitWidth` bits (at most 32) from `bytes`, which holds at least
    /// `count * bitWidth` bits.
    static func unpack<Value: FixedWidthInteger & UnsignedInteger>(
        _ bytes: UnsafeRawBufferPointer, bitWidth: Int, count: Int, into output: UnsafeMutablePointer<Value>
    ) {
        guard bitWidth > 0 else {
            output.update(repeating: 0, count: count)
            return
        }
        let mask: UInt64 = (1 << UInt64(bitWidth)) - 1
        let byteCount = bytes.count
        var bitPosition = 0
        var start = 0
        if bitWidth <= 8, let base = bytes.baseAddress {
            // Eight values of at most 8 bits are `bitWidth` bytes: one 8-byte load holds them,
            // while 8 bytes from the group's start are there to load.
            let width = UInt64(bitWidth)
            while start + 8 <= count && (start >> 3) * bitWidth + 8 <= byteCount {
                let word = UInt64(littleEndian: (base + (start >> 3) * bitWidth).loadUnaligned(as: UInt64.self))
                for offset in 0 ..< 8 { output[start + offset] = Value(truncatingIfNeeded: (word >> (UInt64(offset) &* width)) & mask) }
                start += 8
            }
            bitPosition = start * bitWidth
        }
        for index in start ..< count {
            let byteIndex = bitPosition >> 3
            var word: UInt64
            if byteIndex + 8 <= byteCount {
                word = bytes.loadUnaligned(fromByteOffset: byteIndex, as: UInt64.self)
            } else {
                word = 0
                for offset in 0 ..< min(8, byteCount - byteIndex) { word |= UInt64(bytes[byteIndex + offset]) << UInt64(8 * offset) }
            }
            output[index] = Value(truncatingIfNeeded: (UInt64(littleEndian: word) >> UInt64(bitPosition & 7)) & mask)
            bitPosition += bitWidth
        }
    }
}
