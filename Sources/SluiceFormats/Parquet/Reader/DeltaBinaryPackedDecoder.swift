import SluiceCore

/// The DELTA_BINARY_PACKED decoder (Encodings.md, "Delta Encoding"): a header (block size,
/// miniblocks per block, value count, first value), then blocks of a zigzag minimum delta, one
/// bit width per miniblock, and the bit-packed miniblocks.
struct DeltaBinaryPackedDecoder {
    private let bytes: UnsafeRawBufferPointer
    /// Where the encoded values end (the lengths of DELTA_LENGTH_BYTE_ARRAY are followed by
    /// the bytes).
    private(set) var position = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    private static func corrupt(_ what: String) -> SluiceError {
        SluiceError(.dataCorrupted, "invalid parquet page: DELTA_BINARY_PACKED \(what)")
    }

    /// The first `count` values; the header must declare at least that many.
    mutating func decode(count: Int) throws(SluiceError) -> [Int64] {
        let blockSize = try readVarint()
        let miniblockCount = try readVarint()
        let totalCount = try readVarint()
        var previous = try readZigzag()
        guard blockSize > 0, blockSize % 128 == 0, blockSize <= 1 << 16, miniblockCount > 0, blockSize % miniblockCount == 0 else {
            throw Self.corrupt("block of \(blockSize) values in \(miniblockCount) miniblocks")
        }
        let valuesPerMiniblock = Int(blockSize / miniblockCount)
        guard valuesPerMiniblock % 32 == 0 else { throw Self.corrupt("miniblock of \(valuesPerMiniblock) values") }
        guard totalCount >= UInt64(count) else { throw Self.corrupt("holds \(totalCount) values, \(count) needed") }
        var result: [Int64] = []
        result.reserveCapacity(count)
        if count > 0 { result.append(previous) }
        var scratch = [UInt64](repeating: 0, count: valuesPerMiniblock)
        var remaining = Int(totalCount) - 1
        while remaining > 0 {
            let minimumDelta = try readZigzag()
            guard bytes.count - position >= Int(miniblockCount) else { throw Self.corrupt("bit widths past the end") }
            let widthsStart = position
            position += Int(miniblockCount)
            for miniblock in 0 ..< Int(miniblockCount) where remaining > 0 {
                let bitWidth = Int(bytes[widthsStart + miniblock])
                guard bitWidth <= 64 else { throw Self.corrupt("bit width \(bitWidth)") }
                let byteCount = valuesPerMiniblock * bitWidth / 8
                // A writer may leave off miniblocks after the last value.
                guard byteCount <= bytes.count - position else { throw Self.corrupt("miniblock past the end") }
                try unpack(UnsafeRawBufferPointer(rebasing: bytes[position ..< position + byteCount]), bitWidth: bitWidth, into: &scratch)
                position += byteCount
                let take = min(valuesPerMiniblock, remaining)
                for index in 0 ..< take {
                    previous = previous &+ minimumDelta &+ Int64(bitPattern: scratch[index])
                    if result.count < count { result.append(previous) }
                }
                remaining -= take
            }
        }
        return result
    }

    private func unpack(_ source: UnsafeRawBufferPointer, bitWidth: Int, into values: inout [UInt64]) throws(SluiceError) {
        if bitWidth <= 32 {
            values.withUnsafeMutableBufferPointer { values in
                BitUnpacking.unpack(source, bitWidth: bitWidth, count: values.count, into: values.baseAddress!)
            }
            return
        }
        // Wide deltas: bit by bit (rare; only for deltas beyond 32 bits).
        for index in values.indices {
            var value: UInt64 = 0
            for bit in 0 ..< bitWidth {
                let position = index * bitWidth + bit
                if (source[position >> 3] >> UInt8(position & 7)) & 1 == 1 { value |= 1 << UInt64(bit) }
            }
            values[index] = value
        }
    }

    private mutating func readVarint() throws(SluiceError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < bytes.count else { throw Self.corrupt("header past the end") }
            let byte = bytes[position]
            position += 1
            guard shift < 64 else { throw Self.corrupt("varint too long") }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    private mutating func readZigzag() throws(SluiceError) -> Int64 {
        let raw = try readVarint()
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }
}
