import SluiceCore
import SluiceExpr
import SluicePlan

/// Orders a tree of inner joins — comma joins, `JOIN … ON`, with the filters above them — by
/// greedy operator ordering: the tree is flattened into its inputs and its conjuncts; each
/// conjunct reading one input filters that input; then, while more than one part is left, the
/// two connected parts whose join is estimated smallest are joined, the smaller as the hash
/// join's build side, on every conjunct that now has both its sides. Parts that no conjunct
/// connects are cross-joined last, smallest first.
struct JoinOrder {
    /// The most inputs ordered by the greedy search.
    static let greedyLimit = 16

    var pushdown: PredicatePushdown

    private struct Part {
        var plan: BatchPlan
        /// The original (flattened) column each output column of `plan` is.
        var columns: [Int]
        /// The inputs joined in this part.
        var inputs: Set<Int>
        var rows: Double
    }

    func reorder(_ plan: BatchPlan, _ predicates: [ScalarExpr]) -> BatchPlan {
        var inputs: [BatchPlan] = []
        var offsets: [Int] = []
        var conjuncts = predicates
        flatten(plan, offset: 0, into: &inputs, offsets: &offsets, conjuncts: &conjuncts)
        let widths = inputs.map { $0.outputTypes.count }
        let totalWidth = widths.reduce(0, +)
        var owner = [Int](repeating: 0, count: totalWidth)
        for (index, offset) in offsets.enumerated() {
            for column in offset ..< offset + widths[index] { owner[column] = index }
        }

        // Conjuncts on one input filter it; those on several are join conditions.
        var local = [[ScalarExpr]](repeating: [], count: inputs.count)
        var edges: [(conjunct: ScalarExpr, inputs: Set<Int>)] = []
        var top: [ScalarExpr] = []
        for conjunct in conjuncts {
            let read = Set(conjunct.referencedColumns.map { owner[$0] })
            if conjunct.isVolatile {
                top.append(conjunct)
            } else if read.count <= 1 {
                let index = read.first ?? 0
                local[index].append(conjunct.remappingColumns { $0 - offsets[index] })
            } else {
                edges.append((conjunct, read))
            }
        }

        var parts: [Part] = inputs.indices.map { index in
            let optimized = pushdown.push(inputs[index], local[index])
            return Part(
                plan: optimized, columns: Array(offsets[index] ..< offsets[index] + widths[index]), inputs: [index],
                rows: pushdown.estimator.rows(optimized))
        }

        if parts.count > Self.greedyLimit {
            // The greedy search weighs every pair of parts at every step; past this many inputs
            // that costs more than it saves, and the inputs are joined in the order written, each
            // on the conjuncts it completes (PostgreSQL keeps the written order past its
            // join_collapse_limit too).
            var edgesByInput = [[Int]](repeating: [], count: parts.count)
            for (index, edge) in edges.enumerated() {
                for input in edge.inputs { edgesByInput[input].append(index) }
            }
            var used = [Bool](repeating: false, count: edges.count)
            var joined = parts[0]
            for next in 1 ..< parts.count {
                let covered = joined.inputs.union([next])
                let completing = edgesByInput[next].filter { !used[$0] && edges[$0].inputs.isSubset(of: covered) }
                for index in completing { used[index] = true }
                // (Not estimated: the estimate walks the whole tree, each step.)
                let columns = joined.columns + parts[next].columns
                var position: [Int: Int] = [:]
                for (index, column) in columns.enumerated() { position[column] = index }
                let plan = BatchPlan.join(
                    joined.plan, parts[next].plan, kind: .inner, on: completing.map { edges[$0].conjunct.remappingColumns { position[$0]! } })
                joined = Part(plan: plan, columns: columns, inputs: covered, rows: 0)
            }
            parts = [joined]
            edges = edges.indices.filter { !used[$0] }.map { edges[$0] }
        }

        while parts.count > 1 {
            var best: (left: Int, right: Int, joined: Part, used: [Int])?
            for i in parts.indices {
                for j in parts.indices where j > i {
                    let both = parts[i].inputs.union(parts[j].inputs)
                    let used = edges.indices.filter {
                        edges[$0].inputs.isSubset(of: both) && !edges[$0].inputs.isDisjoint(with: parts[i].inputs)
                            && !edges[$0].inputs.isDisjoint(with: parts[j].inputs)
                    }
                    if used.isEmpty { continue }
                    let joined = join(parts[i], parts[j], on: used.map { edges[$0].conjunct })
                    if best == nil || joined.rows < best!.joined.rows { best = (i, j, joined, used) }
                }
            }
            if best == nil {
                // Nothing connects the parts left: cross-join the two smallest.
                let order = parts.indices.sorted { parts[$0].rows < parts[$1].rows }
                best = (order[0], order[1], join(parts[order[0]], parts[order[1]], on: []), [])
            }
            let chosen = best!
            for index in chosen.used.sorted(by: >) { edges.remove(at: index) }
            parts.remove(at: max(chosen.left, chosen.right))
            parts.remove(at: min(chosen.left, chosen.right))
            parts.append(chosen.joined)
        }

        let result = parts[0]
        var position = [Int](repeating: 0, count: totalWidth)
        for (index, column) in result.columns.enumerated() { position[column] = index }
        let types = result.plan.outputTypes
        let remaining = (top + edges.map(\.conjunct)).map { $0.remappingColumns { position[$0] } }
        let filtered = PredicatePushdown.filtered(result.plan, remaining)
        if result.columns == Array(0 ..< totalWidth) { return filtered }
        return .project(input: filtered, expressions: (0 ..< totalWidth).map { .column(position[$0], types[position[$0]]) })
    }

    /// The two parts joined on `conjuncts` (over original columns), the smaller estimate as the
    /// build side.
    private func join(_ a: Part, _ b: Part, on conjuncts: [ScalarExpr]) -> Part {
        let (probe, build) = a.rows >= b.rows ? (a, b) : (b, a)
        let columns = probe.columns + build.columns
        var position: [Int: Int] = [:]
        for (index, column) in columns.enumerated() { position[column] = index }
        let plan = BatchPlan.join(probe.plan, build.plan, kind: .inner, on: conjuncts.map { $0.remappingColumns { position[$0]! } })
        return Part(plan: plan, columns: columns, inputs: probe.inputs.union(build.inputs), rows: pushdown.estimator.rows(plan))
    }

    /// Splits a tree of inner joins (and filters over them) into its inputs and its conjuncts,
    /// the conjuncts over the flattened columns.
    private func flatten(_ plan: BatchPlan, offset: Int, into inputs: inout [BatchPlan], offsets: inout [Int], conjuncts: inout [ScalarExpr]) {
        switch plan {
        case .nestedLoopJoin(let left, let right, .inner, let predicate):
            let leftWidth = left.outputTypes.count
            flatten(left, offset: offset, into: &inputs, offsets: &offsets, conjuncts: &conjuncts)
            flatten(right, offset: offset + leftWidth, into: &inputs, offsets: &offsets, conjuncts: &conjuncts)
            conjuncts += (predicate?.conjuncts ?? []).map { $0.remappingColumns { $0 + offset } }
        case .hashJoin(let join) where join.kind == .inner:
            let leftTypes = join.left.outputTypes
            let rightTypes = join.right.outputTypes
            flatten(join.left, offset: offset, into: &inputs, offsets: &offsets, conjuncts: &conjuncts)
            flatten(join.right, offset: offset + leftTypes.count, into: &inputs, offsets: &offsets, conjuncts: &conjuncts)
            for (leftKey, rightKey) in zip(join.leftKeys, join.rightKeys) {
                let type = leftTypes[leftKey]
                conjuncts.append(
                    .call(.comparison(.equal, type), [.column(offset + leftKey, type), .column(offset + leftTypes.count + rightKey, rightTypes[rightKey])]))
            }
            conjuncts += (join.residual?.conjuncts ?? []).map { $0.remappingColumns { $0 + offset } }
        case .filter(let input, let predicate) where input.isInnerJoin:
            flatten(input, offset: offset, into: &inputs, offsets: &offsets, conjuncts: &conjuncts)
            conjuncts += predicate.conjuncts.map { $0.remappingColumns { $0 + offset } }
        default:
            inputs.append(plan)
            offsets.append(offset)
        }
    }
}

extension BatchPlan {
    var isInnerJoin: Bool {
        switch self {
        case .nestedLoopJoin(_, _, .inner, _): true
        case .hashJoin(let join): join.kind == .inner
        default: false
        }
    }
}
