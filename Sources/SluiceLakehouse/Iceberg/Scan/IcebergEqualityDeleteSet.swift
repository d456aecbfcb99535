import SluiceCore

/// The rows of the equality delete files that share one set of equality field ids, as a hash
/// table over their key columns: a data row is deleted when its values in those columns equal
/// a delete row's (Iceberg spec: "Equality Delete Files"; a null equals a null).
///
/// Keys stay in their columns: rows are hashed column by column into one `UInt64` per row and
/// chained by hash, and a probe compares the typed values; no per-row `Value` is built.
/// Key columns must already have the table's types (see ``IcebergColumnConformer``), so a
/// delete file written before an `int`→`long` promotion matches the promoted data.
///
/// - Complexity: building is O(delete rows); a probe of n data rows is O(n × key columns).
struct IcebergEqualityDeleteSet: Sendable {
    let fieldIDs: [Int]
    private let keys: [Column]
    /// Row hash → first delete row with that hash; `next` chains the rest.
    private var heads: [UInt64: Int32] = [:]
    private var next: [Int32]

    /// A set of the delete rows in `keys` (one column per equality field id, equal lengths).
    init(fieldIDs: [Int], keys: [Column]) {
        self.fieldIDs = fieldIDs
        self.keys = keys
        let rowCount = keys.first?.count ?? 0
        next = Array(repeating: -1, count: rowCount)
        let hashes = IcebergRowHashing.hashes(of: keys, rowCount: rowCount)
        heads.reserveCapacity(rowCount)
        // Insert in reverse so each chain lists rows in file order (only matters for tests).
        for row in stride(from: rowCount - 1, through: 0, by: -1) {
            if let head = heads[hashes[row]] { next[row] = head }
            heads[hashes[row]] = Int32(row)
        }
    }

    var isEmpty: Bool { next.isEmpty }

    /// Clears the bits of `keep` for the rows of `columns` (data key columns, in `fieldIDs`
    /// order, with `keep.count` rows) that equal a delete row; returns how many it cleared.
    func removeMatches(_ columns: [Column], from keep: inout Bitmap) -> Int {
        guard !isEmpty, columns.count == keys.count else { return 0 }
        let hashes = IcebergRowHashing.hashes(of: columns, rowCount: keep.count)
        var removed = 0
        for row in 0 ..< keep.count where keep[row] {
            guard var candidate = heads[hashes[row]] else { continue }
            while candidate >= 0 {
                if IcebergRowHashing.rowsEqual(columns, row, keys, Int(candidate)) {
                    keep[row] = false
                    removed += 1
                    break
                }
                candidate = next[Int(candidate)]
            }
        }
        return removed
    }
}

/// Column-at-a-time hashing and typed row comparison of key columns.
enum IcebergRowHashing {
    private static let nullHash: UInt64 = 0x5bd1_e995_a5a5_a5a5

    /// One hash per row over all `columns`.
    static func hashes(of columns: [Column], rowCount: Int) -> [UInt64] {
        var hashes = [UInt64](repeating: 0x9E37_79B9_7F4A_7C15, count: rowCount)
        for column in columns where column.count == rowCount {
            hashes.withUnsafeMutableBufferPointer { output in
                combine(column, into: output)
            }
        }
        return hashes
    }

    private static func combine(_ column: Column, into output: UnsafeMutableBufferPointer<UInt64>) {
        @inline(__always) func fold(_ row: Int, _ value: UInt64) {
            output[row] = KeyHashing.mix(output[row] &* 31 ^ value)
        }
        switch column.storage {
        case .bool(let values):
            for row in values.indices { fold(row, values[row] ? 1 : 2) }
        case .int16(let values):
            for row in values.indices { fold(row, UInt64(bitPattern: Int64(values[row]))) }
        case .int32(let values):
            for row in values.indices { fold(row, UInt64(bitPattern: Int64(values[row]))) }
        case .int64(let values):
            for row in values.indices { fold(row, UInt64(bitPattern: values[row])) }
        case .float32(let values):
            for row in values.indices { fold(row, UInt64(canonical(Double(values[row])).bitPattern)) }
        case .float64(let values):
            for row in values.indices { fold(row, canonical(values[row]).bitPattern) }
        case .decimal(let values):
            for row in values.indices {
                // Equal numbers at different scales must hash alike: hash the normalized form.
                let value = values[row].normalized
                let low = UInt64(truncatingIfNeeded: value.mantissa)
                let high = UInt64(truncatingIfNeeded: value.mantissa >> 64)
                let scale: UInt64 = value.mantissa == 0 ? 0 : UInt64(UInt16(bitPattern: value.scale))
                fold(row, KeyHashing.mix(low ^ KeyHashing.mix(high)) ^ scale)
            }
        case .interval(let values):
            for row in values.indices { fold(row, UInt64(values[row].hashValue)) }
        case .bytes(let bytes):
            bytes.data.withUnsafeBytes { raw in
                for row in 0 ..< bytes.count {
                    let range = bytes.byteRange(at: row)
                    fold(row, KeyHashing.bytes(UnsafeRawBufferPointer(rebasing: raw[range])))
                }
            }
        case .structure, .list:
            // Equality ids name primitive columns; nested keys compare but share a hash.
            break
        }
        if let validity = column.validity {
            for row in 0 ..< output.count where !validity[row] { output[row] = KeyHashing.mix(output[row] ^ nullHash) }
        }
    }

    /// -0.0 as 0.0 and every NaN as one NaN, so equal values hash alike.
    private static func canonical(_ value: Double) -> Double {
        if value.isNaN { return .nan }
        return value == 0 ? 0 : value
    }

    /// Whether row `left` of `lhs` equals row `right` of `rhs` in every column (nulls equal nulls).
    static func rowsEqual(_ lhs: [Column], _ left: Int, _ rhs: [Column], _ right: Int) -> Bool {
        for (leftColumn, rightColumn) in zip(lhs, rhs) where !valuesEqual(leftColumn, left, rightColumn, right) { return false }
        return true
    }

    private static func valuesEqual(_ lhs: Column, _ left: Int, _ rhs: Column, _ right: Int) -> Bool {
        let leftNull = lhs.isNull(left), rightNull = rhs.isNull(right)
        if leftNull || rightNull { return leftNull && rightNull }
        switch (lhs.storage, rhs.storage) {
        case (.bool(let a), .bool(let b)): return a[left] == b[right]
        case (.int16(let a), .int16(let b)): return a[left] == b[right]
        case (.int32(let a), .int32(let b)): return a[left] == b[right]
        case (.int64(let a), .int64(let b)): return a[left] == b[right]
        case (.float32(let a), .float32(let b)): return canonical(Double(a[left])).bitPattern == canonical(Double(b[right])).bitPattern
        case (.float64(let a), .float64(let b)): return canonical(a[left]).bitPattern == canonical(b[right]).bitPattern
        case (.decimal(let a), .decimal(let b)): return a[left] == b[right]
        case (.interval(let a), .interval(let b)): return a[left] == b[right]
        case (.bytes(let a), .bytes(let b)):
            let leftRange = a.byteRange(at: left), rightRange = b.byteRange(at: right)
            guard leftRange.count == rightRange.count else { return false }
            return a.data[leftRange].elementsEqual(b.data[rightRange])
        default:
            return lhs.value(at: left) == rhs.value(at: right)
        }
    }
}
