import SluiceCore

/// Decodes Avro binary records (one per Kafka message, the Confluent frame already removed)
/// straight into the column builders of a source's columns.
///
/// Built once per writer schema: ``init(writer:reader:columns:primitiveColumn:)`` compiles the
/// writer's fields into a program (``AvroReadStep``s, one per field in the writer's order, each
/// naming the builder it fills or that it is skipped), so decoding a row walks the program and
/// the bytes once, with no lookup by name, no ``AvroValue`` tree and no existential.
///
/// ## What a record becomes
/// - Writer fields fill the columns of their names: exact names first, then ASCII
///   case-insensitively (as JSON sources match). Fields no column names are skipped.
/// - A column no writer field fills takes the reader schema's default for its field (the
///   subject's schema when the source was made), else NULL: Avro's schema resolution, lenient
///   where the specification would fail.
/// - `["null", T]` unions give NULL or a `T`; other unions read each branch into the column.
/// - Types: `boolean`; `int` and `long` into any integer type (range-checked), `real`, `double
///   precision`, `numeric` or `varchar`; `float`, `double` into floating point types; `string`
///   into `varchar`, `jsonb`, `bytea` or, parsed as text, any other type; `bytes` and `fixed`
///   into `bytea` (a `decimal` logical type into `numeric`, a 16-byte `uuid` into `varchar`);
///   `enum` into `varchar`; `record` into a struct column, by field name; `array` into a list
///   column. Logical types `date`, `time-millis`, `time-micros`, `timestamp-millis`,
///   `timestamp-micros` and their `local-` forms fill `date`, `time`, `timestamp` and
///   `timestamptz` columns.
///
/// ## Errors
/// Bytes that are not a record of the writer's schema (truncated, an invalid union branch, a
/// length past the end, bytes left over), invalid UTF-8 in a string column, and a value its
/// column cannot hold fail the row with an ``AvroDecodeError``; every builder is then back at
/// its count before the call. Counts of arrays and maps are checked against the bytes left
/// before anything is allocated, so no input makes it allocate without bound.
///
/// Not `Sendable` in spirit (one per reading thread), though it holds only values.
package struct AvroRowDecoder {
    /// The columns, in builder order.
    package let columns: [(name: String, type: DataType)]
    let program: AvroRecordProgram

    /// A decoder of records written with `writer` into `columns`.
    ///
    /// - Parameters:
    ///   - reader: the schema whose field defaults fill columns the writer lacks (nil: NULL).
    ///   - primitiveColumn: the column a writer schema that is not a record fills (a message
    ///     key that is one string, say); nil: such a schema is an error.
    /// - Throws: `datatypeMismatch` for a field whose type cannot fill its column (no union
    ///   branch can, say), `featureNotSupported` for a recursive writer schema.
    package init(writer: AvroSchema, reader: AvroSchema? = nil, columns: [(name: String, type: DataType)], primitiveColumn: Int? = nil) throws(SluiceError) {
        self.columns = columns
        var compiler = AvroProgramCompiler()
        if case .record = writer.kind {
            program = try compiler.record(writer, reader: reader, into: columns.map { StructField(name: $0.name, type: $0.type) }, path: "")
        } else if let primitiveColumn, columns.indices.contains(primitiveColumn) {
            let step = try compiler.step(writer, into: columns[primitiveColumn].type, path: columns[primitiveColumn].name)
            var unset: [AvroRecordProgram.Unset] = []
            for column in columns.indices where column != primitiveColumn { unset.append(.init(target: column, value: .null)) }
            program = AvroRecordProgram(fields: [.read(step, target: primitiveColumn)], unset: unset)
        } else {
            throw SluiceError(.datatypeMismatch, "an Avro \(writer.typeName) is not a record of the source's columns", hint: "Messages must be Avro records.")
        }
    }

    /// Empty builders for this decoder's columns.
    package func makeBuilders(capacity: Int = Chunk.preferredSize) -> [ColumnBuilder] {
        columns.map { ColumnBuilder(type: $0.type, capacity: capacity) }
    }

    /// Decodes the record in `bytes` (all of them) into one row of `builders`. On success every
    /// builder has grown by one row; on an error every builder is back at its count before.
    ///
    /// - Complexity: O(bytes).
    package func decodeRow(_ bytes: UnsafeRawBufferPointer, into builders: inout [ColumnBuilder]) throws(AvroDecodeError) {
        precondition(builders.count == columns.count, "AvroRowDecoder: \(builders.count) builders for \(columns.count) columns")
        let rowCount = builders.first?.count ?? 0
        var cursor = AvroCursor(bytes)
        do throws(AvroDecodeError) {
            try AvroProgramRunner.record(program, &cursor, into: &builders, depth: 0)
            if !cursor.isAtEnd { throw cursor.corrupt("\(cursor.remaining) bytes after the record") }
        } catch {
            // Every builder, also those whose count did not move: a struct's children may hold
            // values of the failed row.
            for index in builders.indices { builders[index].truncate(to: rowCount) }
            throw error
        }
    }
}

/// Why an Avro message is not a row: the problem, and the byte where it was found.
package struct AvroDecodeError: Error, Sendable, Equatable {
    package var message: String

    package init(_ message: String) {
        self.message = message
    }
}

/// The Confluent wire format of a schema registry's clients: magic byte 0, the schema id as a
/// 4-byte big-endian integer, then the Avro binary record.
package enum ConfluentFrame {
    /// The frame's length before the record.
    package static let headerLength = 5

    /// The schema id and the record of a framed message.
    package static func parse(_ message: UnsafeRawBufferPointer) throws(AvroDecodeError) -> (schemaID: Int32, record: UnsafeRawBufferPointer) {
        guard message.count >= headerLength else {
            throw AvroDecodeError("a message of \(message.count) bytes is too short for the schema registry's 5-byte header")
        }
        guard message[0] == 0 else { throw AvroDecodeError("the message does not start with the schema registry's magic byte 0 (it starts with \(message[0]))") }
        let id = Int32(bitPattern: UInt32(message[1]) << 24 | UInt32(message[2]) << 16 | UInt32(message[3]) << 8 | UInt32(message[4]))
        return (id, UnsafeRawBufferPointer(rebasing: message[headerLength...]))
    }

    /// Appends the header for schema `id`.
    package static func appendHeader(_ id: Int32, to bytes: inout [UInt8]) {
        let bits = UInt32(bitPattern: id)
        bytes.append(0)
        bytes.append(UInt8(truncatingIfNeeded: bits >> 24))
        bytes.append(UInt8(truncatingIfNeeded: bits >> 16))
        bytes.append(UInt8(truncatingIfNeeded: bits >> 8))
        bytes.append(UInt8(truncatingIfNeeded: bits))
    }
}
