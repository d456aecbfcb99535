import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

/// Hash and nested-loop joins, with inner, outer, semi and anti variants.
///
/// The right input is the build side, gathered into one chunk; left chunks are probed one at a
/// time, each a block of at most ``Chunk/preferredSize`` pairs at a time, so no join holds more
/// pairs than that whatever its fan-out.
struct JoinExecutor {
    var context: EvaluationContext
    /// Polled once per block of pairs, so a long join can be cancelled.
    var isCancelled: @Sendable () -> Bool = { false }

    func hashJoin(
        left: [Chunk], right: [Chunk], join: HashJoin, leftTypes: [DataType], rightTypes: [DataType]
    ) throws(SluiceError) -> [Chunk] {
        let table = JoinHashTable(build: Chunk.concatenate(right, types: rightTypes), keys: join.rightKeys)
        return try joinPairs(
            left: left, build: table.build, table: table, probeKeys: join.leftKeys, kind: join.kind, residual: join.residual, leftTypes: leftTypes)
    }

    func nestedLoopJoin(
        left: [Chunk], right: [Chunk], kind: JoinKind, predicate: ScalarExpr?, leftTypes: [DataType],
        rightTypes: [DataType]
    ) throws(SluiceError) -> [Chunk] {
        let build = Chunk.concatenate(right, types: rightTypes)
        return try joinPairs(left: left, build: build, table: nil, probeKeys: [], kind: kind, residual: predicate, leftTypes: leftTypes)
    }

    /// Joins each probe row with its build rows (equal keys through `table`, or all of them),
    /// keeps the pairs where `residual` holds, and pads unmatched rows as the join kind asks.
    private func joinPairs(
        left: [Chunk], build: Chunk, table: JoinHashTable?, probeKeys: [Int], kind: JoinKind, residual: ScalarExpr?,
        leftTypes: [DataType]
    ) throws(SluiceError) -> [Chunk] {
        var output: [Chunk] = []
        var buildMatched = [Bool](repeating: false, count: build.count)
        for chunk in left {
            var probeMatched = [Bool](repeating: false, count: chunk.count)
            let hashes = table == nil ? [] : KeyHash.hashes(chunk, keys: probeKeys)
            var cursor = JoinHashTable.Cursor()
            while cursor.row < chunk.count {
                if isCancelled() { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
                var probeRows: [Int] = []
                var buildRows: [Int] = []
                JoinHashTable.nextPairs(
                    chunk, build: build, table: table, probeKeys: probeKeys, hashes: hashes, cursor: &cursor, limit: Chunk.preferredSize,
                    probeRows: &probeRows, buildRows: &buildRows)
                if probeRows.isEmpty { continue }
                var joined = Chunk(columns: chunk.gather(probeRows).columns + build.gather(buildRows).columns, count: probeRows.count)
                if let residual {
                    let mask = ExpressionEvaluator.mask(of: try ExpressionEvaluator.evaluate(residual, on: joined, context: context))
                    if !mask.isAllSet {
                        joined = joined.filter(mask)
                        probeRows = probeRows.indices.filter { mask[$0] }.map { probeRows[$0] }
                        buildRows = buildRows.indices.filter { mask[$0] }.map { buildRows[$0] }
                    }
                }
                for row in probeRows { probeMatched[row] = true }
                for row in buildRows { buildMatched[row] = true }
                if kind != .semi, kind != .anti, !joined.isEmpty { output.append(joined) }
            }
            switch kind {
            case .semi, .anti:
                let rows = (0 ..< chunk.count).filter { probeMatched[$0] == (kind == .semi) }
                if !rows.isEmpty { output.append(chunk.gather(rows)) }
            case .left, .full:
                let unmatched = (0 ..< chunk.count).filter { !probeMatched[$0] }
                if !unmatched.isEmpty {
                    let rightNulls = build.types.map { Column(type: $0, repeating: .null, count: unmatched.count) }
                    output.append(Chunk(columns: chunk.gather(unmatched).columns + rightNulls, count: unmatched.count))
                }
            case .inner, .right:
                break
            }
        }
        if kind == .right || kind == .full {
            let unmatched = (0 ..< build.count).filter { !buildMatched[$0] }
            if !unmatched.isEmpty {
                let leftNulls = leftTypes.map { Column(type: $0, repeating: .null, count: unmatched.count) }
                output.append(Chunk(columns: leftNulls + build.gather(unmatched).columns, count: unmatched.count))
            }
        }
        return output
    }
}
