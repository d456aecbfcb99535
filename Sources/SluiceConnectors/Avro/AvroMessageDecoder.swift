import SluiceCore
import SluiceFormats

/// Decodes a source's Confluent-framed Avro messages (magic byte 0, a 4-byte schema id, the
/// record) into rows of its columns, whatever version of the subject's schema wrote them.
///
/// Each schema id met is looked up in the registry once (blocking the reader's thread that one
/// time) and compiled into an ``AvroRowDecoder`` for the columns; a message of the same id as the
/// one before it reaches its program with no lookup at all. Columns a writer lacks take the
/// reader schema's defaults (the subject's latest schema when the source started), else NULL.
///
/// Not `Sendable`: one per reader thread.
struct AvroMessageDecoder {
    /// What a message's record is.
    enum Shape {
        /// A row of the columns.
        case row
        /// A Debezium envelope whose `before` and `after` are rows of the columns.
        case debezium
    }

    /// A Debezium event in Avro as ``change(_:)`` finds it: its operation and where its rows lie
    /// in the message, for ``decodeAfter(_:of:into:)`` and ``decodeBefore(_:of:into:)`` to read
    /// with the program ``change(_:)`` found.
    struct Change: DebeziumOperation {
        var operation: UInt8
        /// The byte ranges of the `before` and `after` rows in the message; nil when null.
        var before: Range<Int>?
        var after: Range<Int>?
        fileprivate var program: Int
    }

    private struct Program {
        /// The rows of the columns; nil, with ``problem``, when the writer's rows cannot fill
        /// them (a `.debezium` event's operation is still found, the row then refused).
        var rows: AvroRowDecoder?
        var problem: String?
        var envelope: AvroChangeEnvelope?
        /// `.debezium`: `before` rows as rows of ``keyColumns``, made at the first delete.
        var keys: AvroRowDecoder?
    }

    private let registry: SchemaRegistryClient
    private let columns: [(name: String, type: DataType)]
    /// `.debezium`: the columns of the delete keys `before` rows become (all of a table's).
    private let keyColumns: [(name: String, type: DataType)]
    private let reader: AvroSchema?
    private let primitiveColumn: Int?
    private let shape: Shape
    private var programs: [Program] = []
    private var programByID: [Int32: Int] = [:]
    /// The schema id of the message before, and its program's index.
    private var lastID: Int32?
    private var lastProgram = 0
    /// Ids that could not be used: why, and until when (nil: for good, as a schema that is not
    /// found or does not fit the columns; else a registry that did not answer, tried again later).
    private var failures: [Int32: (problem: String, until: ContinuousClock.Instant?)] = [:]

    /// - Parameters:
    ///   - reader: the subject's schema whose defaults fill fields a writer lacks (for
    ///     `.debezium`, the envelope; its row record is taken). Delete keys take no defaults.
    ///   - keyColumns: `.debezium`: the columns of delete keys; nil: `columns`.
    ///   - primitiveColumn: the column a message whose schema is not a record fills (a key).
    init(
        registry: SchemaRegistryClient, columns: [(name: String, type: DataType)], reader: AvroSchema?,
        keyColumns: [(name: String, type: DataType)]? = nil, primitiveColumn: Int? = nil, shape: Shape
    ) {
        self.registry = registry
        self.columns = columns
        self.keyColumns = keyColumns ?? columns
        self.primitiveColumn = primitiveColumn
        self.shape = shape
        if shape == .debezium, let reader {
            self.reader = (try? AvroChangeEnvelope(writer: reader))?.rowSchema
        } else {
            self.reader = reader
        }
    }

    /// Appends the row `message` holds (for `.debezium`, its `after` row).
    mutating func decode(_ message: UnsafeRawBufferPointer, into builders: inout [ColumnBuilder]) throws(RowParseError) {
        if shape == .debezium {
            let event = try change(message)
            try decodeAfter(event, of: message, into: &builders)
            return
        }
        let (index, record) = try program(of: message)
        do throws(AvroDecodeError) {
            try rows(of: index).decodeRow(record, into: &builders)
        } catch {
            throw RowParseError(error.message)
        }
    }

    /// The Debezium event `message` holds, its envelope read once: its `op` and where its rows
    /// lie.
    mutating func change(_ message: UnsafeRawBufferPointer) throws(RowParseError) -> Change {
        let (index, record) = try program(of: message)
        guard let envelope = programs[index].envelope else { throw RowParseError("not a Debezium event") }
        do throws(AvroDecodeError) {
            let event = try envelope.locate(record)
            let header = ConfluentFrame.headerLength
            return Change(
                operation: event.operation, before: event.before.map { $0.lowerBound + header ..< $0.upperBound + header },
                after: event.after.map { $0.lowerBound + header ..< $0.upperBound + header }, program: index)
        } catch {
            throw RowParseError(error.message)
        }
    }

    /// Appends the `after` row of `event`, which ``change(_:)`` found in `message`.
    func decodeAfter(_ event: Change, of message: UnsafeRawBufferPointer, into builders: inout [ColumnBuilder]) throws(RowParseError) {
        do throws(AvroDecodeError) {
            guard let after = event.after else { throw AvroDecodeError("a Debezium event without \"after\"") }
            try rows(of: event.program).decodeRow(UnsafeRawBufferPointer(rebasing: message[after]), into: &builders)
        } catch {
            throw RowParseError(error.message)
        }
    }

    /// Appends the `before` row of `event`, which ``change(_:)`` found in `message`, as a row of
    /// the key columns.
    mutating func decodeBefore(_ event: Change, of message: UnsafeRawBufferPointer, into builders: inout [ColumnBuilder]) throws(RowParseError) {
        let index = event.program
        if programs[index].keys == nil, let envelope = programs[index].envelope {
            do throws(SluiceError) {
                programs[index].keys = try AvroRowDecoder(writer: envelope.rowSchema, reader: nil, columns: keyColumns)
            } catch {
                throw RowParseError("before: \(error.message)")
            }
        }
        do throws(AvroDecodeError) {
            guard let before = event.before, let keys = programs[index].keys else { throw AvroDecodeError("a Debezium delete without \"before\"") }
            try keys.decodeRow(UnsafeRawBufferPointer(rebasing: message[before]), into: &builders)
        } catch {
            throw RowParseError("before: \(error.message)")
        }
    }

    /// The row decoder of program `index`, or why its writer's rows do not fit the columns.
    private func rows(of index: Int) throws(AvroDecodeError) -> AvroRowDecoder {
        guard let rows = programs[index].rows else { throw AvroDecodeError(programs[index].problem ?? "no row decoder") }
        return rows
    }

    /// The program of `message`'s schema id, and its record.
    @inline(__always)
    private mutating func program(of message: UnsafeRawBufferPointer) throws(RowParseError) -> (Int, UnsafeRawBufferPointer) {
        let id: Int32
        let record: UnsafeRawBufferPointer
        do throws(AvroDecodeError) {
            (id, record) = try ConfluentFrame.parse(message)
        } catch {
            throw RowParseError(error.message)
        }
        if id == lastID { return (lastProgram, record) }
        let index = try program(forID: id)
        lastID = id
        lastProgram = index
        return (index, record)
    }

    /// Looks up and compiles schema `id` the first time it is met.
    private mutating func program(forID id: Int32) throws(RowParseError) -> Int {
        if let index = programByID[id] { return index }
        if let failure = failures[id] {
            if let until = failure.until, ContinuousClock.now >= until {
                failures[id] = nil
            } else {
                throw RowParseError(failure.problem)
            }
        }
        do throws(SluiceError) {
            let writer = try registry.schema(id: id)
            let program: Program
            switch shape {
            case .row:
                program = Program(rows: try AvroRowDecoder(writer: writer, reader: reader, columns: columns, primitiveColumn: primitiveColumn))
            case .debezium:
                let envelope = try AvroChangeEnvelope(writer: writer)
                do throws(SluiceError) {
                    program = Program(rows: try AvroRowDecoder(writer: envelope.rowSchema, reader: reader, columns: columns), envelope: envelope)
                } catch {
                    // The events' operations are still read (deletes need no rows of the columns).
                    program = Program(problem: "Avro schema \(id): \(error.message)", envelope: envelope)
                }
            }
            programs.append(program)
            programByID[id] = programs.count - 1
            return programs.count - 1
        } catch {
            let problem = "Avro schema \(id): \(error.message)"
            // A registry that did not answer is asked again in a few seconds; any other answer stands.
            let transient = error.code == .unableToEstablishConnection || error.code == .ioError
            // Ids a hostile or damaged topic makes up are remembered only so far.
            if failures.count >= 1_000 { failures.removeAll() }
            failures[id] = (problem, transient ? ContinuousClock.now + .seconds(5) : nil)
            throw RowParseError(problem)
        }
    }
}

/// `ENCODE AVRO`: each message a Confluent-framed Avro record (``AvroMessageDecoder``), for
/// `FORMAT PLAIN` a row and for `FORMAT DEBEZIUM` an event whose `after` row is taken.
package struct AvroRowParser: RowParser {
    private var decoder: AvroMessageDecoder
    private let columns: [(name: String, type: DataType)]

    init(registry: SchemaRegistryClient, columns: [(name: String, type: DataType)], reader: AvroSchema?, debezium: Bool) {
        self.columns = columns
        decoder = AvroMessageDecoder(registry: registry, columns: columns, reader: reader, shape: debezium ? .debezium : .row)
    }

    package func makeBuilders() -> [ColumnBuilder] {
        columns.map { ColumnBuilder(type: $0.type, capacity: Chunk.preferredSize) }
    }

    @inline(__always)
    package mutating func parse(_ payload: UnsafeRawBufferPointer, into builders: inout [ColumnBuilder]) throws(RowParseError) {
        try decoder.decode(payload, into: &builders)
    }
}
