import Synchronization
import SluiceBatch
import SluiceCore
import SluiceFormats
import SluicePGWire
import SluicePlanner

/// Takes the data of one `COPY table FROM STDIN` as it arrives: splits it into batches of rows
/// (``CopyBatchReader``), casts each batch a column at a time into the columns' builders (plain
/// integers and text straight from the data's bytes, other values through their type's text
/// input), and builds chunks of ``Chunk/preferredSize`` rows. The chunks are staged (``ChunkStaging``: in memory, then in an unlinked spill file)
/// and inserted only once CopyDone came and every row was read, as one statement
/// (``TableState/insert(_:into:)``: in parts past a few chunks, all or none of them after a
/// crash), so a bad row, CopyFail or a dropped connection leaves the table as it was, and
/// memory stays bounded whatever the size of the data.
///
/// - Complexity: O(bytes) to read; the insert streams the staged chunks back a part at a time.
final class CopyFromLoader: PGCopyInSink {
    private struct State {
        var reader: CopyBatchReader
        var builders: [ColumnBuilder]
        var staged: ChunkStaging?
        var rowCount = 0
        var isEnded = false
    }

    let columnCount: Int
    private let session: SQLSession
    private let table: RelationDefinition
    /// The table column each field of a row goes to.
    private let columns: [Int]
    /// Table columns no field fills, which must allow NULL.
    private let omittedNotNullColumn: String?
    private let state: Mutex<State>
    /// The session's time zone, for `timestamptz` fields without an offset.
    private let zone: TimeZoneRules

    init(session: SQLSession, table: RelationDefinition, columns: [Int], format: CopyFormat) {
        self.session = session
        self.zone = session.zone
        self.table = table
        self.columns = columns
        self.columnCount = columns.count
        omittedNotNullColumn = table.columns.indices.first { !columns.contains($0) && !table.columns[$0].isNullable }
            .map { table.columns[$0].name }
        let reader = CopyBatchReader(format: format, columnNames: columns.map { table.columns[$0].name })
        let staged = ChunkStaging(types: table.columns.map(\.type), spillDirectory: session.database.spillDirectory)
        state = Mutex(State(reader: reader, builders: Self.builders(for: table), staged: staged))
    }

    func received(_ data: [UInt8]) throws(SluiceError) {
        if session.isCancelled() { throw prefixed(ending(SluiceError(.queryCanceled, "canceling statement due to user request"))) }
        try state.withLock { (state) throws(SluiceError) in
            guard !state.isEnded else { return }
            do throws(SluiceError) {
                try read(data, into: &state)
            } catch {
                end(&state)
                throw prefixed(error)
            }
        }
    }

    func finished() async throws(SluiceError) -> String {
        let count = try state.withLock { (state) throws(SluiceError) -> Int in
            guard !state.isEnded else { throw SluiceError.internalError("COPY finished after it ended") }
            defer { end(&state) }
            do throws(SluiceError) {
                var reader = state.reader
                try reader.finish { (batch) throws(SluiceError) in try append(batch, to: &state) }
                try flushChunk(&state)
                return try insertStaged(&state)
            } catch {
                throw prefixed(error)
            }
        }
        if session.synchronousCommit { try await session.database.tables.makeWritesDurable() }
        if ["true", "on", "1"].contains(session.setting("rw_implicit_flush")?.lowercased() ?? "") {
            await session.database.streams.runtime.flush()
        }
        return "COPY \(count)"
    }

    func failed() {
        state.withLock { end(&$0) }
    }

    // MARK: Reading

    private func read(_ data: [UInt8], into state: inout State) throws(SluiceError) {
        var reader = state.reader
        defer { state.reader = reader }
        try reader.read(data) { (batch) throws(SluiceError) in try append(batch, to: &state) }
    }

    /// Adds a batch's rows to the builders, a column at a time, flushing a chunk at every
    /// ``Chunk/preferredSize`` rows.
    private func append(_ batch: CopyBatch, to state: inout State) throws(SluiceError) {
        var start = 0
        while start < batch.rowCount {
            let room = Chunk.preferredSize - state.rowCount % Chunk.preferredSize
            let end = min(batch.rowCount, start + room)
            try cast(batch, rows: start ..< end, into: &state.builders)
            state.rowCount += end - start
            if state.rowCount % Chunk.preferredSize == 0 { try flushChunk(&state) }
            start = end
        }
    }

    /// Casts `rows` of `batch` into `builders`, a column at a time, checked against the
    /// columns' types and NOT NULL. At a bad value, the rows are taken again one at a time, as
    /// PostgreSQL takes them, for the error of the first bad row and its first bad field.
    private func cast(_ batch: CopyBatch, rows: Range<Int>, into builders: inout [ColumnBuilder]) throws(SluiceError) {
        if omittedNotNullColumn != nil { throw firstError(in: batch, through: rows.lowerBound) }
        for (field, column) in columns.enumerated() {
            let definition = table.columns[column]
            if let failedRow = Self.cast(batch, rows: rows, field: field, definition: definition, zone: zone, into: &builders[column]) {
                throw firstError(in: batch, through: failedRow)
            }
        }
        for column in table.columns.indices where !columns.contains(column) {
            for _ in rows { builders[column].appendNull() }
        }
    }

    /// Casts field `field` of `rows` into `builder`; returns the first row whose value does not
    /// fit (NULL in a NOT NULL column, text the type does not read), or nil.
    private static func cast(
        _ batch: CopyBatch, rows: Range<Int>, field: Int, definition: CatalogColumn, zone: TimeZoneRules, into builder: inout ColumnBuilder
    ) -> Int? {
        let isNullable = definition.isNullable
        switch definition.type {
        case .varchar:
            for row in rows {
                if let bytes = batch.field(row, field) {
                    builder.append(bytes: bytes)
                } else {
                    guard isNullable else { return row }
                    builder.appendNull()
                }
            }
            return nil
        case .int64:
            for row in rows {
                if let bytes = batch.field(row, field) {
                    if let value = plainInteger(bytes) {
                        builder.append(int64: value)
                    } else {
                        guard let value = try? Value(parsingText: String(decoding: bytes, as: UTF8.self), as: .int64, zone: zone) else { return row }
                        builder.append(value)
                    }
                } else {
                    guard isNullable else { return row }
                    builder.appendNull()
                }
            }
            return nil
        default:
            let type = definition.type
            for row in rows {
                if let bytes = batch.field(row, field) {
                    if let value = plainInteger(bytes) {
                        switch type {
                        case .int32 where Int64(Int32.min) ... Int64(Int32.max) ~= value:
                            builder.append(int32: Int32(value))
                            continue
                        case .int16 where Int64(Int16.min) ... Int64(Int16.max) ~= value:
                            builder.append(int16: Int16(value))
                            continue
                        default:
                            break
                        }
                    }
                    guard let value = try? Value(parsingText: String(decoding: bytes, as: UTF8.self), as: type, zone: zone) else { return row }
                    builder.append(value)
                } else {
                    guard isNullable else { return row }
                    builder.appendNull()
                }
            }
            return nil
        }
    }

    /// The error of the first bad row of `batch` up to `last` (which has one), as the row-at-a-
    /// time ``append(_:to:)-(CopyRow,_)`` finds it, into builders thrown away.
    private func firstError(in batch: CopyBatch, through last: Int) -> SluiceError {
        var scratch = State(reader: CopyBatchReader(format: CopyFormat(kind: .text), columnNames: []), builders: Self.builders(for: table), staged: nil)
        for row in 0 ... last {
            do throws(SluiceError) {
                try append(batch.row(row), to: &scratch)
            } catch {
                return error
            }
        }
        return SluiceError.internalError("COPY found a bad value in line \(batch.lineNumbers[last]) that it then read without error")
    }

    /// Adds one row to the builders, checked against the columns' count, types and NOT NULL.
    private func append(_ row: CopyRow, to state: inout State) throws(SluiceError) {
        guard row.count == columns.count else {
            let message = row.count > columns.count
                ? "extra data after last expected column"
                : "missing data for column \"\(table.columns[columns[row.count]].name)\""
            throw withContext(SluiceError(.badCopyFileFormat, message), CopyContext.line(row.lineNumber, text: row.line))
        }
        if let omittedNotNullColumn { throw notNullViolation(omittedNotNullColumn, row) }
        for (field, column) in columns.enumerated() {
            let definition = table.columns[column]
            if row.isNull[field] {
                guard definition.isNullable else { throw notNullViolation(definition.name, row) }
                state.builders[column].appendNull()
                continue
            }
            let range = row.range(of: field)
            switch definition.type {
            case .varchar:
                row.bytes.withUnsafeBytes { bytes in
                    state.builders[column].append(bytes: UnsafeRawBufferPointer(rebasing: bytes[range]))
                }
                continue
            case .int64, .int32, .int16:
                // Plain digits (the common case) go straight into the column; anything else
                // (spaces, a sign `+`, too many digits) takes the type's text input below.
                if let value = Self.plainInteger(row.bytes, range) {
                    switch definition.type {
                    case .int64:
                        state.builders[column].append(int64: value)
                        continue
                    case .int32 where Int64(Int32.min) ... Int64(Int32.max) ~= value:
                        state.builders[column].append(int32: Int32(value))
                        continue
                    case .int16 where Int64(Int16.min) ... Int64(Int16.max) ~= value:
                        state.builders[column].append(int16: Int16(value))
                        continue
                    default:
                        break
                    }
                }
            default:
                break
            }
            do {
                state.builders[column].append(try Value(parsingText: row.string(at: field), as: definition.type, zone: zone))
            } catch {
                throw withContext(error, CopyContext.column(row.lineNumber, name: definition.name, value: Array(row.bytes[range])))
            }
        }
        for column in table.columns.indices where !columns.contains(column) { state.builders[column].appendNull() }
        state.rowCount += 1
        if state.rowCount % Chunk.preferredSize == 0 { try flushChunk(&state) }
    }

    /// The integer `bytes` spells as an optional `-` and 1 to 18 ASCII digits (so it cannot
    /// overflow), or nil for any other text.
    @inline(__always)
    static func plainInteger(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        var index = 0
        let end = bytes.count
        let isNegative = end > 0 && bytes[0] == UInt8(ascii: "-")
        if isNegative { index = 1 }
        let digits = end - index
        guard digits > 0, digits <= 18 else { return nil }
        var value: Int64 = 0
        while index < end {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value &* 10 &+ Int64(digit)
            index += 1
        }
        return isNegative ? -value : value
    }

    /// The integer `bytes[range]` spells (see ``plainInteger(_:)``), or nil.
    @inline(__always)
    static func plainInteger(_ bytes: [UInt8], _ range: Range<Int>) -> Int64? {
        var index = range.lowerBound
        let isNegative = index < range.upperBound && bytes[index] == UInt8(ascii: "-")
        if isNegative { index += 1 }
        let digits = range.upperBound - index
        guard digits > 0, digits <= 18 else { return nil }
        var value: Int64 = 0
        while index < range.upperBound {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value &* 10 &+ Int64(digit)
            index += 1
        }
        return isNegative ? -value : value
    }

    private func notNullViolation(_ column: String, _ row: CopyRow) -> SluiceError {
        withContext(
            SluiceError(.notNullViolation, "null value in column \"\(column)\" of relation \"\(table.name)\" violates not-null constraint"),
            CopyContext.line(row.lineNumber, text: row.line))
    }

    /// `error` with PostgreSQL's COPY context: `COPY t, line 3, column b: "x"`.
    /// An error of the reader, whose context names the line, with the relation's name added
    /// (PostgreSQL's `COPY t, line 3: "…"`); errors of this loader already have it.
    /// Also fails an open transaction block, as any failed statement does.
    private func prefixed(_ error: SluiceError) -> SluiceError {
        if session.transactionStatus == .inBlock { session.setTransactionStatus(.failed) }
        guard let context = error.context, !context.hasPrefix("COPY ") else { return error }
        return withContext(error, context)
    }

    private func withContext(_ error: SluiceError, _ context: String) -> SluiceError {
        var error = error
        error.context = "COPY \(table.name), \(context)"
        return error
    }

    private func ending(_ error: SluiceError) -> SluiceError {
        state.withLock { end(&$0) }
        return error
    }

    // MARK: Staging and inserting

    /// Moves the built rows into a chunk, staged in memory or in the spill file.
    private func flushChunk(_ state: inout State) throws(SluiceError) {
        guard let count = state.builders.first?.count, count > 0 else { return }
        let chunk = Chunk(columns: state.builders.map { $0.finish() }, count: count)
        state.builders = Self.builders(for: table)
        try state.staged?.append(chunk)
    }

    /// Inserts every staged row as one statement; returns the rows inserted.
    private func insertStaged(_ state: inout State) throws(SluiceError) -> Int {
        guard let staged = state.staged else { return 0 }
        return try session.database.tables.insert(staged, into: table)
    }

    /// Drops everything staged; later calls do nothing.
    private func end(_ state: inout State) {
        state.isEnded = true
        state.staged = nil
        state.builders = []
    }

    private static func builders(for table: RelationDefinition) -> [ColumnBuilder] {
        table.columns.map { ColumnBuilder(type: $0.type) }
    }
}
