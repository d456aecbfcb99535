import SluiceCore

/// What the write-ahead log records about tables: the rows one statement or one connector
/// delivery added to and removed from a table, with the positions a connector had then reached,
/// and tables dropped. One `write` record is one atomic write: replay applies all of it or, when
/// the crash cut it short, none of it. A statement too big for one record (a large
/// `INSERT … SELECT`, `UPDATE`, `DELETE` or COPY) logs its changes as `part` records under one
/// statement number and ends with a `committed` record: replay applies a statement's parts
/// only when its `committed` record is in the log. Replayed in order above the last checkpoint,
/// the records rebuild every table as it was acknowledged.
///
/// Payload layout: a kind byte, the table id (4 bytes, little-endian), then for `write` the
/// number of parts (4 bytes), each an op byte (0 insert, 1 delete) and rows in ``ChunkCodec``'s
/// form, then a byte saying whether positions follow, their count (4 bytes) and that many
/// (partition: 4 bytes, offset: 8 bytes) pairs. `part` has the statement number (8 bytes), then
/// the number of parts and the parts as `write`; `committed` the statement number alone.
/// `dropped` has nothing more.
package enum TableLogRecord: Equatable {
    /// Rows inserted into or removed from table `table`, in order; `positions` is where the
    /// connector feeding the table stood after them (nil for a statement).
    case write(table: Int, changes: [(op: ChangeOp, rows: Chunk)], positions: [Int32: Int64]?)
    /// Table `table` was dropped: its earlier records no longer apply.
    case dropped(table: Int)
    /// Part of the changes of statement `statement` to table `table`, applied only when a
    /// `committed` record for the statement follows in the log.
    case part(table: Int, statement: UInt64, changes: [(op: ChangeOp, rows: Chunk)])
    /// Statement `statement`'s parts are all logged: it took effect.
    case committed(table: Int, statement: UInt64)

    private enum Kind: UInt8 {
        case write = 1
        case dropped = 3
        case part = 4
        case committed = 5
    }

    package func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        switch self {
        case .write(let table, let changes, let positions):
            bytes.append(Kind.write.rawValue)
            bytes.appendLittleEndian(UInt32(table))
            Self.append(changes, to: &bytes)
            if let positions {
                bytes.append(1)
                bytes.appendLittleEndian(UInt32(positions.count))
                for (partition, offset) in positions.sorted(by: { $0.key < $1.key }) {
                    bytes.appendLittleEndian(UInt32(bitPattern: partition))
                    bytes.appendLittleEndian(UInt64(bitPattern: offset))
                }
            } else {
                bytes.append(0)
            }
        case .dropped(let table):
            bytes.append(Kind.dropped.rawValue)
            bytes.appendLittleEndian(UInt32(table))
        case .part(let table, let statement, let changes):
            bytes.append(Kind.part.rawValue)
            bytes.appendLittleEndian(UInt32(table))
            bytes.appendLittleEndian(statement)
            Self.append(changes, to: &bytes)
        case .committed(let table, let statement):
            bytes.append(Kind.committed.rawValue)
            bytes.appendLittleEndian(UInt32(table))
            bytes.appendLittleEndian(statement)
        }
        return bytes
    }

    /// Appends the count of `changes`, then each as an op byte and rows.
    private static func append(_ changes: [(op: ChangeOp, rows: Chunk)], to bytes: inout [UInt8]) {
        bytes.appendLittleEndian(UInt32(changes.count))
        for change in changes {
            bytes.append(change.op.isInsertion ? 0 : 1)
            ChunkCodec.encode(change.rows, into: &bytes)
        }
    }

    /// Reads what ``append(_:to:)`` wrote.
    private static func readChanges(
        _ reader: inout ByteReader, _ bytes: UnsafeRawBufferPointer, types columnTypes: [DataType]
    ) throws(SluiceError) -> [(op: ChangeOp, rows: Chunk)] {
        let partCount = Int(try reader.read(UInt32.self))
        guard partCount <= bytes.count else { throw malformed }
        var changes: [(op: ChangeOp, rows: Chunk)] = []
        for _ in 0 ..< partCount {
            let op: ChangeOp = try reader.read(UInt8.self) == 0 ? .insert : .delete
            var offset = reader.offset
            let rows = try ChunkCodec.decode(bytes, offset: &offset, types: columnTypes)
            reader.skip(to: offset)
            changes.append((op, rows))
        }
        return changes
    }

    /// Decodes a record; `types` gives a table's column types, or nil for a table that no longer
    /// exists (its writes decode to nil). Malformed bytes are an error, not a trap.
    package static func decode(_ bytes: [UInt8], types: (Int) -> [DataType]?) throws(SluiceError) -> TableLogRecord? {
        try bytes.withRawBytes { (raw: UnsafeRawBufferPointer) throws(SluiceError) in try decode(raw, types: types) }
    }

    package static func decode(_ bytes: UnsafeRawBufferPointer, types: (Int) -> [DataType]?) throws(SluiceError) -> TableLogRecord? {
        var reader = ByteReader(bytes: bytes, offset: 0)
        guard let kind = Kind(rawValue: try reader.read(UInt8.self)) else { throw malformed }
        let table = Int(try reader.read(UInt32.self))
        switch kind {
        case .write:
            guard let columnTypes = types(table) else { return nil }
            let changes = try readChanges(&reader, bytes, types: columnTypes)
            var positions: [Int32: Int64]?
            if try reader.read(UInt8.self) == 1 {
                let count = Int(try reader.read(UInt32.self))
                guard count <= bytes.count / 12 else { throw malformed }
                var partitions: [Int32: Int64] = [:]
                for _ in 0 ..< count {
                    let partition = Int32(bitPattern: try reader.read(UInt32.self))
                    partitions[partition] = Int64(bitPattern: try reader.read(UInt64.self))
                }
                positions = partitions
            }
            guard reader.offset == bytes.count else { throw malformed }
            return .write(table: table, changes: changes, positions: positions)
        case .dropped:
            return .dropped(table: table)
        case .part:
            let statement = try reader.read(UInt64.self)
            guard let columnTypes = types(table) else { return nil }
            let changes = try readChanges(&reader, bytes, types: columnTypes)
            guard reader.offset == bytes.count else { throw malformed }
            return .part(table: table, statement: statement, changes: changes)
        case .committed:
            let statement = try reader.read(UInt64.self)
            guard reader.offset == bytes.count else { throw malformed }
            return .committed(table: table, statement: statement)
        }
    }

    /// The statement a `committed` record names, read without decoding anything else; nil for
    /// other records.
    package static func committedStatement<Bytes: RandomAccessCollection<UInt8>>(in bytes: Bytes) -> UInt64? where Bytes.Index == Int {
        guard bytes.count == 13, bytes[bytes.startIndex] == Kind.committed.rawValue else { return nil }
        return statement(in: bytes)
    }

    /// The statement a `part` record belongs to, read without decoding its rows; nil for other
    /// records.
    package static func partStatement<Bytes: RandomAccessCollection<UInt8>>(in bytes: Bytes) -> UInt64? where Bytes.Index == Int {
        guard bytes.count >= 13, bytes[bytes.startIndex] == Kind.part.rawValue else { return nil }
        return statement(in: bytes)
    }

    /// Whether the record is a `write` (a statement's or a connector's changes in one record).
    package static func isWrite<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes) -> Bool where Bytes.Index == Int {
        bytes.count >= 5 && bytes[bytes.startIndex] == Kind.write.rawValue
    }

    /// The statement number after a record's kind and table (bytes 5 to 12).
    private static func statement<Bytes: RandomAccessCollection<UInt8>>(in bytes: Bytes) -> UInt64 where Bytes.Index == Int {
        var statement: UInt64 = 0
        for index in (5 ..< 13).reversed() { statement = statement << 8 | UInt64(bytes[bytes.startIndex + index]) }
        return statement
    }

    /// The table a `dropped` record names, read without decoding anything else; nil for
    /// other records.
    package static func droppedTable<Bytes: RandomAccessCollection<UInt8>>(in bytes: Bytes) -> Int? where Bytes.Index == Int {
        guard bytes.count >= 5, bytes[bytes.startIndex] == Kind.dropped.rawValue else { return nil }
        let base = bytes.startIndex
        return Int(UInt32(bytes[base + 1]) | UInt32(bytes[base + 2]) << 8 | UInt32(bytes[base + 3]) << 16 | UInt32(bytes[base + 4]) << 24)
    }

    private static let malformed = SluiceError(.dataCorrupted, "malformed write-ahead log record")

    package static func == (lhs: TableLogRecord, rhs: TableLogRecord) -> Bool {
        lhs.encoded() == rhs.encoded()
    }
}
