import SluiceCore

/// `bit_and`, `bit_or` and `bit_xor` of smallint, integer and bigint, retractable: per group the
/// number of non-null inputs and, for each bit, the number of inputs that have it set. A bit is
/// in `bit_or` when some input has it, in `bit_and` when every input has it, and in `bit_xor`
/// when an odd number of inputs have it; a delete takes its input's counts back.
final class BitAccumulator: AggregateAccumulator {
    enum Operation { case and, or, xor }

    let operation: Operation
    let resultType: DataType
    /// The bits the argument type has (16, 32 or 64).
    let width: Int
    /// Non-null inputs per group.
    private var counts: [Int64] = []
    /// `width` counters per group: `bitCounts[group * width + bit]`.
    private var bitCounts: [Int64] = []

    init(operation: Operation, resultType: DataType) {
        self.operation = operation
        self.resultType = resultType
        switch resultType {
        case .int16: width = 16
        case .int32: width = 32
        default: width = 64
        }
    }

    var stateTypes: [DataType] { Array(repeating: .int64, count: 1 + width) }

    private func grow(to groupCount: Int) {
        growArray(&counts, to: groupCount, with: 0)
        if bitCounts.count < groupCount * width {
            bitCounts += repeatElement(0, count: groupCount * width - bitCounts.count)
        }
    }

    func update(groups: [Int32], rowCount: Int, groupCount: Int, argument: Column?, delimiter: Column?, signs: [Int8]?, rows: [Int]?) {
        grow(to: groupCount)
        guard let argument else { return }
        let validity = argument.validity
        let width = width
        bitCounts.withUnsafeMutableBufferPointer { bitCounts in
            forEachRow(groups: groups, rowCount: rowCount, signs: signs, rows: rows) { row, group, sign in
                guard validity?[row] ?? true else { return }
                counts[group] += Int64(sign)
                // The value's bits in its own width (a negative smallint sets 16 bits, not 64).
                var bits = UInt64(bitPattern: argument.int64(at: row)) & (width == 64 ? .max : (1 << UInt64(width)) - 1)
                let base = group * width
                while bits != 0 {
                    bitCounts[base + bits.trailingZeroBitCount] += Int64(sign)
                    bits &= bits - 1
                }
            }
        }
    }

    func finish(groupCount: Int) -> Column {
        grow(to: groupCount)
        var builder = ColumnBuilder(type: resultType, capacity: groupCount)
        for group in 0 ..< groupCount {
            let count = counts[group]
            guard count > 0 else {
                builder.appendNull()
                continue
            }
            var bits: UInt64 = 0
            for bit in 0 ..< width {
                let set = bitCounts[group * width + bit]
                let isSet = switch operation {
                case .and: set == count
                case .or: set > 0
                case .xor: set & 1 == 1
                }
                if isSet { bits |= 1 << UInt64(bit) }
            }
            switch resultType {
            case .int16: builder.append(int16: Int16(truncatingIfNeeded: bits))
            case .int32: builder.append(int32: Int32(truncatingIfNeeded: bits))
            default: builder.append(int64: Int64(bitPattern: bits))
            }
        }
        return builder.finish()
    }

    func saveState(group: Int, into builders: inout [ColumnBuilder], at offset: Int) {
        let known = group < counts.count
        builders[offset].append(int64: known ? counts[group] : 0)
        for bit in 0 ..< width {
            builders[offset + 1 + bit].append(int64: known ? bitCounts[group * width + bit] : 0)
        }
    }

    func loadState(group: Int, from columns: [Column], at offset: Int, row: Int) {
        grow(to: group + 1)
        counts[group] = columns[offset].isNull(row) ? 0 : columns[offset].int64(at: row)
        for bit in 0 ..< width {
            let column = columns[offset + 1 + bit]
            bitCounts[group * width + bit] = column.isNull(row) ? 0 : column.int64(at: row)
        }
    }

    func removeAll() {
        counts.removeAll(keepingCapacity: true)
        bitCounts.removeAll(keepingCapacity: true)
    }
}
