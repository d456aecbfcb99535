import SluiceCore

/// Decoded values of one leaf in Parquet's physical representation (one array used, by the
/// leaf's physical type; INT96 is kept as microseconds in `int64s`, FIXED_LEN_BYTE_ARRAY in
/// `bytes`), for a column chunk or its dictionary.
struct ParquetPhysicalArrays {
    let physicalType: ParquetPhysicalType
    let typeLength: Int
    var booleans: [Bool] = []
    var int32s: [Int32] = []
    var int64s: [Int64] = []
    var floats: [Float] = []
    var doubles: [Double] = []
    var bytes = VarBytes()

    init(physicalType: ParquetPhysicalType, typeLength: Int) {
        self.physicalType = physicalType
        self.typeLength = typeLength
    }

    var count: Int {
        switch physicalType {
        case .boolean: booleans.count
        case .int32: int32s.count
        case .int64, .int96: int64s.count
        case .float: floats.count
        case .double: doubles.count
        case .byteArray, .fixedLenByteArray: bytes.count
        }
    }

    static func corrupt(_ what: String) -> SluiceError {
        SluiceError(.dataCorrupted, "invalid parquet page: \(what)")
    }

    /// Appends `count` PLAIN-encoded values from `page` (Encodings.md, "Plain").
    mutating func appendPlain(_ page: UnsafeRawBufferPointer, count: Int) throws(SluiceError) {
        func need(_ byteCount: Int) throws(SluiceError) {
            guard byteCount <= page.count else { throw Self.corrupt("\(count) plain values need \(byteCount) bytes, the page has \(page.count)") }
        }
        switch physicalType {
        case .boolean:
            try need((count + 7) / 8)
            booleans.reserveAdditional(count)
            for index in 0 ..< count { booleans.append((page[index >> 3] >> UInt8(index & 7)) & 1 == 1) }
        case .int32:
            try need(count * 4)
            appendRaw(page, count: count, to: &int32s)
        case .int64:
            try need(count * 8)
            appendRaw(page, count: count, to: &int64s)
        case .float:
            try need(count * 4)
            appendRaw(page, count: count, to: &floats)
        case .double:
            try need(count * 8)
            appendRaw(page, count: count, to: &doubles)
        case .int96:
            // Impala's timestamp: nanoseconds of the day (8 bytes), then the Julian day (4 bytes).
            try need(count * 12)
            int64s.reserveAdditional(count)
            for index in 0 ..< count {
                let nanoseconds = Int64(littleEndian: page.loadUnaligned(fromByteOffset: index * 12, as: Int64.self))
                let julianDay = Int64(Int32(littleEndian: page.loadUnaligned(fromByteOffset: index * 12 + 8, as: Int32.self)))
                int64s.append((julianDay - 2_440_588) &* 86_400_000_000 &+ nanoseconds / 1000)
            }
        case .byteArray:
            var position = 0
            bytes.offsets.reserveAdditional(count)
            for _ in 0 ..< count {
                guard page.count - position >= 4 else { throw Self.corrupt("byte array length past the end") }
                let length = Int(UInt32(littleEndian: page.loadUnaligned(fromByteOffset: position, as: UInt32.self)))
                position += 4
                guard length <= page.count - position else { throw Self.corrupt("byte array of \(length) bytes past the end") }
                bytes.append(bytes: UnsafeRawBufferPointer(rebasing: page[position ..< position + length]))
                position += length
            }
        case .fixedLenByteArray:
            try need(count * typeLength)
            for index in 0 ..< count {
                bytes.append(bytes: UnsafeRawBufferPointer(rebasing: page[index * typeLength ..< (index + 1) * typeLength]))
            }
        }
    }

    /// Appends `count` little-endian values of `T` from the start of `page` (checked to hold
    /// them), with one copy of the bytes.
    private func appendRaw<T: BitwiseCopyable>(_ page: UnsafeRawBufferPointer, count: Int, to array: inout [T]) {
        let values = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            if count > 0 {
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(rebasing: page[0 ..< count * MemoryLayout<T>.stride]))
            }
            initialized = count
        }
        if array.isEmpty { array = values } else { array.append(contentsOf: values) }
    }

    /// Appends `dictionary[index]` for each of `indices`; an index past the dictionary fails.
    mutating func appendGathered(from dictionary: ParquetPhysicalArrays, indices: UnsafeBufferPointer<UInt32>) throws(SluiceError) {
        let size = dictionary.count
        for index in indices where Int(index) >= size {
            throw Self.corrupt("dictionary index \(index) past its \(size) entries")
        }
        switch physicalType {
        case .boolean: booleans.append(contentsOf: indices.lazy.map { dictionary.booleans[Int($0)] })
        case .int32: gather(dictionary.int32s, indices, into: &int32s)
        case .int64, .int96: gather(dictionary.int64s, indices, into: &int64s)
        case .float: gather(dictionary.floats, indices, into: &floats)
        case .double: gather(dictionary.doubles, indices, into: &doubles)
        case .byteArray, .fixedLenByteArray:
            dictionary.bytes.offsets.withUnsafeBufferPointer { offsets in
                dictionary.bytes.data.withUnsafeBytes { data in
                    var total = 0
                    for index in indices { total += Int(offsets[Int(index) + 1] - offsets[Int(index)]) }
                    bytes.data.reserveAdditional(total)
                    bytes.offsets.reserveAdditional(indices.count)
                    for index in indices {
                        let start = Int(offsets[Int(index)]), end = Int(offsets[Int(index) + 1])
                        bytes.append(bytes: UnsafeRawBufferPointer(rebasing: data[start ..< end]))
                    }
                }
            }
        }
    }

    private func gather<T>(_ source: [T], _ indices: UnsafeBufferPointer<UInt32>, into target: inout [T]) {
        source.withUnsafeBufferPointer { source in
            target.reserveAdditional(indices.count)
            for index in indices { target.append(source[Int(index)]) }
        }
    }
}
