import SluiceCore

/// The fuzz harness of what recovery decodes, shared by `sluice fuzz state` and the unit tests:
/// write-ahead log records (``TableLogRecord``) and the chunks inside them and in checkpoint
/// files (``ChunkCodec``), mutated from valid encodings of every column type. Decoding must fail
/// cleanly or give a chunk whose every value can be read.
package struct LogRecordFuzz {
    /// The column types of table 7, which the seed records write.
    package static let types: [DataType] = [
        .int64, .varchar, .boolean, .int16, .int32, .float64, .decimal(precision: 10, scale: 2), .interval, .date,
        .structure([StructField(name: "a", type: .int32), StructField(name: "b", type: .varchar)]), .list(.int64),
    ]

    /// Valid records: writes with and without positions, a drop, a statement's part and its commit.
    package static let seeds: [[UInt8]] = {
        let rows: [[Value]] = [
            [.int64(1), .string("alpha"), .bool(true), .int16(-3), .int32(40), .float64(0.5), .decimal(Decimal(mantissa: 1234, scale: 2)),
             .interval(Interval(months: 1, days: 2, microseconds: 3)), .date(19_844), .structure([.int32(1), .string("x")]),
             .list([.int64(1), .int64(2)])],
            [.int64(2), .null, .bool(false), .null, .int32(-1), .null, .null, .null, .null, .null, .list([])],
            [.null, .string(""), .null, .int16(7), .null, .float64(-0.0), .decimal(Decimal(mantissa: -5, scale: 2)),
             .interval(Interval(months: 0, days: 0, microseconds: -1)), .date(0), .structure([.null, .null]), .null],
        ]
        let chunk = Chunk(columns: types.indices.map { column in Column(type: types[column], values: rows.map { $0[column] }) })
        return [
            TableLogRecord.write(table: 7, changes: [(.insert, chunk), (.delete, chunk.slice(0 ..< 1))], positions: nil).encoded(),
            TableLogRecord.write(table: 7, changes: [(.insert, chunk.slice(1 ..< 3))], positions: [0: 17, 1: 4_000_000_000]).encoded(),
            TableLogRecord.write(table: 7, changes: [], positions: [:]).encoded(),
            TableLogRecord.dropped(table: 7).encoded(),
            TableLogRecord.part(table: 7, statement: 1_790_000_000_000_001, changes: [(.insert, chunk), (.delete, chunk.slice(2 ..< 3))]).encoded(),
            TableLogRecord.committed(table: 7, statement: 1_790_000_000_000_001).encoded(),
        ]
    }()

    package private(set) var decoded = 0
    package private(set) var errors = 0

    package init() {}

    /// The next input: a mutated seed, sometimes random bytes.
    package static func input(random: inout SplitMix64) -> [UInt8] {
        if random.next(below: 16) == 0 {
            return (0 ..< random.next(below: 96)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        }
        var bytes = seeds[random.next(below: seeds.count)]
        for _ in 0 ... random.next(below: 3) {
            switch random.next(below: 6) {
            case 0: ByteMutations.overwriteByte(&bytes, random: &random)
            case 1: ByteMutations.deleteRun(&bytes, upTo: 16, random: &random)
            case 2: ByteMutations.duplicateRun(&bytes, upTo: 24, random: &random)
            case 3: ByteMutations.truncate(&bytes, random: &random)
            case 4: ByteMutations.splice(&bytes, with: seeds[random.next(below: seeds.count)], random: &random)
            default:
                // A length or count field made huge or negative.
                guard bytes.count >= 4 else { continue }
                let at = random.next(below: bytes.count - 3)
                for offset in 0 ..< 4 { bytes[at + offset] = random.next(below: 2) == 0 ? 0xFF : 0x7F }
            }
        }
        return bytes
    }

    /// Decodes `input` as a record of table 7 and reads every value of what it gives.
    package mutating func run(_ input: [UInt8]) {
        do throws(SluiceError) {
            guard let record = try TableLogRecord.decode(input, types: { $0 == 7 ? Self.types : nil }) else { return }
            if case .write(_, let changes, _) = record {
                for change in changes {
                    for row in 0 ..< change.rows.count {
                        for column in change.rows.columns { _ = column.value(at: row).textForm }
                    }
                }
            }
            decoded += 1
        } catch {
            errors += 1
        }
    }
}
