#if canImport(Glibc)
import Glibc
#endif
import SluiceCore

/// The keys of many rows in one byte buffer: key `i` is `bytes[start(i) ..< ends[i]]`.
///
/// One allocation for a whole page or epoch of keys instead of one array per key. Keys compare
/// bytewise, a proper prefix first (``ByteOrder``).
package struct KeyBuffer: Sendable {
    package private(set) var bytes: [UInt8] = []
    /// The end offset of each key in ``bytes``.
    package private(set) var ends: [Int32] = []

    package init() {}

    package init(reservingKeys keys: Int, bytes byteCount: Int) {
        ends.reserveCapacity(keys)
        bytes.reserveCapacity(byteCount)
    }

    /// Keys already laid out: `ends` ascending, the last one `bytes.count`.
    init(bytes: [UInt8], ends: [Int32]) {
        self.bytes = bytes
        self.ends = ends
    }

    package var count: Int { ends.count }

    /// Makes room for `additionalKeys` more keys, growing geometrically (an exact reservation
    /// per call would copy the buffer every time).
    package mutating func reserve(additionalKeys: Int) {
        let needed = ends.count + additionalKeys
        if needed > ends.capacity { ends.reserveCapacity(Swift.max(needed, ends.capacity * 2)) }
    }
    package var isEmpty: Bool { ends.isEmpty }

    @inlinable
    package func start(_ index: Int) -> Int { index == 0 ? 0 : Int(ends[index - 1]) }

    /// Key `index` as an array (for tests and edges; the data path compares in place).
    package func key(_ index: Int) -> [UInt8] { Array(bytes[start(index) ..< Int(ends[index])]) }

    /// Whether this and `other` share one byte buffer (copies of one page's keys, say).
    package func isSameBuffer(as other: KeyBuffer) -> Bool {
        bytes.withUnsafeBufferPointer { mine in other.bytes.withUnsafeBufferPointer { $0.baseAddress == mine.baseAddress } }
            && ends.count == other.ends.count
    }

    /// Appends a key.
    package mutating func append(_ key: some Collection<UInt8>) {
        bytes.append(contentsOf: key)
        ends.append(Int32(bytes.count))
    }

    /// Appends key `index` of `other`.
    package mutating func append(_ index: Int, of other: KeyBuffer) {
        let range = other.start(index) ..< Int(other.ends[index])
        bytes.append(contentsOf: other.bytes[range])
        ends.append(Int32(bytes.count))
    }

    /// Drops the keys from `index` on.
    package mutating func removeKeys(from index: Int) {
        guard index < ends.count else { return }
        bytes.removeLast(bytes.count - start(index))
        ends.removeLast(ends.count - index)
    }

    /// Appends keys `range` of `other`, as one block.
    package mutating func append(_ range: Range<Int>, of other: KeyBuffer) {
        guard !range.isEmpty else { return }
        let byteStart = other.start(range.lowerBound)
        let shift = Int32(bytes.count - byteStart)
        bytes.append(contentsOf: other.bytes[byteStart ..< Int(other.ends[range.upperBound - 1])])
        ends.reserveCapacity(ends.count + range.count)
        other.ends.withUnsafeBufferPointer { otherEnds in
            for index in range { ends.append(otherEnds[index] + shift) }
        }
    }

    /// Appends the bytes of key `index` to `out` (the start of a longer key built there).
    package func appendKey(_ index: Int, to out: inout [UInt8]) {
        out.append(contentsOf: bytes[start(index) ..< Int(ends[index])])
    }

    /// Starts a key written byte by byte into ``bytes`` through `body`; the key ends where
    /// `body` stops writing.
    package mutating func appendKey(_ body: (inout [UInt8]) -> Void) {
        body(&bytes)
        ends.append(Int32(bytes.count))
    }

    /// Replaces two bytes of the buffer (a key's vnode prefix, written after its hash is known).
    package mutating func setBytes(at offset: Int, _ first: UInt8, _ second: UInt8) {
        bytes[offset] = first
        bytes[offset + 1] = second
    }

    /// -1, 0 or 1 as key `index` sorts before, equal to or after key `otherIndex` of `other`.
    @inlinable
    package func compare(_ index: Int, with otherIndex: Int, of other: KeyBuffer) -> Int {
        let leftStart = start(index)
        let leftCount = Int(ends[index]) - leftStart
        let rightStart = other.start(otherIndex)
        let rightCount = Int(other.ends[otherIndex]) - rightStart
        return bytes.withUnsafeBufferPointer { left in
            other.bytes.withUnsafeBufferPointer { right in
                Self.compare(left.baseAddress! + leftStart, leftCount, right.baseAddress! + rightStart, rightCount)
            }
        }
    }

    /// -1, 0 or 1 as key `index` sorts before, equal to or after `key`.
    package func compare(_ index: Int, with key: [UInt8]) -> Int {
        let leftStart = start(index)
        let leftCount = Int(ends[index]) - leftStart
        return bytes.withUnsafeBufferPointer { left in
            key.withUnsafeBufferPointer { right in
                Self.compare(left.baseAddress! + leftStart, leftCount, right.baseAddress, right.count)
            }
        }
    }

    /// Whether key `index` begins with `prefix`.
    package func hasPrefix(_ index: Int, _ prefix: [UInt8]) -> Bool {
        let keyStart = start(index)
        guard Int(ends[index]) - keyStart >= prefix.count else { return false }
        return bytes.withUnsafeBufferPointer { key in
            prefix.withUnsafeBufferPointer { prefix in
                prefix.isEmpty || memcmp(key.baseAddress! + keyStart, prefix.baseAddress!, prefix.count) == 0
            }
        }
    }

    @inlinable
    static func compare(_ left: UnsafePointer<UInt8>?, _ leftCount: Int, _ right: UnsafePointer<UInt8>?, _ rightCount: Int) -> Int {
        let common = Swift.min(leftCount, rightCount)
        if common >= 8, let left, let right {
            // Most keys differ in their first eight bytes (the vnode and the key's start).
            let leftWord = UInt64(bigEndian: UnsafeRawPointer(left).loadUnaligned(as: UInt64.self))
            let rightWord = UInt64(bigEndian: UnsafeRawPointer(right).loadUnaligned(as: UInt64.self))
            if leftWord != rightWord { return leftWord < rightWord ? -1 : 1 }
        }
        if common > 0, let left, let right {
            let order = memcmp(left, right, common)
            if order != 0 { return order < 0 ? -1 : 1 }
        }
        return leftCount == rightCount ? 0 : (leftCount < rightCount ? -1 : 1)
    }
}

/// The 256 buckets a state table's keys are spread over (RisingWave's virtual nodes): every key
/// begins with its vnode as two big-endian bytes, so a fragment can later run as parallel
/// instances that each own a range of vnodes, without changing any operator.
package enum VirtualNode {
    package static let count = 256

    /// Appends a state-table key to `bytes`: the vnode of what `encode` appends, then that.
    @inlinable
    package static func appendKey(to bytes: inout [UInt8], _ encode: (inout [UInt8]) -> Void) {
        let start = bytes.count
        bytes.append(0)
        bytes.append(0)
        encode(&bytes)
        let vnode = bytes.withUnsafeBufferPointer { of(UnsafeBufferPointer(rebasing: $0[(start + 2)...])) }
        bytes[start] = UInt8(vnode >> 8)
        bytes[start + 1] = UInt8(vnode & 0xFF)
    }

    /// The vnode of a distribution key's encoded bytes.
    @inlinable
    package static func of(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt16 {
        // FNV-1a, folded: cheap, and spreads short integer keys well enough for 256 buckets.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        hash ^= hash >> 29
        hash = hash &* 0xbf58_476d_1ce4_e5b9
        hash ^= hash >> 32
        return UInt16(truncatingIfNeeded: hash % UInt64(count))
    }
}

/// The order of memcomparable keys: bytewise, a proper prefix first.
package enum ByteOrder {
    /// -1, 0 or 1 as `lhs` sorts before, equal to or after `rhs`.
    @inlinable
    package static func compare(_ lhs: [UInt8], _ rhs: [UInt8]) -> Int {
        lhs.withUnsafeBufferPointer { left in
            rhs.withUnsafeBufferPointer { right in
                KeyBuffer.compare(left.baseAddress, left.count, right.baseAddress, right.count)
            }
        }
    }
}
