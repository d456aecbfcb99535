import SluiceCore
import SluiceState

/// What a lookup join emitted for each stream row (RisingWave's memo table), for a stream side
/// whose rows can be taken back: a deleted row retracts the rows it was joined into when it
/// came, whatever the table holds now.
///
/// Each batch of inserted rows is a generation. Under each stream row and generation the memo
/// keeps a header counting the row's copies then, and the joined rows emitted for them (a left
/// join's padded row too), each counted as often as emitted. A delete takes back the oldest
/// copy: a share of its generation's rows, the header's count one less.
///
/// State: the entries (id `stateTableID + 2`), keyed by the vnode (0), the stream row's
/// columns, the generation (8 bytes), then 0x00 for the header or 0x01 and the table row's
/// columns; and the next generation, one row (id `stateTableID + 3`).
struct LookupMemo {
    let leftWidth: Int
    let types: [DataType]
    let id: Int
    var entries: PagedTable
    var sequence: OperatorProgress
    var nextGeneration: Int64 {
        if case .int64(let next) = sequence.value { return next }
        return 0
    }

    init(leftTypes: [DataType], rightTypes: [DataType], id: Int) {
        leftWidth = leftTypes.count
        types = leftTypes + rightTypes
        self.id = id
        entries = PagedTable(types: types)
        sequence = OperatorProgress(id: id + 1, type: .int64)
    }

    /// The key prefix of stream row `row` (its first `leftWidth` columns of `rows`).
    static func prefix(of rows: Chunk, row: Int, width: Int) -> [UInt8] {
        var bytes: [UInt8] = [0, 0]
        for column in 0 ..< width { MemcomparableEncoding.append(rows.columns[column], row: row, to: &bytes) }
        return bytes
    }

    static func append(generation: Int64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: UInt64(bitPattern: generation).bigEndian) { bytes += $0 }
    }

    /// Records a generation: the stream rows `streamRows` (each one copy) and the rows joined
    /// for them, `joined`.
    mutating func record(streamRows: Chunk, joined: [Chunk]) {
        let generation = nextGeneration
        let (leftWidth, width) = (self.leftWidth, types.count)
        sequence.record(.int64(generation + 1))
        let headers = Chunk(
            columns: streamRows.columns + types[leftWidth...].map { Column(type: $0, repeating: .null, count: streamRows.count) },
            count: streamRows.count)
        entries.stage(headers, counts: [Int32](repeating: 1, count: headers.count)) { bytes, row in
            bytes += Self.prefix(of: headers, row: row, width: leftWidth)
            Self.append(generation: generation, to: &bytes)
            bytes.append(0x00)
        }
        for chunk in joined {
            entries.stage(chunk, counts: [Int32](repeating: 1, count: chunk.count)) { bytes, row in
                bytes += Self.prefix(of: chunk, row: row, width: leftWidth)
                Self.append(generation: generation, to: &bytes)
                bytes.append(0x01)
                for column in leftWidth ..< width { MemcomparableEncoding.append(chunk.columns[column], row: row, to: &bytes) }
            }
        }
        entries.commitEpoch()
    }

    /// Takes back one copy of each stream row of `streamRows` (the oldest recorded), and returns
    /// the joined rows they were emitted with; a row never recorded takes back nothing.
    mutating func takeBack(_ streamRows: Chunk) -> Chunk {
        var copies: [[UInt8]: Int] = [:]
        var order: [[UInt8]] = []
        for row in 0 ..< streamRows.count {
            let key = Self.prefix(of: streamRows, row: row, width: leftWidth)
            if copies[key] == nil { order.append(key) }
            copies[key, default: 0] += 1
        }
        var retracted = PagedTable.Picks()
        var removals = PagedTable.Picks()
        for key in order {
            var wanted = Int32(copies[key]!)
            // Generations in order, each a header then its rows.
            var held: Int32 = 0
            var taken: Int32 = 0
            for run in entries.runs(withPrefix: key) {
                for index in run.range where wanted > 0 || taken > 0 {
                    let entryKey = run.contents.keys.key(index)
                    let count = run.contents.counts?[index] ?? 1
                    if entryKey[key.count + 8] == 0x00 {
                        // A new generation: its copies, as many taken as still wanted.
                        guard wanted > 0 else {
                            taken = 0
                            continue
                        }
                        held = count
                        taken = min(wanted, held)
                        wanted -= taken
                        removals.remove(run.contents, index, count: taken)
                    } else if taken > 0, held > 0 {
                        // Each copy was joined into an equal share of the rows.
                        let share = count / held * taken
                        guard share > 0 else { continue }
                        retracted.add(run.contents, index, times: Int(share))
                        removals.remove(run.contents, index, count: share)
                    }
                }
            }
        }
        entries.take(removals)
        return retracted.rows(types: types)
    }

    mutating func restore(_ tables: RestoredTables) throws(SluiceError) {
        try entries.restore(from: tables, table: id)
        try sequence.restore(tables)
    }

    mutating func checkpoint(into state: inout StateWriter) {
        guard state.mode != .none else { return }
        state.add(entries.checkpoint(table: id, everything: state.mode == .everything))
        state.add(sequence.checkpoint(everything: state.mode == .everything))
    }
}

extension StreamHashJoin {
    /// A lookup join's stream rows through the memo: runs of inserted rows joined with the
    /// table as it is and recorded, runs of deleted rows taking back what they were joined into.
    /// An update is its delete and its insert.
    mutating func lookUpThroughMemo(_ chunk: StreamChunk, into output: inout OutputBuffer) throws(SluiceError) {
        var start = 0
        while start < chunk.count {
            let inserting = chunk.ops[start].isInsertion
            var end = start + 1
            while end < chunk.count && chunk.ops[end].isInsertion == inserting { end += 1 }
            let rows = start == 0 && end == chunk.count ? chunk.data : chunk.data.gather(Array(start ..< end))
            if inserting {
                var joined = OutputBuffer()
                try probe(StreamChunk.inserts(rows), from: .left, into: &joined)
                for _ in 0 ..< joined.warningCount { if let warning = joined.lastWarning { output.warn(warning) } }
                let chunks = joined.drain()
                memo!.record(streamRows: rows, joined: chunks.map(\.data))
                for chunk in chunks { output.append(chunk) }
            } else {
                let retracted = memo!.takeBack(rows)
                output.append(StreamChunk(ops: [ChangeOp](repeating: .delete, count: retracted.count), data: retracted))
            }
            start = end
        }
    }
}
