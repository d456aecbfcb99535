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
    /// Per batch row: its state key, or nil when a join key value is NULL (the row matches
    /// nothing and is not stored).
    var keys: [JoinStateKey?] = []
    /// The pairs of batch row `offset` are `pairStarts[offset] ..< pairStarts[offset + 1]`.
    var pairStarts: [Int] = [0]
    /// Per pair: the input chunk row and the index of the candidate in `candidates`.
    var pairRows: [Int] = []
    var pairCandidates: [Int] = []
    /// The other side's state rows the batch met, each once.
    var candidates = JoinCandidates()
    /// Where each join key's rows are in `candidates`, keyed by the key's prefix.
    private var candidatesByJoinKey: [GroupKeyBytes: Range<Int>] = [:]

    /// The first row's match degree from the slices of its candidates earlier batches took.
    let carriedDegree: Int64
    /// Whether the last row's candidates go on in the next batch (a key with more rows than
    /// one read takes): its degree is carried there, and it is stored after its last slice.
    var lastRowContinues = false

    init(firstRow: Int, carriedDegree: Int64 = 0) {
        self.firstRow = firstRow
        self.carriedDegree = carriedDegree
    }

    var pairCount: Int { pairRows.count }

    /// Adds input row `rowIndex` of `data` (whose join key columns are `keys`), pairing it with
    /// the rows of `other` that have the same key: all of them, or, for a key with more than
    /// `limit`, a slice from `resume` (nil: the first), returning where the next slice starts.
    /// - Complexity: one prefix read of `other` per distinct key in the batch, plus O(pairs).
    mutating func add(
        row rowIndex: Int, of data: Chunk, keys joinKeys: [Int], probing other: borrowing JoinSideState, limit: Int, from resume: [UInt8]?
    ) -> [UInt8]? {
        defer { pairStarts.append(pairRows.count) }
        guard let key = JoinStateKey(row: rowIndex, of: data, keys: joinKeys) else {
            keys.append(nil)
            return nil
        }
        keys.append(key)
        let prefix = GroupKeyBytes(bytes: key.prefix)
        let range: Range<Int>
        var next: [UInt8]?
        if resume == nil, let known = candidatesByJoinKey[prefix] {
            range = known
        } else {
            // The key encoding is self-delimiting, so exactly the rows of this key start with it.
            let start = candidates.count
            next = other.candidates(withPrefix: prefix.bytes, from: resume, limit: limit, into: &candidates)
            range = start ..< candidates.count
            if resume == nil && next == nil { candidatesByJoinKey[prefix] = range }
        }
        for candidate in range {
            pairRows.append(rowIndex)
            pairCandidates.append(candidate)
        }
        return next
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
    /// both sides' state row by row in input order, and emits the joined rows. Returns the
    /// match degree of a last left row whose candidates go on in the next batch.
    @discardableResult
    mutating func apply(_ batch: ProbeBatch, of chunk: StreamChunk, from side: JoinSide, into output: inout OutputBuffer) throws(SluiceError) -> Int64 {
        let candidates = batch.candidates
        let storedCandidates = side == .left ? candidates.rows(stagedIn: rightState.table) : candidates.rows(stagedIn: leftState.table)
        // The candidates' values (without a degree column).
        let otherWidth = types(of: side.other).count
        let candidateChunk = storedCandidates.columns.count == otherWidth
            ? storedCandidates : Chunk(columns: Array(storedCandidates.columns[..<otherWidth]), count: storedCandidates.count)
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
        // Output row sources: pair p is `p`; left row n output alone (NULL-padded in a left join)
        // is `aloneBase + n`, that row being `paddedSources[n]` (an input row for the left side,
        // a candidate for the right side). Semi and anti joins output left rows alone only.
        let aloneBase = emitsPairs ? pairs.count : 0
        var emitted = EmittedRows()
        var paddedSources: [Int] = []
        var staging = Staging()
        var carried: Int64 = 0
        let continuing = batch.lastRowContinues ? batch.keys.count - 1 : -1
        switch side {
        case .left:
            for offset in batch.keys.indices {
                let rowIndex = batch.firstRow + offset
                let isInsertion = chunk.ops[rowIndex].isInsertion
                let op: ChangeOp = isInsertion ? .insert : .delete
                let pairRange = batch.pairStarts[offset] ..< batch.pairStarts[offset + 1]
                var degree: Int64 = offset == 0 ? batch.carriedDegree : 0
                for pair in pairRange where mask?[pair] ?? true {
                    let multiplicity = candidates.multiplicity(batch.pairCandidates[pair])
                    if emitsPairs { emitted.append(op, source: pair, times: multiplicity) }
                    degree += multiplicity
                }
                if offset == continuing {
                    carried = degree
                    break
                }
                if emitsAlone(degree: degree) {
                    emitted.append(op, source: aloneBase + paddedSources.count, times: 1)
                    paddedSources.append(rowIndex)
                }
                if !isLookup, let key = batch.keys[offset] { staging.add(rowIndex, key: key, sign: isInsertion ? 1 : -1, degree: degree) }
            }
            let rows = chunk.data.gather(staging.rows)
            leftState.stage(
                kind != .inner ? Chunk(columns: rows.columns + [Column(type: .int64, storage: .int64(staging.degrees))], count: rows.count) : rows,
                signs: staging.signs, keys: staging.keys)
        case .right:
            // The left rows' degrees (kept as the left side's last column but in an inner join).
            var degrees: [Int64] = []
            if kind != .inner, case .int64(let stored) = storedCandidates.columns[otherWidth].storage { degrees = stored }
            var paddedIndexOfCandidate = [Int?](repeating: nil, count: candidates.count)
            var degreeChanged = [Bool](repeating: false, count: candidates.count)
            func paddedSource(_ candidate: Int) -> Int {
                if let index = paddedIndexOfCandidate[candidate] { return aloneBase + index }
                paddedIndexOfCandidate[candidate] = paddedSources.count
                paddedSources.append(candidate)
                return aloneBase + paddedSources.count - 1
            }
            for offset in batch.keys.indices {
                let rowIndex = batch.firstRow + offset
                let isInsertion = chunk.ops[rowIndex].isInsertion
                let op: ChangeOp = isInsertion ? .insert : .delete
                for pair in batch.pairStarts[offset] ..< batch.pairStarts[offset + 1] where mask?[pair] ?? true {
                    let candidate = batch.pairCandidates[pair]
                    let multiplicity = candidates.multiplicity(candidate)
                    guard kind != .inner else {
                        emitted.append(op, source: pair, times: multiplicity)
                        continue
                    }
                    // The left row's degree moves by one; its row alone (padded in a left join)
                    // is output exactly while `emitsAlone` holds for the degree, retracted before
                    // its pairs are added and restored after they are taken back.
                    var degree = degrees[candidate]
                    let aloneBefore = emitsAlone(degree: degree)
                    degree += isInsertion ? 1 : -1
                    if degree < 0 { throw SluiceError.internalError("join match degree went negative: a right delete without its insert") }
                    let aloneAfter = emitsAlone(degree: degree)
                    if aloneBefore && !aloneAfter { emitted.append(.delete, source: paddedSource(candidate), times: multiplicity) }
                    if emitsPairs { emitted.append(op, source: pair, times: multiplicity) }
                    if aloneAfter && !aloneBefore { emitted.append(.insert, source: paddedSource(candidate), times: multiplicity) }
                    degrees[candidate] = degree
                    degreeChanged[candidate] = true
                }
                if offset != continuing, let key = batch.keys[offset] { staging.add(rowIndex, key: key, sign: isInsertion ? 1 : -1, degree: 0) }
            }
            rightState.stage(chunk.data.gather(staging.rows), signs: staging.signs, keys: staging.keys)
            // The left rows whose degree moved take their new degree in place (sign 0).
            let changed = (0 ..< candidates.count).filter { degreeChanged[$0] }
            if !changed.isEmpty {
                let values = candidateChunk.gather(changed)
                leftState.stage(
                    Chunk(columns: values.columns + [Column(type: .int64, storage: .int64(changed.map { degrees[$0] }))], count: changed.count),
                    signs: [Int8](repeating: 0, count: changed.count),
                    keys: changed.map { candidates.key($0, stagedIn: leftState.table) })
            }
        }
        if emitted.ops.isEmpty { return carried }
        var rows = pairs
        if !paddedSources.isEmpty {
            let paddedLeft = side == .left ? chunk.data.gather(paddedSources) : candidateChunk.gather(paddedSources)
            guard emitsPairs else {
                emit(emitted, from: paddedLeft, into: &output)
                return carried
            }
            let nulls = rightTypes.map { Column(type: $0, repeating: .null, count: paddedSources.count) }
            let padded = Chunk(columns: paddedLeft.columns + nulls, count: paddedSources.count)
            rows = pairs.isEmpty ? padded : Chunk.concatenate([pairs, padded], types: outputTypes)
        }
        emit(emitted, from: rows, into: &output)
        return carried
    }

    /// Appends the `emitted` rows, gathered from `rows`, in chunks of at most the preferred size.
    private func emit(_ emitted: EmittedRows, from rows: Chunk, into output: inout OutputBuffer) {
        var start = 0
        while start < emitted.ops.count {
            let end = min(start + Chunk.preferredSize, emitted.ops.count)
            output.append(StreamChunk(ops: Array(emitted.ops[start ..< end]), data: rows.gather(Array(emitted.sources[start ..< end]))))
            start = end
        }
    }
}

/// The input rows of a batch that go into their side's state: row, key, sign and degree.
private struct Staging {
    var rows: [Int] = []
    var keys: [JoinStateKey] = []
    var signs: [Int8] = []
    var degrees: [Int64] = []

    mutating func add(_ row: Int, key: JoinStateKey, sign: Int8, degree: Int64) {
        rows.append(row)
        keys.append(key)
        signs.append(sign)
        degrees.append(degree)
    }
}
