/// Variable-length byte strings packed into one buffer with offsets (Arrow's layout).
///
/// Invariant: `offsets.count == count + 1`, `offsets[0] == 0`, offsets never decrease, and
/// `offsets.last == data.count`. String `i` is `data[offsets[i] ..< offsets[i + 1]]`.
@usableFromInline  // so its `@inlinable package` members inline into other modules
package struct VarBytes: Hashable, Sendable {
    @usableFromInline package var offsets: [Int32]
    @usableFromInline package var data: [UInt8]

    package init() {
        offsets = [0]
        data = []
    }

    package init(offsets: [Int32], data: [UInt8]) {
        self.offsets = offsets
        self.data = data
    }

    package var count: Int { offsets.count - 1 }

    package mutating func reserveCapacity(rows: Int, bytes: Int) {
        offsets.reserveCapacity(rows + 1)
        data.reserveCapacity(bytes)
    }

    package mutating func append<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        data.append(contentsOf: bytes)
        offsets.append(Int32(data.count))
    }

    package mutating func append(_ string: String) {
        var string = string
        string.withUTF8 { data.append(contentsOf: $0) }
        offsets.append(Int32(data.count))
    }

    /// Appends the bytes in `buffer` as one string.
    @inlinable
    package mutating func append(bytes buffer: UnsafeRawBufferPointer) {
        data.append(contentsOf: buffer.assumingMemoryBound(to: UInt8.self))
        offsets.append(Int32(truncatingIfNeeded: data.count))
    }

    /// Drops the strings from `newCount` on.
    package mutating func truncate(to newCount: Int) {
        precondition(newCount >= 0 && newCount <= count, "truncating byte strings beyond their end")
        data.removeLast(data.count - Int(offsets[newCount]))
        offsets.removeLast(offsets.count - newCount - 1)
    }

    /// Appends an empty string (the slot of a null).
    @inlinable
    package mutating func appendEmpty() {
        offsets.append(Int32(data.count))
    }

    @inlinable
    package func byteRange(at index: Int) -> Range<Int> {
        Int(offsets[index]) ..< Int(offsets[index + 1])
    }

    @inlinable
    package func length(at index: Int) -> Int {
        Int(offsets[index + 1] - offsets[index])
    }

    /// The bytes of string `index` as an array (for the edges, not for hot loops).
    package func bytes(at index: Int) -> [UInt8] {
        Array(data[byteRange(at: index)])
    }

    /// String `index` decoded as UTF-8 (for the edges, not for hot loops).
    package func string(at index: Int) -> String {
        data.withUnsafeBufferPointer { buffer in
            String(decoding: UnsafeBufferPointer(rebasing: buffer[byteRange(at: index)]), as: UTF8.self)
        }
    }

    /// Calls `body` with a pointer to the bytes of string `index`.
    package func withBytes<R>(at index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try data.withUnsafeBufferPointer { buffer in
            try body(UnsafeBufferPointer(rebasing: buffer[byteRange(at: index)]))
        }
    }
}
