import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

/// Hash and nested-loop joins, with inner, outer, semi and anti variants.
///
/// The right input is the build side, gathered into one chunk; left chunks are probed one at a
/// time.
struct JoinExecutor {
    var context: EvaluationContext
    /// Polled once per probe chunk, so a long join can be cancelled.
    var isCancelled: @Sendable () -> Bool = { false }

    func hashJoin(
        left: [Chunk], right: [Chunk], join: HashJoin, leftTypes: [DataType], rightTypes: [DataType]
    ) throws(SluiceError) -> [Chunk] {
        let table = JoinHashTable(build: Chunk.concatenate(right, types: rightTypes), keys: join.rightKeys)
        return try joinPairs(left: left, build: table.build, kind: join.kind, residual: join.residual, leftTypes: leftTypes) {
            chunk, probeRows, buildRows in
            var cursor = JoinHashTable.Cursor()
            table.probe(
                chunk, keys: join.leftKeys, hashes: KeyHash.hashes(chunk, keys: join.leftKeys), cursor: &cursor, limit: Int.max,
                probeRows: &probeRows, buildRows: &buildRows)
        }
    }

    func nestedLoopJoin(
        left: [Chunk], right: [Chunk], kind: JoinKind, predicate: ScalarExpr?, leftTypes: [DataType],
        rightTypes: [DataType]
    ) throws(SluiceError) -> [Chunk] {
        let build = Chunk.concatenate(right, types: rightTypes)
        return try joinPairs(left: left, build: build, kind: kind, residual: predicate, leftTypes: leftTypes) { chunk, probeRows, buildRows in
            for row in 0 ..< chunk.count {
                probeRows.append(contentsOf: repeatElement(row, count: build.count))
                buildRows.append(contentsOf: 0 ..< build.count)
            }
        }
    }

    /// Joins each probe row with the build rows `candidates` names, keeps the pairs where
    /// `residual` holds, and pads unmatched rows as the join kind asks.
    private func joinPairs(
        left: [Chunk], build: Chunk, kind: JoinKind, residual: ScalarExpr?, leftTypes: [DataType],
        candidates: (Chunk, inout [Int], inout [Int]) -> Void
    ) throws(SluiceError) -> [Chunk] {
        var output: [Chunk] = []
        var buildMatched = [Bool](repeating: false, count: build.count)
        for chunk in left {
            if isCancelled() { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
            var probeRows: [Int] = []
            var buildRows: [Int] = []
            candidates(chunk, &probeRows, &buildRows)
            var joined = Chunk(
                columns: chunk.gather(probeRows).columns + build.gather(buildRows).columns, count: probeRows.count)
            if let residual, !joined.isEmpty {
                let mask = ExpressionEvaluator.mask(of: try ExpressionEvaluator.evaluate(residual, on: joined, context: context))
                if !mask.isAllSet {
                    var keptProbe: [Int] = []
                    var keptBuild: [Int] = []
                    for pairIndex in 0 ..< mask.count where mask[pairIndex] {
                        keptProbe.append(probeRows[pairIndex])
                        keptBuild.append(buildRows[pairIndex])
                    }
                    joined = joined.filter(mask)
                    probeRows = keptProbe
                    buildRows = keptBuild
                }
            }
            var probeMatched = [Bool](repeating: false, count: chunk.count)
            for rowIndex in probeRows { probeMatched[rowIndex] = true }
            for rowIndex in buildRows { buildMatched[rowIndex] = true }
            switch kind {
            case .semi:
                let rows = (0 ..< chunk.count).filter { probeMatched[$0] }
                if !rows.isEmpty { output.append(chunk.gather(rows)) }
            case .anti:
                let rows = (0 ..< chunk.count).filter { !probeMatched[$0] }
                if !rows.isEmpty { output.append(chunk.gather(rows)) }
            case .inner, .right:
                if !joined.isEmpty { output.append(joined) }
            case .left, .full:
                if !joined.isEmpty { output.append(joined) }
                let unmatched = (0 ..< chunk.count).filter { !probeMatched[$0] }
                if !unmatched.isEmpty {
                    let rightNulls = build.types.map { Column(type: $0, repeating: .null, count: unmatched.count) }
                    output.append(Chunk(columns: chunk.gather(unmatched).columns + rightNulls, count: unmatched.count))
                }
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
