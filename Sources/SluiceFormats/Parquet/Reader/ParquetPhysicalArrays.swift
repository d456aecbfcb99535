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
    /// them), with one copy of the bytes: straight from the page when it is aligned for `T`,
    /// else through a small aligned block.
    private func appendRaw<T: BitwiseCopyable>(_ page: UnsafeRawBufferPointer, count: Int, to array: inout [T]) {
        guard count > 0, let base = page.baseAddress else { return }
        array.reserveAdditional(count)
        if Int(bitPattern: base) % MemoryLayout<T>.alignment == 0 {
            array.append(contentsOf: UnsafeBufferPointer(start: base.assumingMemoryBound(to: T.self), count: count))
            return
        }
        withUnsafeTemporaryAllocation(of: T.self, capacity: Self.blockValues) { block in
            var start = 0
            while start < count {
                let length = min(Self.blockValues, count - start)
                UnsafeMutableRawBufferPointer(block).copyMemory(
                    from: UnsafeRawBufferPointer(start: base + start * MemoryLayout<T>.stride, count: length * MemoryLayout<T>.stride))
                array.append(contentsOf: UnsafeBufferPointer(rebasing: block[0 ..< length]))
                start += length
            }
        }
    }

    /// Empties the arrays, keeping their room for the next page.
    mutating func removeAll() {
        booleans.removeAll(keepingCapacity: true)
        int32s.removeAll(keepingCapacity: true)
        int64s.removeAll(keepingCapacity: true)
        floats.removeAll(keepingCapacity: true)
        doubles.removeAll(keepingCapacity: true)
        bytes.truncate(to: 0)
    }

    /// Appends values `range` of `other` (of the same physical type).
    mutating func append(_ other: ParquetPhysicalArrays, _ range: Range<Int>) {
        switch physicalType {
        case .boolean: booleans.append(contentsOf: other.booleans[range])
        case .int32: int32s.append(contentsOf: other.int32s[range])
        case .int64, .int96: int64s.append(contentsOf: other.int64s[range])
        case .float: floats.append(contentsOf: other.floats[range])
        case .double: doubles.append(contentsOf: other.doubles[range])
        case .byteArray, .fixedLenByteArray:
            guard !range.isEmpty else { return }
            // One copy of the bytes, and the offsets moved by where they now start.
            let start = Int(other.bytes.offsets[range.lowerBound]), end = Int(other.bytes.offsets[range.upperBound])
            let shift = Int32(truncatingIfNeeded: bytes.data.count - start)
            bytes.data.append(contentsOf: other.bytes.data[start ..< end])
            bytes.offsets.append(contentsOf: other.bytes.offsets[range.lowerBound + 1 ... range.upperBound].lazy.map { $0 &+ shift })
        }
    }

    /// Values moved at a time through a block on the stack.
    private static let blockValues = 1024

    /// Makes room for `count` more values, so a column chunk's pages append without regrowing
    /// the array page by page.
    mutating func reserveAdditional(_ count: Int) {
        switch physicalType {
        case .boolean: booleans.reserveAdditional(count)
        case .int32: int32s.reserveAdditional(count)
        case .int64, .int96: int64s.reserveAdditional(count)
        case .float: floats.reserveAdditional(count)
        case .double: doubles.reserveAdditional(count)
        case .byteArray, .fixedLenByteArray: bytes.offsets.reserveAdditional(count)
        }
    }

    /// Appends `dictionary[index]` for each of `indices`; an index past the dictionary fails.
    mutating func appendGathered(from dictionary: ParquetPhysicalArrays, indices: UnsafeBufferPointer<UInt32>) throws(SluiceError) {
        switch physicalType {
        // (The fixed-width gathers check each index as they go.)
        case .int32: try gather(dictionary.int32s, indices, into: &int32s)
        case .int64, .int96: try gather(dictionary.int64s, indices, into: &int64s)
        case .float: try gather(dictionary.floats, indices, into: &floats)
        case .double: try gather(dictionary.doubles, indices, into: &doubles)
        case .boolean:
            try Self.check(indices, size: dictionary.count)
            booleans.append(contentsOf: indices.lazy.map { dictionary.booleans[Int($0)] })
        case .byteArray, .fixedLenByteArray:
            try Self.check(indices, size: dictionary.count)
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

    /// Fails when an index is past a dictionary of `size` entries.
    private static func check(_ indices: UnsafeBufferPointer<UInt32>, size: Int) throws(SluiceError) {
        let largest = indices.reduce(0) { Swift.max($0, $1) }
        guard indices.isEmpty || Int(largest) < size else { throw corrupt("dictionary index \(largest) past its \(size) entries") }
    }

    /// Appends `source[index]` per index, gathered a block at a time on the stack and appended
    /// with one copy (appending value by value checks the array's room per value); fails, with
    /// `target` as it was, when an index is past `source`.
    private func gather<T: BitwiseCopyable>(_ source: [T], _ indices: UnsafeBufferPointer<UInt32>, into target: inout [T]) throws(SluiceError) {
        target.reserveAdditional(indices.count)
        let before = target.count
        let inRange = source.withUnsafeBufferPointer { source in
            withUnsafeTemporaryAllocation(of: T.self, capacity: Self.blockValues) { block -> Bool in
                guard !source.isEmpty, let values = source.baseAddress, let slots = block.baseAddress else { return indices.isEmpty }
                // (An index past the end reads the last entry, then fails the block.)
                let size = UInt32(truncatingIfNeeded: source.count)
                var start = 0
                while start < indices.count {
                    let length = min(Self.blockValues, indices.count - start)
                    var past = false
                    for offset in 0 ..< length {
                        let index = indices[start + offset]
                        past = past || index >= size
                        (slots + offset).initialize(to: values[Int(min(index, size &- 1))])
                    }
                    guard !past else { return false }
                    target.append(contentsOf: UnsafeBufferPointer(start: slots, count: length))
                    start += length
                }
                return true
            }
        }
        guard inRange else {
            target.removeLast(target.count - before)
            throw Self.corrupt("dictionary index \(indices.max() ?? 0) past its \(source.count) entries")
        }
    }
}
