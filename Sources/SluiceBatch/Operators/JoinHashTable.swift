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
    @inline(__always) static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

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

    /// A hash of a byte string, eight bytes at a time.
    @inline(__always) static func bytesHash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash = UInt64(truncatingIfNeeded: bytes.count) &* 0x9E37_79B9_7F4A_7C15
        var offset = 0
        while offset + 8 <= bytes.count {
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
            hash ^= hash >> 29
            offset += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count {
            tail |= UInt64(bytes[offset]) << shift
            shift += 8
            offset += 1
        }
        return mix(hash ^ tail)
    }

    /// Whether row `leftRow` of `left` and row `rightRow` of `right` have equal values in
    /// `columns` (of both), nulls equal to nulls (GROUP BY's equality).
    static func rowsEqual(_ left: Chunk, _ leftRow: Int, _ right: Chunk, _ rightRow: Int, columns: [Int]) -> Bool {
        for column in columns {
            let (a, b) = (left.columns[column], right.columns[column])
            let (aNull, bNull) = (a.isNull(leftRow), b.isNull(rightRow))
            if aNull || bNull {
                if aNull != bNull { return false }
                continue
            }
            switch (a.storage, b.storage) {
            case (.int16(let x), .int16(let y)): if x[leftRow] != y[rightRow] { return false }
            case (.int32(let x), .int32(let y)): if x[leftRow] != y[rightRow] { return false }
            case (.int64(let x), .int64(let y)): if x[leftRow] != y[rightRow] { return false }
            case (.bool(let x), .bool(let y)): if x[leftRow] != y[rightRow] { return false }
            case (.bytes(let x), .bytes(let y)):
                let (xRange, yRange) = (x.byteRange(at: leftRow), y.byteRange(at: rightRow))
                if xRange.count != yRange.count { return false }
                let same = x.data.withUnsafeBufferPointer { xData in
                    y.data.withUnsafeBufferPointer { yData in xData[xRange].elementsEqual(yData[yRange]) }
                }
                if !same { return false }
            default:
                var xBytes: [UInt8] = []
                var yBytes: [UInt8] = []
                KeyEncoding.append(a, row: leftRow, to: &xBytes)
                KeyEncoding.append(b, row: rightRow, to: &yBytes)
                if xBytes != yBytes { return false }
            }
        }
        return true
    }

    /// Keeps the pairs `(leftRows[i], rightRows[i])` whose keys are equal (nulls equal to nulls
    /// when `nullsEqual`, else never equal), in order.
    static func keepEqual(
        _ left: Chunk, _ leftKeys: [Int], _ right: Chunk, _ rightKeys: [Int], nullsEqual: Bool,
        leftRows: inout [Int], rightRows: inout [Int]
    ) {
        var keep = [Bool](repeating: true, count: leftRows.count)
        for (leftKey, rightKey) in zip(leftKeys, rightKeys) {
            markEqual(left.columns[leftKey], leftRows, right.columns[rightKey], rightRows, nullsEqual: nullsEqual, keep: &keep)
        }
        if keep.allSatisfy({ $0 }) { return }
        var write = 0
        for index in keep.indices where keep[index] {
            leftRows[write] = leftRows[index]
            rightRows[write] = rightRows[index]
            write += 1
        }
        leftRows.removeLast(leftRows.count - write)
        rightRows.removeLast(rightRows.count - write)
    }

    private static func markEqual(_ a: Column, _ aRows: [Int], _ b: Column, _ bRows: [Int], nullsEqual: Bool, keep: inout [Bool]) {
        let count = aRows.count
        func values<T: Equatable>(_ x: [T], _ y: [T]) {
            for index in 0 ..< count where keep[index] && x[aRows[index]] != y[bRows[index]] { keep[index] = false }
        }
        switch (a.storage, b.storage) {
        case (.int16(let x), .int16(let y)): values(x, y)
        case (.int32(let x), .int32(let y)): values(x, y)
        case (.int64(let x), .int64(let y)): values(x, y)
        case (.bool(let x), .bool(let y)): values(x, y)
        case (.bytes(let x), .bytes(let y)):
            x.data.withUnsafeBufferPointer { xData in
                y.data.withUnsafeBufferPointer { yData in
                    for index in 0 ..< count where keep[index] {
                        let xRange = x.byteRange(at: aRows[index])
                        let yRange = y.byteRange(at: bRows[index])
                        if xRange.count != yRange.count || !xData[xRange].elementsEqual(yData[yRange]) { keep[index] = false }
                    }
                }
            }
        default:
            var xBytes: [UInt8] = []
            var yBytes: [UInt8] = []
            for index in 0 ..< count where keep[index] {
                xBytes.removeAll(keepingCapacity: true)
                yBytes.removeAll(keepingCapacity: true)
                KeyEncoding.append(a, row: aRows[index], to: &xBytes)
                KeyEncoding.append(b, row: bRows[index], to: &yBytes)
                if xBytes != yBytes { keep[index] = false }
            }
        }
        if a.hasNulls || b.hasNulls {
            for index in 0 ..< count {
                let (aNull, bNull) = (a.isNull(aRows[index]), b.isNull(bRows[index]))
                if aNull || bNull { keep[index] = keep[index] && nullsEqual && aNull == bNull }
            }
        }
    }
}

/// The build side of a hash join: its rows chained by the hash of their key (rows with a null
/// in the key left out, as they match nothing), probed a chunk at a time.
struct JoinHashTable {
    let build: Chunk
    let keys: [Int]
    private var heads: [Int32]
    private var next: [Int32]
    private var hashes: [UInt64]
    private let mask: Int

    /// Where a probe stopped: the probe row, and the build row of its chain to go on from (-1:
    /// start at the chain's head).
    struct Cursor {
        var row = 0
        var entry: Int32 = -1
    }

    init(build: Chunk, keys: [Int]) {
        self.build = build
        self.keys = keys
        hashes = KeyHash.hashes(build, keys: keys)
        var capacity = 16
        while capacity < build.count * 2 { capacity <<= 1 }
        mask = capacity - 1
        heads = [Int32](repeating: -1, count: capacity)
        next = [Int32](repeating: -1, count: build.count)
        let nullable = keys.map { build.columns[$0] }.filter(\.hasNulls)
        // Inserted last row first, so each chain lists its rows in order.
        for row in (0 ..< build.count).reversed() where !nullable.contains(where: { $0.isNull(row) }) {
            let bucket = Int(hashes[row] & UInt64(mask))
            next[row] = heads[bucket]
            heads[bucket] = Int32(row)
        }
    }

    /// The pairs (probe row, build row) with equal keys for the rows of `chunk` from `cursor` on,
    /// appended until there are `limit` candidates; `cursor` is left where the next call goes on
    /// (its row at `chunk.count` once the chunk is done).
    func probe(
        _ chunk: Chunk, keys probeKeys: [Int], hashes probeHashes: [UInt64], cursor: inout Cursor, limit: Int,
        probeRows: inout [Int], buildRows: inout [Int]
    ) {
        let firstPair = probeRows.count
        let nullable = probeKeys.map { chunk.columns[$0] }.filter(\.hasNulls)
        let mask = UInt64(self.mask)
        heads.withUnsafeBufferPointer { heads in
            next.withUnsafeBufferPointer { next in
                hashes.withUnsafeBufferPointer { hashes in
                    while cursor.row < chunk.count && probeRows.count < limit {
                        let row = cursor.row
                        var entry = cursor.entry
                        if entry < 0 {
                            if !nullable.isEmpty && nullable.contains(where: { $0.isNull(row) }) {
                                cursor.row += 1
                                continue
                            }
                            entry = heads[Int(probeHashes[row] & mask)]
                        }
                        let hash = probeHashes[row]
                        while entry >= 0 && probeRows.count < limit {
                            if hashes[Int(entry)] == hash {
                                probeRows.append(row)
                                buildRows.append(Int(entry))
                            }
                            entry = next[Int(entry)]
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
        if probeRows.count > firstPair {
            var newProbe = Array(probeRows[firstPair...])
            var newBuild = Array(buildRows[firstPair...])
            KeyHash.keepEqual(chunk, probeKeys, build, keys, nullsEqual: false, leftRows: &newProbe, rightRows: &newBuild)
            probeRows.removeLast(probeRows.count - firstPair)
            buildRows.removeLast(buildRows.count - firstPair)
            probeRows += newProbe
            buildRows += newBuild
        }
    }
}
