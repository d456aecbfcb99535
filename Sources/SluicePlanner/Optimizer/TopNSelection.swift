import SluicePlan

/// `ORDER BY … LIMIT n [OFFSET m]` as a bounded top-N (``BatchPlan/topN(input:keys:limit:offset:)``):
/// a limit over a sort, or over projections of a sort (the select list computed after the
/// order), keeps `n + m` rows as the sort's input passes instead of sorting it whole. The
/// projections move above the top-N, so they run over its rows only.
///
/// Batch queries only, and last: the passes before it know sorts and limits, and a view's top-N
/// is the stream planner's.
enum TopNSelection {
    static func apply(_ plan: BatchPlan) -> BatchPlan {
        let rewritten = plan.mappingInputs(includingSubqueries: true) { apply($0) }
        guard case .limit(let input, let limit?, let offset) = rewritten, let topN = topN(of: input, limit: limit, offset: offset) else {
            return rewritten
        }
        return topN
    }

    /// `input` (a sort under any projections) with its sort made a top-N; nil for another shape.
    private static func topN(of input: BatchPlan, limit: Int, offset: Int) -> BatchPlan? {
        switch input {
        case .sort(let sorted, let keys):
            return .topN(input: sorted, keys: keys, limit: limit, offset: offset)
        case .project(let projected, let expressions):
            // A projection keeps each row (no set-returning function expands it here).
            return topN(of: projected, limit: limit, offset: offset).map { .project(input: $0, expressions: expressions) }
        default:
            return nil
        }
    }
}
