import Glibc
import SluiceCore
import SluiceState

/// Hashes of key columns, a column at a time, and equality of keys between rows of two chunks,
/// a column at a time over lists of row pairs: what hash joins and hash aggregates compare keys
/// with, without making a key value or a byte string per row.
package enum KeyHash {
    static let seed: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// The hash of each row's values in `keys` (a null hashes as its slot's zero value; equality
    /// tells them apart).
    package static func hashes(_ chunk: Chunk, keys: [Int]) -> [UInt64] {
        var hashes = [UInt64](repeating: seed, count: chunk.count)
        for key in keys { combine(chunk.columns[key], into: &hashes) }
        return hashes
    }

    /// splitmix64's finalizer: every input bit reaches every output bit.
    @inline(__always) static func mix(_ value: UInt64) -> UInt64 { KeyHashing.mix(value) }

    private static func combine(_ column: Column, into hashes: inout [UInt64]) {
        let count = hashes.count
        hashes.withUnsafeMutableBufferPointer { out in
            func integers<T: FixedWidthInteger>(_ values: [T]) {
                values.withUnsafeBufferPointer { values in
                    for row in 0 ..< count { out[row] = mix(out[row] ^ UInt64(truncatingIfNeeded: values[row])) }
                }
            }
            switch column.storage {
            case .int16(let values): integers(values)
            case .int32(let values): integers(values)
            case .int64(let values): integers(values)
            case .bool(let values):
                for row in 0 ..< count { out[row] = mix(out[row] ^ (values[row] ? 1 : 0)) }
            case .bytes(let values):
                values.data.withUnsafeBufferPointer { data in
                    values.offsets.withUnsafeBufferPointer { offsets in
                        for row in 0 ..< count {
                            let start = Int(offsets[row])
                            let end = Int(offsets[row + 1])
                            out[row] = mix(out[row] ^ bytesHash(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(data)[start ..< end])))
                        }
                    }
                }
            default:
                // Decimals (1.0 equals 1.00), floats (-0 equals 0), intervals, structs and lists:
                // through their equality-preserving byte encoding.
                var bytes: [UInt8] = []
                for row in 0 ..< count {
                    bytes.removeAll(keepingCapacity: true)
                    KeyEncoding.append(column, row: row, to: &bytes)
                    out[row] = mix(out[row] ^ bytes.withUnsafeBytes { bytesHash($0) })
                }
            }
        }
    }

    /// A hash of a byte string, eight bytes at a time (``KeyHashing/bytes(_:)``).
    @inline(__always) static func bytesHash(_ bytes: UnsafeRawBufferPointer) -> UInt64 { KeyHashing.bytes(bytes) }

    /// Keeps the pairs `(leftRows[i], rightRows[i])` whose keys are equal (nulls equal to nulls
    /// when `nullsEqual`, else never equal), in order.
    /// (Only the pairs from index `start` on are looked at; those before it stay.)
    static func keepEqual(
        _ left: Chunk, _ leftKeys: [Int], _ right: Chunk, _ rightKeys: [Int], nullsEqual: Bool,
        leftRows: inout [Int], rightRows: inout [Int], from start: Int = 0
    ) {
        var keep = [Bool](repeating: true, count: leftRows.count)
        for (leftKey, rightKey) in zip(leftKeys, rightKeys) {
            markEqual(left.columns[leftKey], leftRows, right.columns[rightKey], rightRows, from: start, nullsEqual: nullsEqual, keep: &keep)
        }
        var write = start
        for index in start ..< keep.count where keep[index] {
            leftRows[write] = leftRows[index]
            rightRows[write] = rightRows[index]
            write += 1
        }
        leftRows.removeLast(leftRows.count - write)
        rightRows.removeLast(rightRows.count - write)
    }

    private static func markEqual(
        _ a: Column, _ aRows: [Int], _ b: Column, _ bRows: [Int], from start: Int, nullsEqual: Bool, keep: inout [Bool]
    ) {
        let count = aRows.count
        func values<T: Equatable>(_ x: [T], _ y: [T]) {
            for index in start ..< count where keep[index] && x[aRows[index]] != y[bRows[index]] { keep[index] = false }
        }
        switch (a.storage, b.storage) {
        case (.int16(let x), .int16(let y)): values(x, y)
        case (.int32(let x), .int32(let y)): values(x, y)
        case (.int64(let x), .int64(let y)): values(x, y)
        case (.bool(let x), .bool(let y)): values(x, y)
        case (.bytes(let x), .bytes(let y)):
            x.data.withUnsafeBufferPointer { xData in
                y.data.withUnsafeBufferPointer { yData in
                    for index in start ..< count where keep[index] {
                        let xRange = x.byteRange(at: aRows[index])
                        let yRange = y.byteRange(at: bRows[index])
                        if xRange.count != yRange.count
                            || (!xRange.isEmpty && memcmp(xData.baseAddress! + xRange.lowerBound, yData.baseAddress! + yRange.lowerBound, xRange.count) != 0)
                        {
                            keep[index] = false
                        }
                    }
                }
            }
        default:
            var xBytes: [UInt8] = []
            var yBytes: [UInt8] = []
            for index in start ..< count where keep[index] {
                xBytes.removeAll(keepingCapacity: true)
                yBytes.removeAll(keepingCapacity: true)
                KeyEncoding.append(a, row: aRows[index], to: &xBytes)
                KeyEncoding.append(b, row: bRows[index], to: &yBytes)
                if xBytes != yBytes { keep[index] = false }
            }
        }
        if a.hasNulls || b.hasNulls {
            for index in start ..< count {
                let (aNull, bNull) = (a.isNull(aRows[index]), b.isNull(bRows[index]))
                if aNull || bNull { keep[index] = keep[index] && nullsEqual && aNull == bNull }
            }
        }
    }
}

/// The build side of a hash join: its rows chained by the hash of their key, each row's hash
/// and the next row of its chain side by side in one entry. Each bucket's head holds, besides
/// its chain's first row, a 32-bit filter with one bit set per row of the chain (picked by the
/// hash's top bits), so that most probe rows that match nothing are turned away by the head
/// alone. Rows with a null in the key are left out, as they match nothing.
///
/// A probe chunk's heads are looked up in one pass first (``candidates(_:keys:hashes:)``):
/// the loads do not depend on one another, so the processor overlaps their cache misses,
/// which the walk along the chains, one row at a time, cannot.
struct JoinHashTable {
    let build: Chunk
    let keys: [Int]
    /// Per bucket: the filter in the high 32 bits, the chain's first row (or all ones) in the low.
    private var heads: [UInt64]
    /// Row `r`'s hash and the next row of its chain (or -1).
    private var entries: [Entry]
    private let mask: Int

    /// The bytes the table holds per build row, besides the rows: its entry and two heads.
    static let bytesPerRow = MemoryLayout<Entry>.stride + 2 * MemoryLayout<UInt64>.stride

    private struct Entry {
        var hash: UInt64
        var next: Int32
    }

    private static let emptyHead = UInt64(UInt32.max)

    /// The filter bit of a hash (its top five bits pick it; the bucket comes from the low bits).
    @inline(__always) private static func filterBit(_ hash: UInt64) -> UInt64 { 1 << (32 + (hash >> 59)) }

    /// Where a probe stopped: the probe row, and the build row of its chain to go on from (-1:
    /// start at the row's candidate).
    struct Cursor {
        var row = 0
        var entry: Int32 = -1
    }

    init(build: Chunk, keys: [Int]) {
        self.build = build
        self.keys = keys
        let hashes = KeyHash.hashes(build, keys: keys)
        var capacity = 16
        while capacity < build.count * 2 { capacity <<= 1 }
        let mask = capacity - 1
        self.mask = mask
        var heads = [UInt64](repeating: Self.emptyHead, count: capacity)
        let nullable = keys.map { build.columns[$0] }.filter(\.hasNulls)
        entries = hashes.withUnsafeBufferPointer { hashes in
            heads.withUnsafeMutableBufferPointer { heads in
                [Entry](unsafeUninitializedCapacity: hashes.count) { entries, initialized in
                    // Inserted last row first, so each chain lists its rows in order.
                    for row in (0 ..< hashes.count).reversed() {
                        let hash = hashes[row]
                        if !nullable.isEmpty && nullable.contains(where: { $0.isNull(row) }) {
                            entries.initializeElement(at: row, to: Entry(hash: hash, next: -1))
                            continue
                        }
                        let bucket = Int(hash & UInt64(mask))
                        let head = heads[bucket]
                        entries.initializeElement(at: row, to: Entry(hash: hash, next: Int32(truncatingIfNeeded: UInt32(truncatingIfNeeded: head))))
                        heads[bucket] = (head & ~Self.emptyHead) | Self.filterBit(hash) | UInt64(UInt32(row))
                    }
                    initialized = hashes.count
                }
            }
        }
        self.heads = heads
    }

    /// For each row of a probe chunk (hashed into `hashes`), the first row of its bucket's chain,
    /// or -1 when no build row can match it: a null in its key, an empty bucket, or a filter
    /// without its bit.
    func candidates(_ chunk: Chunk, keys probeKeys: [Int], hashes probeHashes: [UInt64]) -> [Int32] {
        let mask = UInt64(self.mask)
        var firsts = heads.withUnsafeBufferPointer { heads in
            probeHashes.withUnsafeBufferPointer { probeHashes in
                [Int32](unsafeUninitializedCapacity: probeHashes.count) { firsts, initialized in
                    for row in 0 ..< probeHashes.count {
                        let hash = probeHashes[row]
                        let head = heads[Int(hash & mask)]
                        firsts.initializeElement(at: row, to: head & Self.filterBit(hash) != 0 ? Int32(truncatingIfNeeded: UInt32(truncatingIfNeeded: head)) : -1)
                    }
                    initialized = probeHashes.count
                }
            }
        }
        for column in probeKeys.map({ chunk.columns[$0] }) where column.hasNulls {
            for row in 0 ..< chunk.count where column.isNull(row) { firsts[row] = -1 }
        }
        return firsts
    }

    /// The pairs (probe row, build row) with equal keys for the rows of `chunk` from `cursor` on,
    /// appended until there are `limit` candidates; `cursor` is left where the next call goes on
    /// (its row at `chunk.count` once the chunk is done). `firsts` are the chunk's
    /// ``candidates(_:keys:hashes:)``.
    func probe(
        _ chunk: Chunk, keys probeKeys: [Int], hashes probeHashes: [UInt64], firsts: [Int32], cursor: inout Cursor, limit: Int,
        probeRows: inout [Int], buildRows: inout [Int]
    ) {
        let firstPair = probeRows.count
        entries.withUnsafeBufferPointer { entries in
            probeHashes.withUnsafeBufferPointer { probeHashes in
                firsts.withUnsafeBufferPointer { firsts in
                    while cursor.row < chunk.count && probeRows.count < limit {
                        let row = cursor.row
                        var entry = cursor.entry < 0 ? firsts[row] : cursor.entry
                        let hash = probeHashes[row]
                        while entry >= 0 && probeRows.count < limit {
                            let found = entries[Int(entry)]
                            if found.hash == hash {
                                probeRows.append(row)
                                buildRows.append(Int(entry))
                            }
                            entry = found.next
                        }
                        if entry >= 0 {
                            cursor.entry = entry
                        } else {
                            cursor.row += 1
                            cursor.entry = -1
                        }
                    }
                }
            }
        }
        KeyHash.keepEqual(chunk, probeKeys, build, keys, nullsEqual: false, leftRows: &probeRows, rightRows: &buildRows, from: firstPair)
    }
}

extension JoinHashTable {
    /// The next pairs (probe row of `chunk`, row of `build`) from `cursor` on, at most `limit`
    /// of them: rows with equal keys through `table` (whose build side `build` is), or every
    /// pair when `table` is nil (a nested-loop join; the cursor's `entry` is then the next build
    /// row). What every join, streamed or whole, makes its pairs with, a block at a time.
    static func nextPairs(
        _ chunk: Chunk, build: Chunk, table: JoinHashTable?, probeKeys: [Int], hashes: [UInt64], firsts: [Int32], cursor: inout Cursor, limit: Int,
        probeRows: inout [Int], buildRows: inout [Int]
    ) {
        if let table {
            table.probe(
                chunk, keys: probeKeys, hashes: hashes, firsts: firsts, cursor: &cursor, limit: limit, probeRows: &probeRows, buildRows: &buildRows)
            return
        }
        while probeRows.count < limit && cursor.row < chunk.count {
            let from = Int(max(cursor.entry, 0))
            let take = min(limit - probeRows.count, build.count - from)
            probeRows.append(contentsOf: repeatElement(cursor.row, count: take))
            buildRows.append(contentsOf: from ..< from + take)
            if from + take >= build.count {
                cursor = Cursor(row: cursor.row + 1, entry: -1)
            } else {
                cursor.entry = Int32(from + take)
            }
        }
    }
}
