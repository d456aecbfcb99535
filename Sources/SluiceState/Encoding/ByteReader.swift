import SluiceCore

/// Reads little-endian values from raw bytes, failing cleanly at the end.
struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    var offset: Int

    mutating func read<T: FixedWidthInteger>(_: T.Type) throws(SluiceError) -> T {
        let size = MemoryLayout<T>.size
        guard offset + size <= bytes.count else { throw SluiceError(.ioError, "stored data is truncated") }
        let value = T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
        offset += size
        return value
    }

    /// `count` values, copied as one block on a little-endian host.
    mutating func readArray<T: FixedWidthInteger>(_: T.Type, count: Int) throws(SluiceError) -> [T] {
        let (size, overflow) = MemoryLayout<T>.size.multipliedReportingOverflow(by: count)
        guard count >= 0, !overflow, size <= bytes.count - offset else { throw SluiceError(.ioError, "stored data is truncated") }
        #if _endian(little)
        let values = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            if count > 0 { UnsafeMutableRawPointer(buffer.baseAddress!).copyMemory(from: bytes.baseAddress! + offset, byteCount: size) }
            initialized = count
        }
        offset += size
        return values
        #else
        var values: [T] = []
        values.reserveCapacity(count)
        for _ in 0 ..< count { values.append(try read(T.self)) }
        return values
        #endif
    }

    mutating func skip(to offset: Int) {
        self.offset = offset
    }

    /// Moves past `count` bytes, which must be there.
    mutating func skip(_ count: Int) throws(SluiceError) {
        guard count >= 0, count <= bytes.count - offset else { throw SluiceError(.ioError, "stored data is truncated") }
        offset += count
    }

    mutating func readBytes(_ count: Int) throws(SluiceError) -> [UInt8] {
        guard count >= 0, count <= bytes.count - offset else { throw SluiceError(.ioError, "stored data is truncated") }
        defer { offset += count }
        return Array(UnsafeRawBufferPointer(rebasing: bytes[offset ..< offset + count]))
    }
}

extension Array where Element == UInt8 {
    /// Appends `value` as little-endian bytes: the byte order of every stored integer.
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
