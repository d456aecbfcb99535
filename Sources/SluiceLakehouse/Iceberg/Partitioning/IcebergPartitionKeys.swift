import SluiceCore
import SluiceFormats

/// One partition field's transformed values for every row of a chunk, in the cheapest form
/// that can be hashed and compared row by row.
enum IcebergPartitionKeys {
    /// A `void` field: null for every row.
    case allNull
    /// Integer results (int, long, date, time, timestamps, booleans as 0/1), nulls where
    /// `validity` is clear.
    case integers([Int64], validity: Bitmap?, form: IntegerForm)
    /// String or binary results: row `r` is the first `lengths[r]` bytes of string `r` of
    /// `strings` (every byte when `lengths` is nil), as identity and truncate produce them.
    case byteStrings(VarBytes, lengths: [Int32]?, validity: Bitmap?, isText: Bool)
    /// Any other result, already in the manifest's form (the value-by-value path).
    case encoded([AvroValue])

    /// How an integer key is written in the manifest.
    enum IntegerForm {
        case int
        case long
        case boolean
    }

    /// The keys of `field` over `column`, the chunk column holding its source.
    init(_ field: IcebergPartitioner.Field, column: Column) throws(SluiceError) {
        if let integers = try IcebergPartitionKeys.integerKeys(field, column) {
            self = integers
        } else if let strings = IcebergPartitionKeys.byteStringKeys(field, column) {
            self = strings
        } else {
            var values: [AvroValue] = []
            values.reserveCapacity(column.count)
            for rowIndex in 0 ..< column.count {
                let transformed = try field.transform.apply(to: column.value(at: rowIndex), sourceType: field.sourceType)
                values.append(try IcebergPartitionValue.encode(transformed, as: field.resultType))
            }
            self = .encoded(values)
        }
    }

    /// The manifest value of row `rowIndex`.
    func avroValue(at rowIndex: Int) -> AvroValue {
        switch self {
        case .allNull:
            return .null
        case .integers(let codes, let validity, let form):
            if let validity, !validity[rowIndex] { return .null }
            switch form {
            case .int: return .int(Int32(truncatingIfNeeded: codes[rowIndex]))
            case .long: return .long(codes[rowIndex])
            case .boolean: return .boolean(codes[rowIndex] != 0)
            }
        case .byteStrings(let strings, let lengths, let validity, let isText):
            if let validity, !validity[rowIndex] { return .null }
            let range = strings.byteRange(at: rowIndex)
            let end = lengths.map { range.lowerBound + Int($0[rowIndex]) } ?? range.upperBound
            let bytes = Array(strings.data[range.lowerBound ..< end])
            return isText ? .string(String(decoding: bytes, as: UTF8.self)) : .bytes(bytes)
        case .encoded(let values):
            return values[rowIndex]
        }
    }

    /// Mixes each row's key into `hashes[row]`.
    func combineHashes(into hashes: inout [UInt64]) {
        switch self {
        case .allNull:
            return
        case .integers(let codes, let validity, _):
            codes.withUnsafeBufferPointer { codes in
                hashes.withUnsafeMutableBufferPointer { hashes in
                    guard let validity else {
                        for rowIndex in 0 ..< codes.count {
                            hashes[rowIndex] = KeyHashing.mix(hashes[rowIndex] ^ UInt64(bitPattern: codes[rowIndex]))
                        }
                        return
                    }
                    for rowIndex in 0 ..< codes.count {
                        let key = validity[rowIndex] ? UInt64(bitPattern: codes[rowIndex]) : IcebergPartitionKeys.nullHash
                        hashes[rowIndex] = KeyHashing.mix(hashes[rowIndex] ^ key)
                    }
                }
            }
        case .byteStrings(let strings, let lengths, let validity, _):
            strings.data.withUnsafeBytes { data in
                hashes.withUnsafeMutableBufferPointer { hashes in
                    for rowIndex in 0 ..< strings.count {
                        let key: UInt64
                        if let validity, !validity[rowIndex] {
                            key = IcebergPartitionKeys.nullHash
                        } else {
                            let start = Int(strings.offsets[rowIndex])
                            let length = lengths.map { Int($0[rowIndex]) } ?? strings.length(at: rowIndex)
                            key = KeyHashing.bytes(UnsafeRawBufferPointer(rebasing: data[start ..< start + length]))
                        }
                        hashes[rowIndex] = KeyHashing.mix(hashes[rowIndex] ^ key)
                    }
                }
            }
        case .encoded(let values):
            for (rowIndex, value) in values.enumerated() {
                hashes[rowIndex] = KeyHashing.mix(hashes[rowIndex] ^ IcebergPartitionKeys.hash(value))
            }
        }
    }

    /// Whether rows `lhs` and `rhs` have the same key.
    func hasSameKey(_ lhs: Int, _ rhs: Int) -> Bool {
        switch self {
        case .allNull:
            return true
        case .integers(let codes, let validity, _):
            if let validity {
                let (leftValid, rightValid) = (validity[lhs], validity[rhs])
                if !leftValid || !rightValid { return leftValid == rightValid }
            }
            return codes[lhs] == codes[rhs]
        case .byteStrings(let strings, let lengths, let validity, _):
            if let validity {
                let (leftValid, rightValid) = (validity[lhs], validity[rhs])
                if !leftValid || !rightValid { return leftValid == rightValid }
            }
            let leftStart = Int(strings.offsets[lhs])
            let rightStart = Int(strings.offsets[rhs])
            let leftLength = lengths.map { Int($0[lhs]) } ?? strings.length(at: lhs)
            let rightLength = lengths.map { Int($0[rhs]) } ?? strings.length(at: rhs)
            guard leftLength == rightLength else { return false }
            return strings.data.withUnsafeBufferPointer { data in
                data[leftStart ..< leftStart + leftLength].elementsEqual(data[rightStart ..< rightStart + rightLength])
            }
        case .encoded(let values):
            return IcebergPartitionKeys.isSame(values[lhs], values[rhs])
        }
    }

    static let nullHash: UInt64 = 0x6e75_6c6c_6e75_6c6c

    /// A hash consistent with ``isSame(_:_:)``: floats by bit pattern.
    static func hash(_ value: AvroValue) -> UInt64 {
        switch value {
        case .null: return nullHash
        case .float(let number): return KeyHashing.mix(UInt64(number.bitPattern))
        case .double(let number): return KeyHashing.mix(number.bitPattern)
        default: return UInt64(bitPattern: Int64(value.hashValue))
        }
    }

    /// Equality of partition values as Java groups them: floats by `Float.compare` (the
    /// encoder made NaNs canonical, so bit patterns: -0.0 and 0.0 differ, NaN equals NaN).
    static func isSame(_ lhs: AvroValue, _ rhs: AvroValue) -> Bool {
        switch (lhs, rhs) {
        case (.float(let left), .float(let right)): return left.bitPattern == right.bitPattern
        case (.double(let left), .double(let right)): return left.bitPattern == right.bitPattern
        default: return lhs == rhs
        }
    }
}
