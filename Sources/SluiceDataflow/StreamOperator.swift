import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

/// Which input of an operator a chunk came from (joins and unions have several).
package typealias InputIndex = Int

/// Where an operator puts its output chunks.
package struct OutputBuffer {
    package private(set) var chunks: [StreamChunk] = []
    /// Rows that failed in an expression and became NULL (RisingWave's behaviour: the view keeps
    /// running), and the last such error.
    package private(set) var warningCount = 0
    package private(set) var lastWarning: SluiceError?

    package init() {}

    /// Counts a row-level error that did not stop the operator.
    package mutating func warn(_ error: SluiceError) {
        warningCount += 1
        lastWarning = error
    }

    package mutating func append(_ chunk: StreamChunk) {
        if !chunk.data.isEmpty { chunks.append(chunk) }
    }

    /// Watermarks the operator's output carries, in its columns; they go on after the chunks
    /// emitted with them.
    package private(set) var watermarks: [Watermark] = []

    package mutating func emit(_ watermark: Watermark) {
        watermarks.append(watermark)
    }

    /// Takes the buffered chunks, leaving the buffer empty.
    package mutating func drain() -> [StreamChunk] {
        defer { chunks = [] }
        return chunks
    }

    /// Takes the buffered watermarks.
    package mutating func drainWatermarks() -> [Watermark] {
        defer { watermarks = [] }
        return watermarks
    }
}

/// Collects the operators' state for a checkpoint, as sections of their state tables.
package struct StateWriter {
    /// What a barrier asks of the operators' state.
    package enum Mode: Sendable {
        /// Not a checkpoint: nothing is written.
        case none
        /// The changes since the last checkpoint.
        case changes
        /// Everything (a base: the first checkpoint, or one that compacts a view's chain).
        case everything
    }

    package let mode: Mode
    package private(set) var sections: [StateSection] = []
    /// Tables written whole from their pages.
    package private(set) var pagedTables: [FragmentCheckpoint.PagedImage] = []

    package init(mode: Mode = .none) {
        self.mode = mode
    }

    /// Adds a state table's section; an empty delta is left out.
    package mutating func add(_ section: StateSection) {
        if mode == .everything || !section.isEmpty { sections.append(section) }
    }

    /// Adds a paged table's part: its changes (left out when empty in a delta), or all its pages.
    package mutating func add(_ image: FragmentCheckpoint.PagedImage) {
        if mode == .everything || !image.isEmpty { pagedTables.append(image) }
    }

    /// About the bytes the checkpoint's parts take on disk.
    package var byteCount: Int {
        sections.reduce(0) { $0 + $1.byteCount } + pagedTables.reduce(0) { $0 + $1.byteCount }
    }
}

/// The vnode of each row of a chunk in an operator's state keys (``StreamOperator/backfillVnodes(from:)``).
package typealias BackfillVnodes = (Chunk) -> [UInt16]

/// A stream operator: turns input change chunks into output change chunks, one epoch at a time.
///
/// Synchronous and owned by one worker thread; no `async` and no actor hop per chunk.
package protocol StreamOperator {
    mutating func process(_ chunk: StreamChunk, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError)
    /// Ends the epoch: emits what the epoch completes and, when `state`'s mode asks for it, adds
    /// the operator's state tables' sections for a checkpoint. Default: nothing.
    mutating func finishEpoch(_ barrier: Barrier, state: inout StateWriter, into output: inout OutputBuffer) throws(SluiceError)
    /// Takes the state a checkpoint holds (each state table's contents, by id: pages left in
    /// the run files, or sections; a table with nothing stored is absent), before any input.
    /// Default: nothing, for stateless operators.
    mutating func restore(_ tables: RestoredTables) throws(SluiceError)
    /// From now on, keeps what each epoch changes for the next checkpoint (off by default, when
    /// nothing is checkpointed). Default: nothing.
    mutating func enableCheckpoints()
    /// Counts the operator's state against `memory` (`--memory-limit`) and lets it move state
    /// beyond the limit out of memory. Default: nothing.
    mutating func useMemory(_ memory: StateMemory)
    /// Event-time progress on input `input`: no later row of it has column `watermark.column`
    /// below `watermark.value`. The operator may emit what the watermark completes (windows it
    /// closes), drop state behind it, and emit the watermarks its own output carries, in its
    /// output's columns, after the rows they follow (``OutputBuffer/emit(_:)``). Default:
    /// nothing, so a watermark goes no further than an operator that does not know how its
    /// output relates to it.
    mutating func advance(to watermark: Watermark, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError)
    /// Bytes of memory the operator's state holds, estimated from what it stores (for system
    /// views and benchmarks). Default: 0, for stateless operators.
    var stateBytes: Int { get }
    /// What gives each row coming on input `input` the vnode it has in this operator's state
    /// keys. A backfill feeds a stateful operator its rows a range of vnodes at a time
    /// (``BackfillBuckets``), so each of its epochs reads and rewrites a range of the state
    /// rather than pages all over it. Default: nil, for an operator whose state is not keyed by
    /// its input rows' vnodes.
    func backfillVnodes(from input: InputIndex) -> BackfillVnodes?
    /// True for an operator that keeps nothing between chunks (a map, a filter, a scan's column
    /// selection): the order of its input rows changes nothing but the order of its output's,
    /// so a backfill may reorder rows across it. Default: false.
    var keepsNoState: Bool { get }
}

extension StreamOperator {
    package mutating func finishEpoch(_ barrier: Barrier, state: inout StateWriter, into output: inout OutputBuffer) throws(SluiceError) {}
    package mutating func advance(to watermark: Watermark, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {}
    package mutating func restore(_ tables: RestoredTables) throws(SluiceError) {}
    package mutating func enableCheckpoints() {}
    package mutating func useMemory(_ memory: StateMemory) {}
    package var stateBytes: Int { 0 }
    package func backfillVnodes(from input: InputIndex) -> BackfillVnodes? { nil }
    package var keepsNoState: Bool { false }
}

/// A stream plan node the dataflow can run: it builds its operator. Each operator's file
/// conforms its plan node (``StreamNode``) to this, so a new operator is declared once, beside
/// its code, and ``OperatorGraph`` has no list of kinds.
package protocol StreamOperatorNode: StreamNode {
    /// Builds the node's operator. A leaf says at `site` which relation it reads or which rows it
    /// emits at the start. Input `i` of the operator is the node's `i`th.
    func makeOperator(at site: inout OperatorSite) throws(SluiceError) -> any StreamOperator
}

/// Where an operator is built: its state tables' id range and evaluation context, and what a
/// leaf asks of the graph.
package struct OperatorSite {
    /// The first id of the operator's state tables; it numbers its tables from here.
    package let stateTableID: Int
    package let context: EvaluationContext
    /// The relation a leaf reads (``read(relation:)``).
    package private(set) var relation: Int?
    /// Rows a leaf emits once at the start (``emitAtStart(_:)``).
    package private(set) var constants: Chunk?

    init(stateTableID: Int, context: EvaluationContext) {
        self.stateTableID = stateTableID
        self.context = context
    }

    /// The operator is a leaf that reads relation `id`'s change stream.
    package mutating func read(relation id: Int) {
        relation = id
    }

    /// The operator is a leaf that starts by emitting `rows` as inserts, once.
    package mutating func emitAtStart(_ rows: Chunk) {
        constants = rows
    }
}
