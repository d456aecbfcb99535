import SluiceCore

// The column-wise paths of the transforms: the same results as `IcebergTransform.apply`
// (Iceberg spec: "Partition Transforms"), computed with typed loops over a column's buffer.
// Null rows keep their zero slot through the loops; the validity marks them.

extension IcebergPartitionKeys {
    /// The integer domain a source column is read in.
    private enum IntegerDomain {
        /// An Iceberg `int` (from `smallint` or `integer` storage).
        case int
        /// An Iceberg `long`.
        case long
        /// Days since 1970-01-01.
        case days
        /// Microseconds: time of day or since the epoch.
        case micros
        case boolean
    }

    private static func integerDomain(_ sourceType: IcebergType, _ columnType: DataType) -> IntegerDomain? {
        switch (sourceType, columnType) {
        case (.int, .int16), (.int, .int32): .int
        case (.long, .int16), (.long, .int32), (.long, .int64): .long
        case (.date, .date): .days
        case (.time, .time), (.timestamp, .timestamp), (.timestamp, .timestamptz), (.timestamptz, .timestamp), (.timestamptz, .timestamptz): .micros
        case (.boolean, .boolean): .boolean
        default: nil
        }
    }

    /// The column's values widened to `Int64` (booleans as 0 and 1).
    private static func widened(_ storage: ColumnStorage) -> [Int64]? {
        switch storage {
        case .int64(let values): values
        case .int32(let values): values.map { Int64($0) }
        case .int16(let values): values.map { Int64($0) }
        case .bool(let values): values.map { $0 ? 1 : 0 }
        default: nil
        }
    }

    /// The keys of a field whose source and result are integers, or nil when the column is
    /// not stored in the layout its source type implies (then the value path handles it).
    static func integerKeys(_ field: IcebergPartitioner.Field, _ column: Column) throws(SluiceError) -> IcebergPartitionKeys? {
        guard let domain = integerDomain(field.sourceType, column.type), var codes = widened(column.storage) else { return nil }
        let form: IntegerForm
        switch field.resultType {
        case .int, .date: form = .int
        case .long, .time, .timestamp, .timestamptz: form = .long
        case .boolean: form = .boolean
        default: return nil
        }
        let microsPerDay = TemporalUnits.microsecondsPerDay
        switch (field.transform, domain) {
        case (.identity, _):
            break
        case (.bucket(let count), _):
            transformEach(&codes) { Int64((Int(IcebergTransform.hashLong($0)) & Int(Int32.max)) % count) }
        case (.truncate(let width), .int):
            let width = Int64(width)
            transformEach(&codes) { Int64(Int32(truncatingIfNeeded: $0 - floorModulo($0, width))) }
        case (.truncate(let width), .long):
            let width = Int64(width)
            var overflowed = false
            transformEach(&codes) { value in
                let (result, overflow) = value.subtractingReportingOverflow(floorModulo(value, width))
                overflowed = overflowed || overflow
                return result
            }
            guard !overflowed else { throw SluiceError(.numericValueOutOfRange, "bigint out of range in truncate[\(width)]") }
        case (.day, .days):
            break
        case (.day, .micros):
            transformEach(&codes) { Int64(Int32(clamping: floorDivide($0, microsPerDay))) }
        case (.hour, .micros):
            transformEach(&codes) { Int64(Int32(clamping: floorDivide($0, TemporalUnits.microsecondsPerHour))) }
        case (.year, .days), (.month, .days), (.year, .micros), (.month, .micros):
            let isYear = field.transform == .year
            let isMicros = domain == .micros
            transformEach(&codes) { value in
                let days = isMicros ? floorDivide(value, microsPerDay) : value
                let date = CivilDate(daysSinceUnixEpoch: Int(days))
                let ordinal = isYear ? date.year - 1970 : (date.year - 1970) * 12 + date.month - 1
                return Int64(Int32(clamping: ordinal))
            }
        default:
            return nil
        }
        return .integers(codes, validity: column.validity, form: form)
    }

    /// The keys of a string or binary source under identity, truncate or bucket, or nil for
    /// other fields.
    static func byteStringKeys(_ field: IcebergPartitioner.Field, _ column: Column) -> IcebergPartitionKeys? {
        guard case .bytes(let strings) = column.storage else { return nil }
        let isText: Bool
        switch (field.sourceType, column.type) {
        case (.string, .varchar), (.string, .jsonb): isText = true
        case (.binary, .bytea): isText = false
        default: return nil
        }
        switch field.transform {
        case .identity:
            return .byteStrings(strings, lengths: nil, validity: column.validity, isText: isText)
        case .truncate(let width):
            let lengths = prefixLengths(strings, width: width, countingCodePoints: isText)
            return .byteStrings(strings, lengths: lengths, validity: column.validity, isText: isText)
        case .bucket(let count):
            var codes = [Int64](repeating: 0, count: strings.count)
            strings.data.withUnsafeBufferPointer { data in
                for rowIndex in 0 ..< strings.count {
                    let hash = Murmur3.hash32(UnsafeBufferPointer(rebasing: data[strings.byteRange(at: rowIndex)]))
                    codes[rowIndex] = Int64((Int(hash) & Int(Int32.max)) % count)
                }
            }
            return .integers(codes, validity: column.validity, form: .int)
        default:
            return nil
        }
    }

    /// Per string, the byte length of its first `width` code points (UTF-8 lead bytes), or
    /// of its first `width` bytes.
    private static func prefixLengths(_ strings: VarBytes, width: Int, countingCodePoints: Bool) -> [Int32] {
        var lengths = [Int32](repeating: 0, count: strings.count)
        strings.data.withUnsafeBufferPointer { data in
            for rowIndex in 0 ..< strings.count {
                let range = strings.byteRange(at: rowIndex)
                guard countingCodePoints else {
                    lengths[rowIndex] = Int32(min(range.count, width))
                    continue
                }
                var codePoints = 0
                var position = range.lowerBound
                while position < range.upperBound {
                    if data[position] & 0xC0 != 0x80 {
                        if codePoints == width { break }
                        codePoints += 1
                    }
                    position += 1
                }
                lengths[rowIndex] = Int32(position - range.lowerBound)
            }
        }
        return lengths
    }

    @inline(__always)
    private static func transformEach(_ codes: inout [Int64], _ transform: (Int64) -> Int64) {
        codes.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices { buffer[index] = transform(buffer[index]) }
        }
    }

    @inline(__always)
    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return (value % divisor != 0 && value < 0) ? quotient - 1 : quotient
    }

    @inline(__always)
    private static func floorModulo(_ value: Int64, _ divisor: Int64) -> Int64 {
        // Not `(value % divisor + divisor) % divisor`, which overflows for huge widths.
        let remainder = value % divisor
        return remainder < 0 ? remainder + divisor : remainder
    }
}
