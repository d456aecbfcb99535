#if canImport(Glibc)
import Glibc
#endif
import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

/// Time spent in one operator and the rows it was given, for profiles and benchmarks.
package struct OperatorProfile: Sendable, Equatable {
    package var name: String
    package var nanoseconds: UInt64 = 0
    package var rowsIn = 0
    /// Change rows it emitted.
    package var rowsOut = 0
    /// Epochs it finished.
    package var epochs = 0
    /// The operator's state size as of the last epoch (``StreamOperator/stateBytes``).
    package var stateBytes = 0
}

/// The operator a backfill feeds one upstream's rows in vnode order (``OperatorGraph/backfillPoint(upstream:)``).
package struct BackfillPoint {
    /// The leaf that reads the upstream.
    let leaf: Int
    /// The operator, and the input the rows come on.
    let node: Int
    let input: InputIndex
    /// Each row's vnode in the operator's state.
    package let vnodes: BackfillVnodes
}

/// The operators of one materialized view's stream plan, wired as a tree and run on one thread.
///
/// Nodes are stored children first, so finishing an epoch in index order finishes every
/// operator after all its inputs have emitted what the epoch completes. Leaves read upstream
/// relations (by their position in ``upstreams``) or hold constant rows.
package struct OperatorGraph {
    private struct Node {
        var op: any StreamOperator
        var profile: OperatorProfile
        /// The node this one feeds, and as which of its inputs; nil for the root.
        var parent: Int?
        var parentInput: InputIndex
    }

    private var nodes: [Node] = []
    /// Relation ids this graph reads, in input order.
    package private(set) var upstreams: [Int] = []
    /// For each upstream, the leaves that read it (a self-join reads one relation twice).
    private var leaves: [[Int]] = []
    /// Constant rows to emit once at the start, per leaf.
    private var constants: [(node: Int, chunk: Chunk)] = []
    package let outputTypes: [DataType]
    /// How the view tells its rows apart (``Materializer/RowIdentity``).
    package let outputIdentity: Materializer.RowIdentity
    /// Row-level errors operators reported since the last ``takeWarnings()``.
    private var warningCount = 0
    private var lastWarning: SluiceError?

    /// Builds the operators; fails with 0A000 for an aggregate or join the operators refuse.
    /// State table ids are `stateTableBase + 100 * node + k`.
    package init(plan: StreamPlan, stateTableBase: Int, context: EvaluationContext) throws(SluiceError) {
        outputTypes = plan.outputTypes
        outputIdentity = Materializer.RowIdentity(plan)
        _ = try add(plan, stateTableBase: stateTableBase, context: context)
    }

    /// Appends the nodes of `plan` (children first) and returns the index of its root.
    private mutating func add(_ plan: StreamPlan, stateTableBase: Int, context: EvaluationContext) throws(SluiceError) -> Int {
        var children: [Int] = []
        for input in plan.inputs { children.append(try add(input, stateTableBase: stateTableBase, context: context)) }
        let index = nodes.count
        guard let node = plan.node as? any StreamOperatorNode else {
            throw SluiceError(.internalError, "no stream operator runs \(plan.node.operatorName)")
        }
        var site = OperatorSite(stateTableID: stateTableBase + 100 * index, context: context)
        let op = try node.makeOperator(at: &site)
        if let relation = site.relation {
            let upstream: Int
            if let existing = upstreams.firstIndex(of: relation) {
                upstream = existing
            } else {
                upstream = upstreams.count
                upstreams.append(relation)
                leaves.append([])
            }
            leaves[upstream].append(index)
        }
        if let rows = site.constants { constants.append((index, rows)) }
        nodes.append(Node(op: op, profile: OperatorProfile(name: node.operatorName), parent: nil, parentInput: 0))
        for (position, child) in children.enumerated() {
            nodes[child].parent = index
            nodes[child].parentInput = position
        }
        return index
    }

    /// Emits the constant rows, once, before anything else.
    package mutating func start(into sink: (StreamChunk) -> Void) throws(SluiceError) {
        for (node, chunk) in constants {
            try push(StreamChunk.inserts(chunk), into: node, input: 0, sink: sink) { _ in }
        }
        constants = []
    }

    /// Every operator's state counts against `memory`.
    package mutating func useMemory(_ memory: StateMemory) {
        for index in nodes.indices { nodes[index].op.useMemory(memory) }
    }

    /// From now on, every operator keeps its changes for checkpoints.
    package mutating func enableCheckpoints() {
        for index in nodes.indices { nodes[index].op.enableCheckpoints() }
    }

    /// Loads a checkpoint's state into every operator (its state tables by id); the constant
    /// rows are in that state already.
    package mutating func restore(_ tables: RestoredTables) throws(SluiceError) {
        for index in nodes.indices { try nodes[index].op.restore(tables) }
        constants = []
    }

    /// Runs a chunk of upstream `upstream`'s changes through the graph.
    package mutating func process(
        _ chunk: StreamChunk, upstream: Int, into sink: (StreamChunk) -> Void, watermarks: (Watermark) -> Void = { _ in }
    ) throws(SluiceError) {
        for leaf in leaves[upstream] { try push(chunk, into: leaf, input: 0, sink: sink, watermarks: watermarks) }
    }

    /// Where a backfill may put upstream `upstream`'s rows in vnode order: the first operator
    /// on the way up from the upstream's leaf whose state is keyed by its input rows' vnodes,
    /// reached through operators that keep no state. Nil when there is none, or when the
    /// upstream has several leaves (a self-join).
    package func backfillPoint(upstream: Int) -> BackfillPoint? {
        guard leaves[upstream].count == 1 else { return nil }
        var node = leaves[upstream][0]
        var input = 0
        while true {
            if let vnodes = nodes[node].op.backfillVnodes(from: input) {
                return BackfillPoint(leaf: leaves[upstream][0], node: node, input: input, vnodes: vnodes)
            }
            guard nodes[node].op.keepsNoState, let parent = nodes[node].parent else { return nil }
            input = nodes[node].parentInput
            node = parent
        }
    }

    /// Runs a chunk of a backfill's rows through the operators below `point` (which keep no
    /// state) and returns what reaches it.
    package mutating func process(_ chunk: StreamChunk, below point: BackfillPoint) throws(SluiceError) -> [StreamChunk] {
        var chunks = [chunk]
        var node = point.leaf
        var input = 0
        while node != point.node {
            var next: [StreamChunk] = []
            for chunk in chunks {
                var output = try run(chunk, on: node, input: input)
                collectWarnings(output)
                for out in output.drain() {
                    nodes[node].profile.rowsOut += out.count
                    next.append(out)
                }
            }
            chunks = next
            guard let parent = nodes[node].parent else { break }
            input = nodes[node].parentInput
            node = parent
        }
        return chunks
    }

    /// Runs a chunk that reached `point` (``process(_:below:)``) through its operator and on.
    package mutating func process(
        _ chunk: StreamChunk, at point: BackfillPoint, into sink: (StreamChunk) -> Void, watermarks: (Watermark) -> Void = { _ in }
    ) throws(SluiceError) {
        try push(chunk, into: point.node, input: point.input, sink: sink, watermarks: watermarks)
    }

    /// Runs upstream `upstream`'s watermark through the graph: each operator it reaches may emit
    /// rows and the watermarks its output carries; those that reach the root go to
    /// `watermarks`, for the views that read this one.
    package mutating func advance(
        _ watermark: Watermark, upstream: Int, into sink: (StreamChunk) -> Void, watermarks: (Watermark) -> Void
    ) throws(SluiceError) {
        for leaf in leaves[upstream] { try push(watermark, into: leaf, input: 0, sink: sink, watermarks: watermarks) }
    }

    private mutating func push(
        _ watermark: Watermark, into node: Int, input: InputIndex, sink: (StreamChunk) -> Void, watermarks: (Watermark) -> Void
    ) throws(SluiceError) {
        var output = OutputBuffer()
        let started = Self.now()
        try nodes[node].op.advance(to: watermark, from: input, into: &output)
        nodes[node].profile.nanoseconds += Self.now() - started
        try forward(&output, from: node, sink: sink, watermarks: watermarks)
    }

    /// Ends the epoch in every operator, inputs first.
    package mutating func finishEpoch(
        _ barrier: Barrier, state: inout StateWriter, into sink: (StreamChunk) -> Void, watermarks: (Watermark) -> Void = { _ in }
    ) throws(SluiceError) {
        for index in nodes.indices {
            var output = OutputBuffer()
            let started = Self.now()
            try nodes[index].op.finishEpoch(barrier, state: &state, into: &output)
            nodes[index].profile.nanoseconds += Self.now() - started
            nodes[index].profile.stateBytes = nodes[index].op.stateBytes
            nodes[index].profile.epochs += 1
            try forward(&output, from: index, sink: sink, watermarks: watermarks)
        }
    }

    private mutating func push(
        _ chunk: StreamChunk, into node: Int, input: InputIndex, sink: (StreamChunk) -> Void, watermarks: (Watermark) -> Void
    ) throws(SluiceError) {
        var output = try run(chunk, on: node, input: input)
        try forward(&output, from: node, sink: sink, watermarks: watermarks)
    }

    /// Runs operator `node` on `chunk` (its input `input`), timed and counted in its profile;
    /// returns what it emitted.
    private mutating func run(_ chunk: StreamChunk, on node: Int, input: InputIndex) throws(SluiceError) -> OutputBuffer {
        var output = OutputBuffer()
        let started = Self.now()
        try nodes[node].op.process(chunk, from: input, into: &output)
        nodes[node].profile.nanoseconds += Self.now() - started
        nodes[node].profile.rowsIn += chunk.count
        return output
    }

    /// Time and rows per operator so far, inputs first.
    package var profile: [OperatorProfile] { nodes.map(\.profile) }

    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// The row-level errors since the last call, and the last of them.
    package mutating func takeWarnings() -> (count: Int, last: SluiceError?) {
        defer {
            warningCount = 0
            lastWarning = nil
        }
        return (warningCount, lastWarning)
    }

    private mutating func collectWarnings(_ output: OutputBuffer) {
        if output.warningCount > 0 {
            warningCount += output.warningCount
            lastWarning = output.lastWarning
        }
    }

    /// Passes what an operator emitted to its parent, or out of the root: its chunks, then its
    /// watermarks.
    private mutating func forward(
        _ output: inout OutputBuffer, from node: Int, sink: (StreamChunk) -> Void, watermarks: (Watermark) -> Void
    ) throws(SluiceError) {
        collectWarnings(output)
        let chunks = output.drain()
        let derived = output.drainWatermarks()
        for chunk in chunks { nodes[node].profile.rowsOut += chunk.count }
        guard let parent = nodes[node].parent else {
            for chunk in chunks { sink(chunk) }
            for watermark in derived { watermarks(watermark) }
            return
        }
        let input = nodes[node].parentInput
        for chunk in chunks { try push(chunk, into: parent, input: input, sink: sink, watermarks: watermarks) }
        for watermark in derived { try push(watermark, into: parent, input: input, sink: sink, watermarks: watermarks) }
    }
}
