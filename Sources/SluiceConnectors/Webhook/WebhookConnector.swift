import SluiceCore
import SluiceDataflow
import SluiceExpr
import SluiceFormats

/// RisingWave's webhook tables: `CREATE TABLE t (data JSONB) WITH (connector = 'webhook')
/// [VALIDATE [SECRET s] AS …]`. Requests arrive over HTTP (the server's webhook listener) and
/// are inserted as a statement's rows are; the connector itself reads nothing, and says how a
/// request's body becomes rows (``WebhookDecoder``).
///
/// Options:
/// - `is_batched = 'true'`: the body is newline-delimited JSON, a row per line;
/// - `idempotency_header = 'Idempotency-Key'`: the header's value fills the table's primary key
///   (one text column; `<value>-<line>` for a batch's lines), so a delivery sent again writes the
///   same rows over themselves (or, with ON CONFLICT DO NOTHING, nothing at all).
///
/// `INCLUDE timestamp [AS name]` adds the time each request arrived.
package final class WebhookConnector: SourceConnector, RequestRowDecoder {
    package static let entry = ConnectorEntry(
        name: "webhook", takesIncludes: true, sourceOptions: [.boolean("is_batched"), .text("idempotency_header")],
        makeSource: { description, _ throws(SluiceError) in try WebhookConnector(description) })

    package let statistics = SourceStatistics()
    package let notices: [String] = []
    package let decoder: WebhookDecoder

    init(_ description: SourceDescription) throws(SluiceError) {
        guard description.isTable else {
            throw SluiceError(
                .featureNotSupported, "a webhook feeds a table, not a source", hint: "Use CREATE TABLE t (data JSONB) WITH (connector = 'webhook').")
        }
        guard description.format.isEmpty || (description.format == "PLAIN" && description.encode == "JSON") else {
            throw SluiceError(.featureNotSupported, "a webhook table takes JSON bodies: FORMAT PLAIN ENCODE JSON, or no format")
        }
        decoder = try WebhookDecoder(description)
        statistics.status = "waiting for requests"
    }

    package var idempotencyHeader: String? { decoder.idempotencyHeader }

    package func rows(_ body: UnsafeRawBufferPointer, idempotencyKey: String?) throws(SluiceError) -> Chunk {
        try decoder.rows(body, idempotencyKey: idempotencyKey)
    }

    package func start(output: SourceOutput) {}
    package func stop() {}
    package func snapshot(columns: Set<Int>?) throws(SluiceError) -> SourceSnapshot { SourceSnapshot([]) }
    package func scan(pruningBy filter: ScalarExpr?, each: (Chunk) throws(SluiceError) -> Void) throws(SluiceError) {}
    package var positions: [Int32: Int64]? { nil }
}

/// How a webhook request's body becomes a table's rows.
///
/// A table of one `jsonb` column (RisingWave's `data JSONB`) stores each JSON document whole.
/// A table of other columns takes each document as `ENCODE JSON` does: an object whose members
/// fill the columns of their names. Either way a body that is not JSON (or, for typed columns,
/// not an object of them) is an error naming the line, and the request adds nothing.
package struct WebhookDecoder: Sendable {
    package let columns: [(name: String, type: DataType)]
    /// The columns the body fills, and which of `columns` each is.
    private let payloadColumns: [(name: String, type: DataType)]
    private let payloadIndexes: [Int]
    /// The columns `INCLUDE timestamp` adds.
    private let arrivalColumns: [Int]
    package let isBatched: Bool
    package let idempotencyHeader: String?
    /// The column the idempotency header fills.
    private let keyColumn: Int?
    /// The table is one jsonb column: documents are stored whole.
    private let storesDocuments: Bool

    package init(_ description: SourceDescription) throws(SluiceError) {
        columns = description.columns
        for include in description.includes where include.kind != .timestamp {
            throw SluiceError(.featureNotSupported, "a webhook table can INCLUDE timestamp (when a request arrived), not \(include.kind.rawValue)")
        }
        arrivalColumns = description.includes.map(\.column)
        let included = Set(arrivalColumns)
        payloadIndexes = columns.indices.filter { !included.contains($0) }
        payloadColumns = description.payloadColumns
        isBatched = try OptionValues.boolean(description.options, "is_batched") ?? false
        idempotencyHeader = description.options["idempotency_header"].map { $0.lowercased() }
        storesDocuments = payloadColumns.count == 1 && payloadColumns[0].type == .jsonb
        if idempotencyHeader != nil {
            guard description.primaryKey.count == 1, columns[description.primaryKey[0]].type == .varchar else {
                throw SluiceError(
                    .invalidTableDefinition, "idempotency_header needs a primary key of one text column for the header's value",
                    hint: "Add a column such as delivery_id varchar PRIMARY KEY.")
            }
            keyColumn = description.primaryKey[0]
        } else {
            keyColumn = nil
        }
    }

    /// The rows of `body`; `idempotencyKey` is the idempotency header's value, when sent.
    package func rows(_ body: UnsafeRawBufferPointer, idempotencyKey: String?) throws(SluiceError) -> Chunk {
        var documents: [UnsafeRawBufferPointer] = []
        if isBatched {
            var start = 0
            for index in 0 ... body.count where index == body.count || body[index] == 10 {
                var line = UnsafeRawBufferPointer(rebasing: body[start ..< index])
                if line.last == 13 { line = UnsafeRawBufferPointer(rebasing: line.dropLast()) }
                if line.contains(where: { $0 != 32 && $0 != 9 }) { documents.append(line) }
                start = index + 1
            }
        } else {
            documents.append(body)
        }
        var builders = payloadColumns.map { ColumnBuilder(type: $0.type, capacity: documents.count) }
        if storesDocuments {
            for (line, document) in documents.enumerated() {
                do throws(SluiceError) {
                    builders[0].append(.jsonb(try JSONText.normalize(String(decoding: document, as: UTF8.self))))
                } catch {
                    throw Self.badDocument(error.message, line: line, batched: isBatched)
                }
            }
        } else {
            var decoder = JSONRowDecoder(columns: payloadColumns)
            for (line, document) in documents.enumerated() {
                do throws(JSONDecodeError) {
                    try decoder.decodeRow(document, into: &builders)
                } catch {
                    throw Self.badDocument(error.message, line: line, batched: isBatched)
                }
            }
        }
        var built = [Column?](repeating: nil, count: columns.count)
        for (index, builder) in builders.enumerated() { built[payloadIndexes[index]] = builder.finish() }
        if !arrivalColumns.isEmpty {
            let now = Column(type: .timestamptz, repeating: .timestamptz(Connectors.nowMicroseconds()), count: documents.count)
            for column in arrivalColumns { built[column] = now }
        }
        var chunk = Chunk(columns: built.map { $0! }, count: documents.count)
        if let keyColumn, let idempotencyKey {
            var keys = ColumnBuilder(type: .varchar, capacity: documents.count)
            for line in documents.indices { keys.append(.string(isBatched ? "\(idempotencyKey)-\(line + 1)" : idempotencyKey)) }
            chunk.columns[keyColumn] = keys.finish()
        }
        return chunk
    }

    private static func badDocument(_ message: String, line: Int, batched: Bool) -> SluiceError {
        SluiceError(.invalidTextRepresentation, batched ? "line \(line + 1): \(message)" : message)
    }
}
