import SluiceCore

/// The messages of PostgreSQL's `pgoutput` plugin, protocol version 1 ("Logical Replication
/// Message Formats" in PostgreSQL's documentation), as they arrive inside XLogData.
///
/// A row's fields are not copied out: a ``PgOutputTuple`` holds where each lies in the message,
/// and the reader casts them straight into column builders. The tuples are the caller's
/// (``PgOutputTuples``), filled again for each message, so a row costs no allocation. Every
/// length is checked against the message, so a damaged or hostile message is an error, never a
/// read past its end.
enum PgOutputMessage {
    case begin(finalLSN: UInt64, xid: UInt32)
    case commit(commitLSN: UInt64, endLSN: UInt64)
    case relation(PgOutputRelation)
    /// The row is in `tuples.new`.
    case insert(relation: UInt32)
    /// The new row is in `tuples.new`; with `hasOld`, the old key (`K`) or the whole old row
    /// (`O`, REPLICA IDENTITY FULL) the server sent is in `tuples.old`.
    case update(relation: UInt32, hasOld: Bool)
    /// The old key or row is in `tuples.old`.
    case delete(relation: UInt32)
    case truncate(relations: [UInt32])
    /// Origin, type and logical-message messages: nothing to apply.
    case other

    /// Decodes one message; a row message's rows go into `tuples`.
    static func decode(_ bytes: UnsafeRawBufferPointer, tuples: inout PgOutputTuples) throws(SluiceError) -> PgOutputMessage {
        var reader = PgOutputReader(bytes)
        let kind = try reader.byte()
        switch kind {
        case UInt8(ascii: "B"):
            let finalLSN = try reader.uint64()
            _ = try reader.uint64()  // the commit's time
            return .begin(finalLSN: finalLSN, xid: try reader.uint32())
        case UInt8(ascii: "C"):
            _ = try reader.byte()  // flags
            let commitLSN = try reader.uint64()
            let endLSN = try reader.uint64()
            _ = try reader.uint64()
            return .commit(commitLSN: commitLSN, endLSN: endLSN)
        case UInt8(ascii: "R"):
            let id = try reader.uint32()
            let namespace = try reader.string()
            let name = try reader.string()
            let identity = try reader.byte()
            let count = Int(try reader.uint16())
            var columns: [PgOutputRelation.Column] = []
            columns.reserveCapacity(min(count, 1600))
            for _ in 0 ..< count {
                let flags = try reader.byte()
                let columnName = try reader.string()
                let type = try reader.uint32()
                let modifier = Int32(bitPattern: try reader.uint32())
                columns.append(.init(name: columnName, isKey: flags & 1 != 0, typeOID: type, typeModifier: modifier))
            }
            return .relation(PgOutputRelation(id: id, namespace: namespace, name: name, replicaIdentity: identity, columns: columns))
        case UInt8(ascii: "I"):
            let relation = try reader.uint32()
            guard try reader.byte() == UInt8(ascii: "N") else { throw PgOutputReader.damaged("an insert without its new row") }
            try reader.tuple(into: &tuples.new)
            return .insert(relation: relation)
        case UInt8(ascii: "U"):
            let relation = try reader.uint32()
            var marker = try reader.byte()
            let hasOld = marker == UInt8(ascii: "K") || marker == UInt8(ascii: "O")
            if hasOld {
                try reader.tuple(into: &tuples.old)
                marker = try reader.byte()
            }
            guard marker == UInt8(ascii: "N") else { throw PgOutputReader.damaged("an update without its new row") }
            try reader.tuple(into: &tuples.new)
            return .update(relation: relation, hasOld: hasOld)
        case UInt8(ascii: "D"):
            let relation = try reader.uint32()
            let marker = try reader.byte()
            guard marker == UInt8(ascii: "K") || marker == UInt8(ascii: "O") else { throw PgOutputReader.damaged("a delete without its old row") }
            try reader.tuple(into: &tuples.old)
            return .delete(relation: relation)
        case UInt8(ascii: "T"):
            let count = Int(try reader.uint32())
            _ = try reader.byte()  // options: CASCADE, RESTART IDENTITY
            guard count <= reader.remaining / 4 else { throw PgOutputReader.damaged("a truncate of more relations than it holds") }
            var relations: [UInt32] = []
            for _ in 0 ..< count { relations.append(try reader.uint32()) }
            return .truncate(relations: relations)
        case UInt8(ascii: "O"), UInt8(ascii: "Y"), UInt8(ascii: "M"):
            return .other
        default:
            throw PgOutputReader.damaged("an unknown message kind \(kind)")
        }
    }
}

/// A relation message: the upstream table's name and columns as the stream's rows carry them.
struct PgOutputRelation: Equatable {
    struct Column: Equatable {
        var name: String
        var isKey: Bool
        var typeOID: UInt32
        var typeModifier: Int32
    }

    var id: UInt32
    var namespace: String
    var name: String
    /// `d` default, `n` nothing, `f` full, `i` an index.
    var replicaIdentity: UInt8
    var columns: [Column]
}

/// A row's fields within its message: per field, its kind and (for text) its bytes' range.
struct PgOutputTuple {
    enum Kind: UInt8 {
        case null = 0x6E  // 'n'
        case unchangedToast = 0x75  // 'u'
        case text = 0x74  // 't'
        case binary = 0x62  // 'b'
    }

    var kinds: [Kind] = []
    var ranges: [Range<Int>] = []
}

/// The rows of a row message: its new row and its old key or row, kept by the caller and filled
/// again for each message.
struct PgOutputTuples {
    var new = PgOutputTuple()
    var old = PgOutputTuple()
}

/// Reads a message's big-endian integers, strings and tuples, checking every length.
struct PgOutputReader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    var remaining: Int { bytes.count - offset }

    static func damaged(_ what: String) -> SluiceError {
        SluiceError(.dataCorrupted, "the replication stream sent a damaged message: \(what)")
    }

    mutating func byte() throws(SluiceError) -> UInt8 {
        guard remaining >= 1 else { throw Self.damaged("it ends early") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint16() throws(SluiceError) -> UInt16 {
        UInt16(try integer(2))
    }

    mutating func uint32() throws(SluiceError) -> UInt32 {
        UInt32(try integer(4))
    }

    mutating func uint64() throws(SluiceError) -> UInt64 {
        try integer(8)
    }

    private mutating func integer(_ width: Int) throws(SluiceError) -> UInt64 {
        guard remaining >= width else { throw Self.damaged("it ends early") }
        var value: UInt64 = 0
        for index in offset ..< offset + width { value = value << 8 | UInt64(bytes[index]) }
        offset += width
        return value
    }

    /// A NUL-terminated string.
    mutating func string() throws(SluiceError) -> String {
        guard let end = bytes[offset...].firstIndex(of: 0) else { throw Self.damaged("a string without its end") }
        defer { offset = end + 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset ..< end]), as: UTF8.self)
    }

    /// TupleData into `tuple` (emptied first, its buffers kept): a field count, then per field
    /// its kind and, for text and binary, its length and bytes.
    mutating func tuple(into tuple: inout PgOutputTuple) throws(SluiceError) {
        let count = Int(try uint16())
        guard count <= remaining else { throw Self.damaged("a row of more fields than it holds") }
        tuple.kinds.removeAll(keepingCapacity: true)
        tuple.ranges.removeAll(keepingCapacity: true)
        for _ in 0 ..< count {
            guard let kind = PgOutputTuple.Kind(rawValue: try byte()) else { throw Self.damaged("a field of an unknown kind") }
            tuple.kinds.append(kind)
            switch kind {
            case .text, .binary:
                let length = Int(try uint32())
                guard length <= remaining else { throw Self.damaged("a field longer than the message") }
                tuple.ranges.append(offset ..< offset + length)
                offset += length
            case .null, .unchangedToast:
                tuple.ranges.append(offset ..< offset)
            }
        }
    }
}

/// The replication stream's own messages around pgoutput's (CopyData in COPY BOTH).
enum ReplicationStreamMessage {
    /// XLogData: WAL from `start`, the server's WAL end, and the plugin's message.
    case data(start: UInt64, walEnd: UInt64, payload: Range<Int>)
    /// A primary keepalive: the server's WAL end, and whether it wants a reply now.
    case keepalive(walEnd: UInt64, replyRequested: Bool)

    static func decode(_ bytes: UnsafeRawBufferPointer) throws(SluiceError) -> ReplicationStreamMessage {
        var reader = PgOutputReader(bytes)
        switch try reader.byte() {
        case UInt8(ascii: "w"):
            let start = try reader.uint64()
            let walEnd = try reader.uint64()
            _ = try reader.uint64()  // the server's clock
            return .data(start: start, walEnd: walEnd, payload: reader.offset ..< bytes.count)
        case UInt8(ascii: "k"):
            let walEnd = try reader.uint64()
            _ = try reader.uint64()
            return .keepalive(walEnd: walEnd, replyRequested: try reader.byte() != 0)
        case let other:
            throw PgOutputReader.damaged("an unknown stream message kind \(other)")
        }
    }

    /// A standby status update: WAL written, flushed and applied up to `position`.
    static func statusUpdate(_ position: UInt64, replyRequested: Bool = false, now microseconds: Int64) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(ascii: "r")]
        func append(_ value: UInt64) {
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        }
        append(position)
        append(position)
        append(position)
        // Microseconds since 2000-01-01, PostgreSQL's epoch.
        append(UInt64(bitPattern: microseconds - 946_684_800_000_000))
        bytes.append(replyRequested ? 1 : 0)
        return bytes
    }
}
