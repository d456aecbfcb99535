import SluiceCore
import SluiceFormats
import SluiceKafkaProtocol

/// Messages for a topic, their keys and values back to back in one byte array (no allocation
/// per message): what a Kafka sink produces, and keeps until its checkpoint is prepared.
struct KafkaMessageBuffer {
    /// Where one message's key and value lie in ``bytes``; a length of -1 is Kafka's null.
    struct Span {
        var keyStart: Int
        var keyLength: Int
        var valueStart: Int
        var valueLength: Int
    }

    private(set) var bytes: [UInt8] = []
    private(set) var spans: [Span] = []

    var count: Int { spans.count }
    var isEmpty: Bool { spans.isEmpty }
    /// The bytes held, for the memory ledger.
    var byteCount: Int { bytes.capacity + spans.capacity * MemoryLayout<Span>.stride }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: bytes.capacity <= 64 << 20)
        spans.removeAll(keepingCapacity: spans.capacity <= 1 << 20)
    }

    /// Appends a message whose key and value are already in ``bytes``.
    fileprivate mutating func add(_ span: Span) {
        spans.append(span)
    }

    /// Calls `body` with the message's key and value (nil: null).
    func withMessage<T, E: Error>(_ index: Int, _ body: (UnsafeRawBufferPointer?, UnsafeRawBufferPointer?) throws(E) -> T) throws(E) -> T {
        let span = spans[index]
        let result: Result<T, E> = bytes.withUnsafeBytes { all in
            let key = span.keyLength < 0 ? nil : UnsafeRawBufferPointer(rebasing: all[span.keyStart ..< span.keyStart + span.keyLength])
            let value = span.valueLength < 0 ? nil : UnsafeRawBufferPointer(rebasing: all[span.valueStart ..< span.valueStart + span.valueLength])
            do throws(E) {
                return .success(try body(key, value))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Calls `body` with each message's key and value (nil: null) from `first` on.
    func forEachMessage<E: Error>(from first: Int, _ body: (UnsafeRawBufferPointer?, UnsafeRawBufferPointer?) throws(E) -> Void) throws(E) {
        guard first < spans.count else { return }
        let result: Result<Void, E> = bytes.withUnsafeBytes { all in
            for span in spans[first...] {
                let key = span.keyLength < 0 ? nil : UnsafeRawBufferPointer(rebasing: all[span.keyStart ..< span.keyStart + span.keyLength])
                let value = span.valueLength < 0 ? nil : UnsafeRawBufferPointer(rebasing: all[span.valueStart ..< span.valueStart + span.valueLength])
                do throws(E) {
                    try body(key, value)
                } catch {
                    return .failure(error)
                }
            }
            return .success(())
        }
        try result.get()
    }

    fileprivate var end: Int { bytes.count }

    fileprivate mutating func withBytes<T>(_ body: (inout [UInt8]) -> T) -> T {
        body(&bytes)
    }
}

/// How a sink's rows become message bytes: JSON objects (``RowTextEncoder``, each row's line
/// ending in a newline the message leaves out), or Avro records (``AvroRowEncoder``) in the
/// schema registry's frame of schema `id` (no frame: rows inside a Debezium envelope).
enum KafkaRowEncoding {
    case json(RowTextEncoder)
    case avro(AvroRowEncoder, header: [UInt8])
    /// Held while an encoder is taken out to be used, so its buffers are not copied.
    case moved

    /// Bytes after each row that are not part of its message (JSON's newline).
    var separatorLength: Int {
        if case .json = self { return 1 }
        return 0
    }

    mutating func append(_ chunk: Chunk, to bytes: inout [UInt8], ends: inout [Int]) {
        switch self {
        case .json(var encoder):
            self = .moved
            encoder.append(chunk, to: &bytes, lineEnds: &ends)
            self = .json(encoder)
        case .avro(var encoder, let header):
            self = .moved
            encoder.append(chunk, prefix: header, to: &bytes, rowEnds: &ends)
            self = .avro(encoder, header: header)
        case .moved:
            preconditionFailure("a Kafka row encoding used while it is moved out")
        }
    }
}

/// The schema ids of an Avro sink's messages, as the registry gave them.
struct KafkaAvroSchemaIDs {
    /// The value's (for DEBEZIUM, the envelope's).
    var value: Int32
    /// The key's, when keys are Avro.
    var key: Int32?
}

/// Turns a sink's changes into Kafka messages, a chunk at a time: the rows are rendered column
/// by column as JSON objects or Avro records (``KafkaRowEncoding``), keys likewise (or as the
/// key column's text with `KEY ENCODE TEXT`), then cut into messages as the format says:
/// - PLAIN: each inserted row's new version (deletes were dropped before the sink, or the input
///   only inserts); the key is the primary key's when there is one, else null;
/// - UPSERT: the new version keyed by the primary key; a delete is a tombstone (null value),
///   unless an insert of the same key follows it before the checkpoint (an update: a table's
///   UPDATE comes as a delete and an insert, maybe in different chunks): deletes are held until
///   then (``flushHeld(nowMilliseconds:into:)``);
/// - DEBEZIUM: `{"before": …, "after": …, "op": "c"|"u"|"d", "ts_ms": …, "source": {…}}` (the
///   payload as Debezium writes it without the schema wrapper), an update's two halves making one
///   "u" event, and a tombstone after each delete, as Debezium writes by default.
///
/// With ENCODE AVRO, every message is framed with its schema id; a Debezium event is the
/// envelope record `{before, after, op, ts_ms}` (``KafkaAvroSchemas``), its rows in place.
struct KafkaMessageEncoder {
    private let format: KafkaSinkOptions.Format
    private let keyColumns: [Int]
    private let keyAsText: Bool
    private var values: KafkaRowEncoding
    private var keys: KafkaRowEncoding?
    /// ENCODE AVRO's Debezium envelope: its frame (schema id).
    private let envelopeHeader: [UInt8]?
    private var valueEnds: [Int] = []
    private var keyEnds: [Int] = []
    private var scratch: [UInt8] = []
    /// Debezium's `"source"` object, the same for every event of the sink.
    private let source: [UInt8]

    /// - Parameter avro: for ENCODE AVRO, the schemas (``KafkaAvroSchemas``) and their ids in
    ///   the registry; nil for JSON.
    init(
        format: KafkaSinkOptions.Format, columns: [(name: String, type: DataType)], keyColumns: [Int], keyAsText: Bool, database: String, table: String,
        source fields: [(key: String, value: String)] = [], avro: (schemas: KafkaAvroSchemas, ids: KafkaAvroSchemaIDs)? = nil
    ) {
        self.format = format
        self.keyColumns = keyColumns
        self.keyAsText = keyAsText
        if let avro {
            var header: [UInt8] = []
            ConfluentFrame.appendHeader(avro.ids.value, to: &header)
            // A Debezium event's rows sit inside the envelope, unframed.
            values = .avro(avro.schemas.rows, header: format == .debezium ? [] : header)
            envelopeHeader = format == .debezium ? header : nil
            if let keyEncoder = avro.schemas.keys, let keyID = avro.ids.key, !keyAsText {
                var keyHeader: [UInt8] = []
                ConfluentFrame.appendHeader(keyID, to: &keyHeader)
                keys = .avro(keyEncoder, header: keyHeader)
            } else {
                keys = nil
            }
        } else {
            values = .json(RowTextEncoder(kind: .json, columnNames: columns.map(\.name)))
            keys = keyColumns.isEmpty || keyAsText ? nil : .json(RowTextEncoder(kind: .json, columnNames: keyColumns.map { columns[$0].name }))
            envelopeHeader = nil
        }
        // `fields` (`debezium.source.*`) replace the defaults of their key and follow them.
        var members: [(key: String, value: String)] = [("connector", "sluice"), ("name", table), ("db", database), ("table", table)]
        for field in fields {
            if let index = members.firstIndex(where: { $0.key == field.key }) { members[index].value = field.value } else { members.append(field) }
        }
        var source: [UInt8] = [UInt8(ascii: "{")]
        for (index, member) in members.enumerated() {
            if index > 0 { source.append(UInt8(ascii: ",")) }
            Array(member.key.utf8).withUnsafeBytes { JSONText.appendQuoted($0, to: &source) }
            source.append(UInt8(ascii: ":"))
            Array(member.value.utf8).withUnsafeBytes { JSONText.appendQuoted($0, to: &source) }
        }
        source.append(UInt8(ascii: "}"))
        self.source = source
    }

    /// For FORMAT PLAIN ENCODE JSON without keys and a chunk of insertions only: renders the
    /// rows and has `producer` frame each as a record around its JSON, written in place (no
    /// copy through a message buffer). False, with nothing done, for anything else.
    mutating func appendInPlace(_ chunk: StreamChunk, to producer: KafkaBatchProducer, nowMilliseconds: Int64) -> Bool {
        guard format == .plain, keyColumns.isEmpty, chunk.count > 0, !chunk.data.columns.isEmpty, case .json(var encoder) = values,
            chunk.ops.allSatisfy(\.isInsertion)
        else { return false }
        values = .moved
        encoder.render(chunk.data)
        encoder.lineLengths(chunk.count, into: &valueEnds)
        valueEnds.withUnsafeBufferPointer { lengths in
            producer.appendValues(lengths: lengths, timestamp: nowMilliseconds) { rows, base, starts in
                encoder.writeLines(rows, to: base, starts: starts)
            }
        }
        values = .json(encoder)
        return true
    }

    /// Appends the messages for `chunk`'s changes to `buffer`.
    mutating func encode(_ chunk: StreamChunk, nowMilliseconds: Int64, into buffer: inout KafkaMessageBuffer) {
        guard chunk.count > 0 else { return }
        let rows = chunk.count
        // The values' lines go straight into the buffer for PLAIN and UPSERT; Debezium's
        // events are put together from them.
        valueEnds.removeAll(keepingCapacity: true)
        let valuesBase: Int
        let separator = values.separatorLength
        if format == .debezium {
            scratch.removeAll(keepingCapacity: true)
            valuesBase = 0
            values.append(chunk.data, to: &scratch, ends: &valueEnds)
        } else {
            valuesBase = buffer.end
            buffer.withBytes { values.append(chunk.data, to: &$0, ends: &valueEnds) }
        }
        // Keys, after the values: start and length per row (-1: null).
        var keyStarts = [Int](repeating: -1, count: rows)
        var keyLengths = [Int](repeating: -1, count: rows)
        if !keyColumns.isEmpty {
            if keyAsText {
                let column = chunk.data.columns[keyColumns[0]]
                buffer.withBytes { bytes in
                    for row in 0 ..< rows where !column.isNull(row) {
                        keyStarts[row] = bytes.count
                        column.appendText(at: row, to: &bytes)
                        keyLengths[row] = bytes.count - keyStarts[row]
                    }
                }
            } else if keys != nil {
                let projected = Chunk(columns: keyColumns.map { chunk.data.columns[$0] }, count: rows)
                keyEnds.removeAll(keepingCapacity: true)
                let base = buffer.end
                let keySeparator = keys!.separatorLength
                buffer.withBytes { keys!.append(projected, to: &$0, ends: &keyEnds) }
                for row in 0 ..< rows {
                    keyStarts[row] = row == 0 ? base : keyEnds[row - 1]
                    // Less the newline, for JSON.
                    keyLengths[row] = keyEnds[row] - keyStarts[row] - keySeparator
                }
            }
        }
        func valueSpan(_ row: Int) -> (start: Int, length: Int) {
            let start = row == 0 ? valuesBase : valueEnds[row - 1]
            return (start, valueEnds[row] - start - separator)
        }
        let ops = chunk.ops
        let rendered = scratch
        let renderedEnds = valueEnds
        func row(_ row: Int) -> ArraySlice<UInt8> {
            let start = row == 0 ? 0 : renderedEnds[row - 1]
            return rendered[start ..< renderedEnds[row] - separator]
        }
        switch format {
        case .plain:
            for row in 0 ..< rows where ops[row].isInsertion {
                let value = valueSpan(row)
                buffer.add(.init(keyStart: keyStarts[row], keyLength: keyLengths[row], valueStart: value.start, valueLength: value.length))
            }
        case .upsert:
            for row in 0 ..< rows {
                if ops[row].isInsertion {
                    // The new version replaces a delete of the same key held this epoch.
                    _ = takeHeld(keyStarts[row], keyLengths[row], in: buffer)
                    let value = valueSpan(row)
                    buffer.add(.init(keyStart: keyStarts[row], keyLength: keyLengths[row], valueStart: value.start, valueLength: value.length))
                } else {
                    hold(keyStarts[row], keyLengths[row], before: [], in: &buffer)
                }
            }
        case .debezium:
            for index in 0 ..< rows {
                if ops[index].isInsertion {
                    let before = takeHeld(keyStarts[index], keyLengths[index], in: buffer)
                    appendEvent(before: before, after: row(index), key: (keyStarts[index], keyLengths[index]), nowMilliseconds: nowMilliseconds, into: &buffer)
                } else {
                    hold(keyStarts[index], keyLengths[index], before: row(index), in: &buffer)
                }
            }
        }
    }

    /// Emits the deletes still held (at the checkpoint): tombstones, and for Debezium a "d"
    /// event before each.
    mutating func flushHeld(nowMilliseconds: Int64, into buffer: inout KafkaMessageBuffer) {
        for entry in held where entry.live {
            let key = heldBytes[entry.keyStart ..< entry.keyStart + max(entry.keyLength, 0)]
            let keyStart = buffer.end
            buffer.withBytes { $0 += key }
            if format == .debezium {
                let before = heldBytes[entry.beforeStart ..< entry.beforeStart + entry.beforeLength]
                appendEvent(before: before, after: nil, key: (keyStart, entry.keyLength), nowMilliseconds: nowMilliseconds, into: &buffer)
            }
            buffer.add(.init(keyStart: keyStart, keyLength: entry.keyLength, valueStart: 0, valueLength: -1))
        }
        held.removeAll(keepingCapacity: true)
        heldBytes.removeAll(keepingCapacity: true)
        heldByHash.removeAll(keepingCapacity: true)
    }

    /// Appends a Debezium event: `before` and `after` rows (nil: null).
    private func appendEvent(
        before: ArraySlice<UInt8>?, after: ArraySlice<UInt8>?, key: (start: Int, length: Int), nowMilliseconds: Int64,
        into buffer: inout KafkaMessageBuffer
    ) {
        let start = buffer.end
        if let envelopeHeader {
            // The envelope record (`KafkaAvroSchemas.valueSchema` for DEBEZIUM): before and after as
            // ["null", row] unions (branch 1 is zig-zag 2), op a string, ts_ms a long.
            buffer.withBytes { bytes in
                bytes += envelopeHeader
                if let before { bytes.append(2); bytes += before } else { bytes.append(0) }
                if let after { bytes.append(2); bytes += after } else { bytes.append(0) }
                bytes.append(2)
                bytes.append(before == nil ? UInt8(ascii: "c") : after == nil ? UInt8(ascii: "d") : UInt8(ascii: "u"))
                var encoder = AvroBinaryEncoder()
                swap(&encoder.bytes, &bytes)
                encoder.writeLong(nowMilliseconds)
                swap(&encoder.bytes, &bytes)
            }
            buffer.add(.init(keyStart: key.start, keyLength: key.length, valueStart: start, valueLength: buffer.end - start))
            return
        }
        buffer.withBytes { bytes in
            bytes += Self.beforeField
            if let before { bytes += before } else { bytes += Self.null }
            bytes += Self.afterField
            if let after { bytes += after } else { bytes += Self.null }
            bytes += Self.opField
            bytes.append(before == nil ? UInt8(ascii: "c") : after == nil ? UInt8(ascii: "d") : UInt8(ascii: "u"))
            bytes += Self.timestampField
            DecimalText.append(nowMilliseconds, to: &bytes)
            bytes += Self.sourceField
            bytes += source
            bytes.append(UInt8(ascii: "}"))
        }
        buffer.add(.init(keyStart: key.start, keyLength: key.length, valueStart: start, valueLength: buffer.end - start))
    }

    private static let beforeField = Array("{\"before\":".utf8)
    private static let afterField = Array(",\"after\":".utf8)
    private static let opField = Array(",\"op\":\"".utf8)
    private static let timestampField = Array("\",\"ts_ms\":".utf8)
    private static let sourceField = Array(",\"source\":".utf8)
    private static let null = Array("null".utf8)

    // MARK: - Deletes held until the checkpoint

    /// A delete not yet emitted: a table's UPDATE comes as a delete and an insert of the same
    /// key, maybe in different chunks, which make one message (UPSERT's new version, Debezium's
    /// "u" event) when the insert comes before the checkpoint.
    private struct HeldDelete {
        var keyStart: Int
        var keyLength: Int
        var beforeStart: Int
        var beforeLength: Int
        /// The held delete before it whose key has the same hash, if any.
        var previousWithHash: Int?
        var live = true
    }

    private var held: [HeldDelete] = []
    private var heldBytes: [UInt8] = []
    /// The newest held delete of each key hash; older ones chain through `previousWithHash`
    /// (no allocation per delete or per lookup).
    private var heldByHash: [UInt64: Int] = [:]

    /// The bytes held for deletes, for the memory ledger.
    var heldByteCount: Int { heldBytes.capacity + held.capacity * MemoryLayout<HeldDelete>.stride }

    private mutating func hold(_ keyStart: Int, _ keyLength: Int, before: ArraySlice<UInt8>, in buffer: inout KafkaMessageBuffer) {
        let hash = Self.hash(buffer.bytes, keyStart, keyLength)
        var entry = HeldDelete(
            keyStart: heldBytes.count, keyLength: keyLength, beforeStart: 0, beforeLength: before.count, previousWithHash: heldByHash[hash])
        if keyLength > 0 { heldBytes += buffer.bytes[keyStart ..< keyStart + keyLength] }
        entry.beforeStart = heldBytes.count
        heldBytes += before
        heldByHash[hash] = held.count
        held.append(entry)
    }

    /// The row of the delete held for this key, which is taken (nil when none is held).
    private mutating func takeHeld(_ keyStart: Int, _ keyLength: Int, in buffer: KafkaMessageBuffer) -> ArraySlice<UInt8>? {
        guard !held.isEmpty else { return nil }
        var candidate = heldByHash[Self.hash(buffer.bytes, keyStart, keyLength)]
        while let index = candidate {
            let entry = held[index]
            candidate = entry.previousWithHash
            guard entry.live, entry.keyLength == keyLength else { continue }
            let same = keyLength <= 0 || heldBytes[entry.keyStart ..< entry.keyStart + keyLength].elementsEqual(buffer.bytes[keyStart ..< keyStart + keyLength])
            guard same else { continue }
            held[index].live = false
            return heldBytes[entry.beforeStart ..< entry.beforeStart + entry.beforeLength]
        }
        return nil
    }

    /// FNV-1a over the key's bytes.
    private static func hash(_ bytes: [UInt8], _ start: Int, _ length: Int) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        guard length > 0 else { return hash }
        for index in start ..< start + length {
            hash = (hash ^ UInt64(bytes[index])) &* 0x100_0000_01b3
        }
        return hash
    }
}
