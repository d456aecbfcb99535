import SluiceCore

/// What the write-ahead log records about tables: the rows a statement or a connector added to
/// or removed from a table, where a connector feeding a table had read to, and tables dropped.
/// Replayed in order above the last checkpoint, they rebuild every table as it was acknowledged.
///
/// Payload layout: a kind byte, the relation id (4 bytes, little-endian), then
/// - `changes`: the op byte (0 insert, 1 delete) and the rows in ``ChunkCodec``'s form;
/// - `positions`: a count (4 bytes) and that many (partition: 4 bytes, offset: 8 bytes) pairs;
/// - `dropped`: nothing.
package enum TableLogRecord: Equatable {
    /// Rows inserted into (or, with `.delete`, removed from) table `table`.
    case changes(table: Int, op: ChangeOp, rows: Chunk)
    /// The next position of each partition of the connector feeding `relation`, after the rows
    /// logged before this record.
    case positions(relation: Int, positions: [Int32: Int64])
    /// Table `table` was dropped: its earlier records no longer apply.
    case dropped(table: Int)

    private enum Kind: UInt8 {
        case changes = 1
        case positions = 2
        case dropped = 3
    }

    package func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        switch self {
        case .changes(let table, let op, let rows):
            bytes.append(Kind.changes.rawValue)
            Self.append(UInt32(table), to: &bytes)
            bytes.append(op.isInsertion ? 0 : 1)
            ChunkCodec.encode(rows, into: &bytes)
        case .positions(let relation, let positions):
            bytes.append(Kind.positions.rawValue)
            Self.append(UInt32(relation), to: &bytes)
            Self.append(UInt32(positions.count), to: &bytes)
            for (partition, offset) in positions.sorted(by: { $0.key < $1.key }) {
                Self.append(UInt32(bitPattern: partition), to: &bytes)
                Self.append(UInt64(bitPattern: offset), to: &bytes)
            }
        case .dropped(let table):
            bytes.append(Kind.dropped.rawValue)
            Self.append(UInt32(table), to: &bytes)
        }
        return bytes
    }

    /// Decodes a record; `types` gives a table's column types, or nil for a table that no longer
    /// exists (its changes decode to nil). Malformed bytes are an error, not a trap.
    package static func decode(_ bytes: [UInt8], types: (Int) -> [DataType]?) throws(SluiceError) -> TableLogRecord? {
        var reader = ByteCursor(bytes)
        guard let kind = Kind(rawValue: try reader.byte()) else { throw malformed }
        let relation = Int(try reader.uint32())
        switch kind {
        case .changes:
            let op: ChangeOp = try reader.byte() == 0 ? .insert : .delete
            guard let columnTypes = types(relation) else { return nil }
            var offset = reader.offset
            let rows = try ChunkCodec.decode(bytes, offset: &offset, types: columnTypes)
            guard offset == bytes.count else { throw malformed }
            return .changes(table: relation, op: op, rows: rows)
        case .positions:
            let count = Int(try reader.uint32())
            guard count <= bytes.count / 12 else { throw malformed }
            var positions: [Int32: Int64] = [:]
            for _ in 0 ..< count {
                let partition = Int32(bitPattern: try reader.uint32())
                positions[partition] = Int64(bitPattern: try reader.uint64())
            }
            return .positions(relation: relation, positions: positions)
        case .dropped:
            return .dropped(table: relation)
        }
    }

    /// The table a `dropped` record names, read without decoding anything else; nil for
    /// other records.
    package static func droppedTable(in bytes: [UInt8]) -> Int? {
        var reader = ByteCursor(bytes)
        guard let kind = try? reader.byte(), kind == Kind.dropped.rawValue, let table = try? reader.uint32() else { return nil }
        return Int(table)
    }

    private static let malformed = SluiceError(.dataCorrupted, "malformed write-ahead log record")

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    package static func == (lhs: TableLogRecord, rhs: TableLogRecord) -> Bool {
        lhs.encoded() == rhs.encoded()
    }
}

/// Reads little-endian integers from bytes, failing cleanly past the end.
struct ByteCursor {
    let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func byte() throws(SluiceError) -> UInt8 {
        guard offset < bytes.count else { throw SluiceError(.dataCorrupted, "record ends early") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint32() throws(SluiceError) -> UInt32 {
        var value: UInt32 = 0
        for shift in stride(from: 0, to: 32, by: 8) { value |= UInt32(try byte()) << UInt32(shift) }
        return value
    }

    mutating func uint64() throws(SluiceError) -> UInt64 {
        UInt64(try uint32()) | UInt64(try uint32()) << 32
    }
}
