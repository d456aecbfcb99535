import Foundation
import SluiceBatch
import SluiceCore
import SluicePlanner
import SluiceState

/// Writes of any size in bounded memory: a statement's rows are staged first (``ChunkStaging``:
/// in memory, then on disk), so a bad row or a failed query changes nothing, and then applied.
/// Few rows go in one write, as before; more go in parts of ``chunksPerPart`` chunks, each one
/// step of the table's stream and one `part` record of the log, under one statement number,
/// closed by a `committed` record (``inParts(of:_:)``). Barriers pass between parts, so views
/// take the statement an epoch at a time and keep their state within the memory limit, while
/// checkpoints wait for the statement's end: a crash before the `committed` record leaves none
/// of it (recovery skips its parts), after it all of it.
extension TableState {
    /// Chunks in one part of a statement applied in parts.
    static let chunksPerPart = 16

    /// Inserts the rows staged in `staged` (in the table's column order and types) into `table`
    /// as one statement; returns the number of rows given.
    package func insert(_ staged: ChunkStaging, into table: RelationDefinition) throws(SluiceError) -> Int {
        if staged.isInMemory { return try insert(staged.heldChunks, into: table, synchronousCommit: false) }
        return try inParts(of: table) { (statement) throws(SluiceError) -> Int in
            try insertParts(of: staged, into: table, statement: statement)
        }
    }

    private func insertParts(of staged: ChunkStaging, into table: RelationDefinition, statement: UInt64?) throws(SluiceError) -> Int {
        var count = 0
        try forEachPart(of: staged) { (part) throws(SluiceError) in
            count += try insert(part, into: table, synchronousCommit: false, statement: statement)
        }
        return count
    }

    /// Calls `body` with the staged chunks, ``chunksPerPart`` at a time (the last part may be
    /// smaller), starting a new log segment between parts when the current one is full.
    private func forEachPart(of staged: ChunkStaging, _ body: ([Chunk]) throws(SluiceError) -> Void) throws(SluiceError) {
        let stream = try staged.chunks()
        var part: [Chunk] = []
        while let chunk = try stream.next() {
            part.append(chunk)
            guard part.count == Self.chunksPerPart else { continue }
            try body(part)
            part = []
            try journal?.rotateIfFull()
        }
        if !part.isEmpty { try body(part) }
    }

    /// Deletes the rows of `table` that `matching` selects or, with `update`, replaces each chunk
    /// of them by what `update` makes of it, as one statement, and sends the changes (old rows
    /// deleted, new rows inserted, rows an updated primary key replaced deleted) to the views
    /// reading the table. Returns the number of rows matched.
    ///
    /// Every row is read first (a page at a time, evicted pages read back for this alone) and
    /// the rows to remove, with their state keys, and the new rows are staged; only then is the
    /// table changed: every old row removed, then every new row inserted (so an update that
    /// moves a key onto another updated row's key leaves what one pass would).
    package func modify(
        _ table: RelationDefinition, spillDirectory: String, matching: (Chunk) throws(SluiceError) -> Bitmap,
        update: ((Chunk) throws(SluiceError) -> Chunk)? = nil
    ) throws(SluiceError) -> Int {
        guard let store = store(for: table.id) else { throw SluiceError(.undefinedTable, "relation \"\(table.name)\" does not exist") }
        let lock = writerLock(of: table.id)
        lock.lock()
        defer { lock.unlock() }
        // The old rows behind their state keys (a bytea column first), and the new rows.
        let removals = ChunkStaging(types: [.bytea] + table.columns.map(\.type), spillDirectory: spillDirectory)
        let additions = ChunkStaging(types: table.columns.map(\.type), spillDirectory: spillDirectory)
        try store.scanPages { (rows, keys) throws(SluiceError) in
            // `matching` and `update` see a table without a primary key's hidden row id too,
            // after the columns (`WHERE _row_id = …`).
            var seen = rows
            if table.hasRowIDs { seen.columns.append(TableStore.rowIDs(of: keys)) }
            let mask = try matching(seen)
            guard mask.setCount > 0 else { return }
            // Filtered once; the rows removed are the stored columns of what was seen.
            let pickedSeen = mask.setCount == rows.count ? seen : seen.filter(mask)
            let picked = table.hasRowIDs ? Chunk(columns: Array(pickedSeen.columns.prefix(rows.columns.count)), count: pickedSeen.count) : pickedSeen
            var keyColumn = ColumnBuilder(type: .bytea, capacity: picked.count)
            for rowIndex in 0 ..< rows.count where mask[rowIndex] {
                keys.bytes.withUnsafeBytes { bytes in
                    keyColumn.append(bytes: UnsafeRawBufferPointer(rebasing: bytes[keys.start(rowIndex) ..< Int(keys.ends[rowIndex])]))
                }
            }
            try removals.append(Chunk(columns: [keyColumn.finish()] + picked.columns, count: picked.count))
            if let update { try additions.append(try update(pickedSeen)) }
        }
        let affected = removals.rowCount
        guard affected > 0 else { return 0 }
        if removals.isInMemory && additions.isInMemory {
            try write(table, synchronousCommit: false) { () throws(SluiceError) -> ([(op: ChangeOp, rows: Chunk)], [Int32: Int64]?) in
                var changes = Self.remove(removals.heldChunks, from: store)
                var inserted: [(op: ChangeOp, rows: Chunk)] = []
                for rows in additions.heldChunks {
                    let result = try store.insert(rows)
                    if let replaced = result.replaced { changes.append((.delete, replaced)) }
                    inserted.append((.insert, result.inserted))
                }
                return (changes + inserted, nil)
            }
            return affected
        }
        try inParts(of: table) { (statement) throws(SluiceError) in
            try forEachPart(of: removals) { (part) throws(SluiceError) in
                try write(table, synchronousCommit: false, statement: statement) {
                    () throws(SluiceError) -> ([(op: ChangeOp, rows: Chunk)], [Int32: Int64]?) in (Self.remove(part, from: store), nil)
                }
            }
            if additions.rowCount > 0 { _ = try insertParts(of: additions, into: table, statement: statement) }
        }
        return affected
    }

    /// Removes from `store` the rows staged in `staged` (state keys first, then the rows);
    /// returns the removals as changes.
    private static func remove(_ staged: [Chunk], from store: TableStore) -> [(op: ChangeOp, rows: Chunk)] {
        staged.compactMap { chunk in store.remove(keys: keys(in: chunk.columns[0])).map { (op: ChangeOp.delete, rows: $0) } }
    }

    /// The state keys a bytea column holds, one per row.
    private static func keys(in column: Column) -> KeyBuffer {
        guard case .bytes(let values) = column.storage else { return KeyBuffer() }
        var keys = KeyBuffer(reservingKeys: values.count, bytes: values.count * 12)
        for rowIndex in 0 ..< values.count {
            values.withBytes(at: rowIndex) { bytes in keys.append(bytes) }
        }
        return keys
    }

    /// Runs `body` as one statement applied in parts to `table`: with the table's writer lock
    /// held (no other write comes between the parts) and checkpoints held back, each write
    /// `body` makes with the statement number it is given is logged as a part, and once `body`
    /// returns, a `committed` record makes them count. A failure after a part was applied
    /// leaves memory ahead of the log: the log then refuses every write until the server is
    /// restarted, and recovery from the log leaves the statement out, as a crash would.
    func inParts<T>(of table: RelationDefinition, _ body: (UInt64?) throws(SluiceError) -> T) throws(SluiceError) -> T {
        let lock = writerLock(of: table.id)
        lock.lock()
        defer { lock.unlock() }
        runtime.holdCheckpoints()
        defer { runtime.releaseCheckpoints() }
        guard let journal else { return try body(nil) }
        let statement = journal.nextStatement()
        let start = journal.log.appendedBytes
        do {
            let result = try body(statement)
            _ = try journal.append(.committed(table: table.id, statement: statement))
            return result
        } catch {
            if journal.log.appendedBytes != start {
                journal.log.refuseAppends(because: SluiceError(
                    .ioError, "the write-ahead log stopped after a statement on \"\(table.name)\" failed part way: \(error.message)",
                    hint: "Restart the server: recovery leaves the failed statement out."))
            }
            throw error
        }
    }
}
