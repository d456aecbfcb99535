import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

/// Joins of every kind, hash and nested-loop, as streams.
///
/// The right input is the build side, gathered into one chunk; left chunks are probed as they
/// come, each a block of at most ``Chunk/preferredSize`` pairs at a time, so no join holds more
/// pairs than that whatever its fan-out. A right or full join's unmatched build rows come last.
/// A join that keeps no unmatched probe row ends at once on an empty build side, without
/// reading its probe side (an inner join under `LIMIT`, say).
struct JoinExecutor {
    var context: EvaluationContext
    /// Polled once per block of pairs, so a long join can be cancelled.
    var isCancelled: @Sendable () -> Bool = { false }

    /// Joins each probe row with its build rows (equal keys through `table`, or all of them),
    /// keeps the pairs where `residual` holds, and pads unmatched rows as the join kind asks.
    func join(
        probe source: ChunkStream, build: Chunk, table: JoinHashTable?, probeKeys: [Int], kind: JoinKind, residual: ScalarExpr?,
        leftTypes: [DataType]
    ) -> ChunkStream {
        let (context, isCancelled) = (self.context, self.isCancelled)
        var buildMatched = [Bool](repeating: false, count: build.count)
        var chunk: Chunk?
        var probeMatched: [Bool] = []
        var hashes: [UInt64] = []
        var firsts: [Int32] = []
        var cursor = JoinHashTable.Cursor()
        var finished = false
        let keepsUnmatchedProbeRows = kind == .left || kind == .full || kind == .anti
        return ChunkStream { () throws(SluiceError) -> Chunk? in
            if build.count == 0 && !keepsUnmatchedProbeRows { return nil }
            while !finished {
                guard let probe = chunk else {
                    guard let next = try source.next() else {
                        finished = true
                        guard kind == .right || kind == .full else { return nil }
                        let unmatched = (0 ..< build.count).filter { !buildMatched[$0] }
                        if unmatched.isEmpty { return nil }
                        let leftNulls = leftTypes.map { Column(type: $0, repeating: .null, count: unmatched.count) }
                        return Chunk(columns: leftNulls + build.gather(unmatched).columns, count: unmatched.count)
                    }
                    chunk = next
                    probeMatched = [Bool](repeating: false, count: next.count)
                    hashes = table == nil ? [] : KeyHash.hashes(next, keys: probeKeys)
                    firsts = table?.candidates(next, keys: probeKeys, hashes: hashes) ?? []
                    cursor = JoinHashTable.Cursor()
                    continue
                }
                if cursor.row >= probe.count {
                    // The probe chunk is done: what it adds besides its pairs.
                    chunk = nil
                    if let rows = Self.closingRows(of: probe, matched: probeMatched, kind: kind, buildTypes: build.types) { return rows }
                    continue
                }
                if isCancelled() { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
                var probeRows: [Int] = []
                var buildRows: [Int] = []
                JoinHashTable.nextPairs(
                    probe, build: build, table: table, probeKeys: probeKeys, hashes: hashes, firsts: firsts, cursor: &cursor, limit: Chunk.preferredSize,
                    probeRows: &probeRows, buildRows: &buildRows)
                if probeRows.isEmpty { continue }
                if residual == nil, kind == .semi || kind == .anti {
                    // Only whether each probe row has a match counts: no pair is assembled.
                    for row in probeRows { probeMatched[row] = true }
                    continue
                }
                let joined = try Self.pairs(probe, &probeRows, build, &buildRows, residual: residual, context: context)
                for row in probeRows { probeMatched[row] = true }
                for row in buildRows { buildMatched[row] = true }
                if kind != .semi, kind != .anti, !joined.isEmpty { return joined }
            }
            return nil
        }
    }

    /// The pairs `(probeRows[i], buildRows[i])` as rows (the probe's columns, then the
    /// build's), only those where `residual` holds: the picks are narrowed to them too.
    static func pairs(
        _ probe: Chunk, _ probeRows: inout [Int], _ build: Chunk, _ buildRows: inout [Int], residual: ScalarExpr?, context: EvaluationContext
    ) throws(SluiceError) -> Chunk {
        let joined = Chunk(columns: probe.gather(probeRows).columns + build.gather(buildRows).columns, count: probeRows.count)
        guard let residual else { return joined }
        let mask = ExpressionEvaluator.mask(of: try ExpressionEvaluator.evaluate(residual, on: joined, context: context))
        if mask.isAllSet { return joined }
        probeRows = probeRows.indices.filter { mask[$0] }.map { probeRows[$0] }
        buildRows = buildRows.indices.filter { mask[$0] }.map { buildRows[$0] }
        return joined.filter(mask)
    }

    /// What probe rows add besides their pairs once every build row has met them (`matched`
    /// says which found one): those with a match (semi) or without (anti), or those without
    /// padded with NULLs for the build's columns (left, full); nil when none.
    static func closingRows(of probe: Chunk, matched: [Bool], kind: JoinKind, buildTypes: [DataType]) -> Chunk? {
        switch kind {
        case .semi, .anti:
            let rows = (0 ..< probe.count).filter { matched[$0] == (kind == .semi) }
            if !rows.isEmpty { return rows.count == probe.count ? probe : probe.gather(rows) }
        case .left, .full:
            let unmatched = (0 ..< probe.count).filter { !matched[$0] }
            if !unmatched.isEmpty {
                let nulls = buildTypes.map { Column(type: $0, repeating: .null, count: unmatched.count) }
                return Chunk(columns: probe.gather(unmatched).columns + nulls, count: unmatched.count)
            }
        case .inner, .right:
            break
        }
        return nil
    }

    /// A semi or anti join built on its left side (`build`, hashed in `table`): the right side's
    /// rows mark the left rows they match (where `residual`, over the left columns and then the
    /// right ones, holds), and then the left rows marked (semi) or not (anti) come out, in
    /// order. The right side is not read when the left is empty.
    func markLeftRows(
        build: Chunk, table: JoinHashTable, probe: @escaping () throws(SluiceError) -> ChunkStream, probeKeys: [Int], anti: Bool,
        residual: ScalarExpr?
    ) -> ChunkStream {
        let (context, isCancelled) = (self.context, self.isCancelled)
        var output: [Int]?
        var position = 0
        return ChunkStream { () throws(SluiceError) -> Chunk? in
            if output == nil {
                var matched = [Bool](repeating: false, count: build.count)
                if build.count > 0 {
                    let source = try probe()
                    while let chunk = try source.next() {
                        let hashes = KeyHash.hashes(chunk, keys: probeKeys)
                        let firsts = table.candidates(chunk, keys: probeKeys, hashes: hashes)
                        var cursor = JoinHashTable.Cursor()
                        while cursor.row < chunk.count {
                            if isCancelled() { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
                            var probeRows: [Int] = []
                            var buildRows: [Int] = []
                            table.probe(
                                chunk, keys: probeKeys, hashes: hashes, firsts: firsts, cursor: &cursor, limit: Chunk.preferredSize, probeRows: &probeRows,
                                buildRows: &buildRows)
                            if probeRows.isEmpty { continue }
                            if let residual {
                                let pairs = Chunk(columns: build.gather(buildRows).columns + chunk.gather(probeRows).columns, count: probeRows.count)
                                let mask = ExpressionEvaluator.mask(of: try ExpressionEvaluator.evaluate(residual, on: pairs, context: context))
                                for index in buildRows.indices where mask[index] { matched[buildRows[index]] = true }
                            } else {
                                for row in buildRows { matched[row] = true }
                            }
                        }
                    }
                }
                output = (0 ..< build.count).filter { matched[$0] != anti }
            }
            guard let rows = output, position < rows.count else { return nil }
            let end = min(position + Chunk.preferredSize, rows.count)
            defer { position = end }
            if position == 0 && end == build.count { return build }
            return build.gather(Array(rows[position ..< end]))
        }
    }
}
