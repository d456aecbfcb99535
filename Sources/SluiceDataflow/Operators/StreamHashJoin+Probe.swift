import SluiceCore
import SluiceExpr
import SluiceState

/// A run of consecutive input rows probed together: each row's state key, and its candidate
/// pairs with the other side's state rows of the same join key, so that the candidate joined
/// rows are built and the residual evaluated once for the whole run.
///
/// Invariant: rows of one join key meet one range of `candidates`, so a state row appears once
/// however many input rows it pairs with; updates to it (a left row's degree) go to that copy.
struct ProbeBatch {
    /// The input chunk row of the batch's first row.
    let firstRow: Int
    /// Per batch row: its values and state key, or nil when a join key value is NULL (the row
    /// matches nothing and is not stored).
    var rows: [(values: [Value], stateKey: [UInt8])?] = []
    /// The pairs of batch row `offset` are `pairStarts[offset] ..< pairStarts[offset + 1]`.
    var pairStarts: [Int] = [0]
    /// Per pair: the input chunk row and the index of the candidate in `candidates`.
    var pairRows: [Int] = []
    var pairCandidates: [Int] = []
    /// The other side's state rows the batch met, each once.
    var candidates: [(key: [UInt8], row: [Value])] = []
    /// Where each join key's rows are in `candidates`, keyed by the key's encoding.
    private var candidatesByJoinKey: [[UInt8]: Range<Int>] = [:]

    init(firstRow: Int) {
        self.firstRow = firstRow
    }

    var pairCount: Int { pairRows.count }

    /// Adds input row `rowIndex` of `data` (whose join key columns are `keys`), pairing it with
    /// the rows of `other` that have the same key.
    /// - Complexity: one range scan of `other` per distinct key in the batch, plus O(pairs).
    mutating func add(row rowIndex: Int, of data: Chunk, keys: [Int], types: [DataType], probing other: StateTable) {
        defer { pairStarts.append(pairRows.count) }
        if keys.contains(where: { data.columns[$0].isNull(rowIndex) }) {
            rows.append(nil)
            return
        }
        let values = data.row(rowIndex)
        var prefix: [UInt8] = []
        for key in keys { MemcomparableEncoding.append(values[key], as: types[key], to: &prefix) }
        rows.append((values, JoinStateRow.key(prefix: prefix, values: values, types: types)))
        let range: Range<Int>
        if let known = candidatesByJoinKey[prefix] {
            range = known
        } else {
            // The key encoding is self-delimiting, so exactly the rows of this key start with it.
            let start = candidates.count
            candidates += other.scan(from: prefix, to: StateTable.upperBound(ofPrefix: prefix))
            range = start ..< candidates.count
            candidatesByJoinKey[prefix] = range
        }
        for candidate in range {
            pairRows.append(rowIndex)
            pairCandidates.append(candidate)
        }
    }
}

/// The output rows of a batch, as indexes into the rows they are gathered from, with their ops.
private struct EmittedRows {
    var ops: [ChangeOp] = []
    var sources: [Int] = []

    mutating func append(_ op: ChangeOp, source: Int, times: Int64) {
        for _ in 0 ..< times {
            ops.append(op)
            sources.append(source)
        }
    }
}

extension StreamHashJoin {
    /// Joins the rows of `batch` (rows of `chunk`, from `side`) with their candidates, updates
    /// both sides' state row by row in input order, and emits the joined rows.
    func apply(_ batch: ProbeBatch, of chunk: StreamChunk, from side: JoinSide, into output: inout OutputBuffer) throws(SluiceError) {
        var candidates = batch.candidates
        let candidateChunk = Self.chunk(of: candidates, types: types(of: side.other))
        // Row p of `pairs` is pair p joined: left columns, then right columns.
        let probeColumns = chunk.data.gather(batch.pairRows).columns
        let candidateColumns = candidateChunk.gather(batch.pairCandidates).columns
        let pairs = Chunk(
            columns: side == .left ? probeColumns + candidateColumns : candidateColumns + probeColumns,
            count: batch.pairCount)
        var mask: Bitmap?
        if let residual, !pairs.isEmpty {
            mask = ExpressionEvaluator.mask(of: try ExpressionEvaluator.evaluate(residual, on: pairs, context: context))
        }
        // Output row sources: pair p is `p`; NULL-padded row n is `pairs.count + n`, padding
        // `paddedSources[n]` (an input row for the left side, a candidate for the right side).
        var emitted = EmittedRows()
        var paddedSources: [Int] = []
        let multiplicitySlot = types(of: side.other).count
        switch side {
        case .left:
            for offset in batch.rows.indices {
                let rowIndex = batch.firstRow + offset
                let isInsertion = chunk.ops[rowIndex].isInsertion
                let op: ChangeOp = isInsertion ? .insert : .delete
                let pairRange = batch.pairStarts[offset] ..< batch.pairStarts[offset + 1]
                var degree: Int64 = 0
                for pair in pairRange where mask?[pair] ?? true {
                    let multiplicity = try JoinStateRow.count(candidates[batch.pairCandidates[pair]].row, at: multiplicitySlot)
                    emitted.append(op, source: pair, times: multiplicity)
                    degree += multiplicity
                }
                if degree == 0 && kind == .left {
                    emitted.append(op, source: pairs.count + paddedSources.count, times: 1)
                    paddedSources.append(rowIndex)
                }
                if let row = batch.rows[offset] {
                    try update(.left, key: row.stateKey, values: row.values, by: isInsertion ? 1 : -1, degree: degree)
                }
            }
        case .right:
            let degreeSlot = multiplicitySlot + 1
            var paddedIndexOfCandidate = [Int?](repeating: nil, count: candidates.count)
            var degreeChanged = [Bool](repeating: false, count: candidates.count)
            func paddedSource(_ candidate: Int) -> Int {
                if let index = paddedIndexOfCandidate[candidate] { return pairs.count + index }
                paddedIndexOfCandidate[candidate] = paddedSources.count
                paddedSources.append(candidate)
                return pairs.count + paddedSources.count - 1
            }
            for offset in batch.rows.indices {
                let rowIndex = batch.firstRow + offset
                let isInsertion = chunk.ops[rowIndex].isInsertion
                let op: ChangeOp = isInsertion ? .insert : .delete
                for pair in batch.pairStarts[offset] ..< batch.pairStarts[offset + 1] where mask?[pair] ?? true {
                    let candidate = batch.pairCandidates[pair]
                    let multiplicity = try JoinStateRow.count(candidates[candidate].row, at: multiplicitySlot)
                    guard kind == .left else {
                        emitted.append(op, source: pair, times: multiplicity)
                        continue
                    }
                    // The left row's degree moves by one; its padded row exists exactly while
                    // the degree is zero.
                    var degree = try JoinStateRow.count(candidates[candidate].row, at: degreeSlot)
                    if isInsertion {
                        if degree == 0 { emitted.append(.delete, source: paddedSource(candidate), times: multiplicity) }
                        emitted.append(.insert, source: pair, times: multiplicity)
                        degree += 1
                    } else {
                        emitted.append(.delete, source: pair, times: multiplicity)
                        degree -= 1
                        if degree < 0 { throw SluiceError.internalError("left join match degree went negative: a right delete without its insert") }
                        if degree == 0 { emitted.append(.insert, source: paddedSource(candidate), times: multiplicity) }
                    }
                    candidates[candidate].row[degreeSlot] = .int64(degree)
                    degreeChanged[candidate] = true
                }
                if let row = batch.rows[offset] {
                    try update(.right, key: row.stateKey, values: row.values, by: isInsertion ? 1 : -1, degree: 0)
                }
            }
            for candidate in candidates.indices where degreeChanged[candidate] {
                leftTable.put(candidates[candidate].key, candidates[candidate].row)
            }
        }
        if emitted.ops.isEmpty { return }
        var rows = pairs
        if !paddedSources.isEmpty {
            let paddedLeft = side == .left ? chunk.data.gather(paddedSources) : candidateChunk.gather(paddedSources)
            let nulls = rightTypes.map { Column(type: $0, repeating: .null, count: paddedSources.count) }
            let padded = Chunk(columns: paddedLeft.columns + nulls, count: paddedSources.count)
            rows = pairs.isEmpty ? padded : Chunk.concatenate([pairs, padded], types: outputTypes)
        }
        var start = 0
        while start < emitted.ops.count {
            let end = min(start + Chunk.preferredSize, emitted.ops.count)
            output.append(StreamChunk(ops: Array(emitted.ops[start ..< end]), data: rows.gather(Array(emitted.sources[start ..< end]))))
            start = end
        }
    }

    /// Adds `change` copies of a row to `side`'s state (removes them when negative); a new
    /// state row starts with `degree` as its match degree where the side keeps one.
    private func update(_ side: JoinSide, key: [UInt8], values: [Value], by change: Int64, degree: Int64) throws(SluiceError) {
        let table = table(of: side)
        let multiplicitySlot = types(of: side).count
        if var stored = table.get(key) {
            let multiplicity = try JoinStateRow.count(stored, at: multiplicitySlot) + change
            if multiplicity < 0 { throw SluiceError.internalError("join \(side) input deleted a row more often than it was inserted") }
            if multiplicity == 0 {
                table.delete(key)
                return
            }
            stored[multiplicitySlot] = .int64(multiplicity)
            table.put(key, stored)
        } else {
            if change < 0 { throw SluiceError.internalError("join \(side) input deleted a row it never inserted") }
            var row = values
            row.append(.int64(change))
            if keepsDegree(side) { row.append(.int64(degree)) }
            table.put(key, row)
        }
    }

    /// The values of state rows as a chunk of `types` (the trailing counts left out).
    private static func chunk(of stateRows: [(key: [UInt8], row: [Value])], types: [DataType]) -> Chunk {
        var builders = types.map { ColumnBuilder(type: $0, capacity: stateRows.count) }
        for stateRow in stateRows {
            for columnIndex in builders.indices { builders[columnIndex].append(stateRow.row[columnIndex]) }
        }
        return Chunk(columns: builders.map { $0.finish() }, count: stateRows.count)
    }
}
