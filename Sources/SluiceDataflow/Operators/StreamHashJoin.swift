import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

/// An incremental equi-join of two change streams, inner, left outer, semi or anti, with bag
/// semantics.
///
/// Input 0 is the left side, input 1 the right. A change on one side is joined with the current
/// state of the other side, and the joined rows are emitted with the change's sign as it is
/// processed: the join does not wait for the barrier. Update halves are treated as a delete and
/// an insert, so the output holds only `.insert` and `.delete`.
///
/// A left join keeps, for each left row, its match degree: how many right rows (counted with
/// multiplicity) have its key and pass the residual. A right change that moves a degree from 0
/// to 1 retracts the left row's NULL-padded output before adding the joined rows; one that moves
/// it back to 0 restores the padded row after retracting them. Semi and anti joins keep the same
/// degrees and output only the left row: a semi join while its degree is above zero, an anti join
/// while it is zero. So EXISTS, NOT EXISTS and IN with any condition (keys, a residual, or only a
/// residual) are maintained exactly, each left row counted as many times as it occurs.
///
/// SQL equality: a row with a NULL in any key column never matches. Such rows are not kept in
/// state; in a left join a left one is output padded with NULLs (and retracted the same way).
///
/// State: one paged state table per side (``JoinSideState``; ids `stateTableID` for the left,
/// `stateTableID + 1` for the right). Each distinct row is one typed state row, counted by its
/// multiplicity and keyed by its join key's vnode and memcomparable encoding followed by that of
/// all its values, so the rows of one key are the keys with that prefix. The left side of a left
/// join (and of a semi or anti join) keeps each row's match degree as one more column.
/// - Complexity: per input chunk, O(rows) key encodings and staged changes, one prefix read per
///   distinct key per batch of about ``Chunk/preferredSize`` candidate pairs, O(pairs) to build
///   the candidate rows and evaluate the residual once per batch, plus the output rows.
package struct StreamHashJoin: StreamOperator {
    /// The column types of the left input (input 0).
    package let leftTypes: [DataType]
    /// The column types of the right input (input 1).
    package let rightTypes: [DataType]
    /// `.inner`, `.left`, `.semi` or `.anti`.
    package let kind: JoinKind
    /// The left key columns; `leftKeys[n]` is compared with `rightKeys[n]`.
    package let leftKeys: [Int]
    /// The right key columns.
    package let rightKeys: [Int]
    /// A condition over the joined row (left columns, then right columns) that a matching pair
    /// must also satisfy.
    package let residual: ScalarExpr?
    /// The most rows of the other side one probe reads for a key: a key with more (every row,
    /// in a join without equalities) is read and joined in slices, so a probe holds a bounded
    /// number of candidates and pairs whatever the other side's size.
    package var candidateSlice = 4 * Chunk.preferredSize
    /// What the residual may depend on besides its input (time zone, statement time).
    package let context: EvaluationContext
    /// A lookup join (``HashJoinNode/isLookup``): left rows are joined with the right state as
    /// it is and not kept, so right changes find no left rows and emit nothing.
    package let isLookup: Bool
    /// A lookup join's left rows of its first epoch (the rows its inputs held when the view was
    /// created, say), joined at that epoch's barrier, once the right side's rows of the epoch
    /// are all in: whichever input's rows come first, they find the table as it was then.
    private var heldLeft: [StreamChunk] = []
    /// A lookup join's stream-side watermarks of its first epoch, passed on after its rows.
    var heldWatermarks: [Watermark] = []
    private(set) var passedFirstBarrier = false
    /// Watermarks through the join and the state they let go; nil when its condition bounds
    /// no event-time column (``JoinTimeBound``).
    var watermarks: JoinWatermarks?
    var leftState: JoinSideState
    var rightState: JoinSideState
    /// A lookup join over a stream side whose rows can be taken back: what each row was joined
    /// into (``LookupMemo``); nil otherwise.
    var memo: LookupMemo?

    /// Creates the operator; `.right` and `.full` joins are planned from these.
    ///
    /// Key columns pair up by position and must have the same type on both sides (the planner
    /// casts them), since keys match by their encoded bytes.
    package init(
        leftTypes: [DataType], rightTypes: [DataType], kind: JoinKind, leftKeys: [Int], rightKeys: [Int],
        residual: ScalarExpr?, stateTableID: Int, context: EvaluationContext = EvaluationContext(), isLookup: Bool = false
    ) throws(SluiceError) {
        switch kind {
        case .inner, .left, .semi, .anti:
            break
        case .right, .full:
            throw SluiceError(.featureNotSupported, "\(kind.rawValue) join is not supported in materialized views yet")
        }
        guard leftKeys.count == rightKeys.count else {
            throw SluiceError.internalError("join has \(leftKeys.count) left keys but \(rightKeys.count) right keys")
        }
        for (leftKey, rightKey) in zip(leftKeys, rightKeys) {
            guard leftTypes.indices.contains(leftKey), rightTypes.indices.contains(rightKey) else {
                throw SluiceError.internalError("join key column out of range")
            }
            guard leftTypes[leftKey] == rightTypes[rightKey] else {
                throw SluiceError.internalError(
                    "join keys of different types: \(leftTypes[leftKey].sqlName) and \(rightTypes[rightKey].sqlName)")
            }
        }
        if let residual {
            guard residual.type == .boolean else { throw SluiceError.internalError("join condition is not boolean") }
            guard residual.referencedColumns.allSatisfy({ $0 < leftTypes.count + rightTypes.count }) else {
                throw SluiceError.internalError("join condition refers to a column out of range")
            }
        }
        self.leftTypes = leftTypes
        self.rightTypes = rightTypes
        self.kind = kind
        self.leftKeys = leftKeys
        self.rightKeys = rightKeys
        self.residual = residual
        self.context = context
        self.isLookup = isLookup
        self.leftState = JoinSideState(id: stateTableID, types: leftTypes + (kind == .inner ? [] : [.int64]))
        self.rightState = JoinSideState(id: stateTableID + 1, types: rightTypes)
    }

    /// The types of the output rows: the left columns, then the right columns (only the left
    /// columns for a semi or anti join).
    package var outputTypes: [DataType] { emitsPairs ? leftTypes + rightTypes : leftTypes }

    /// Whether output rows are joined pairs (inner and left joins), not left rows alone.
    var emitsPairs: Bool { kind == .inner || kind == .left }

    /// Whether a left row with `degree` matches is output on its own: a left join's padded
    /// row or an anti join's row at degree zero, a semi join's row above it.
    func emitsAlone(degree: Int64) -> Bool {
        switch kind {
        case .left, .anti: degree == 0
        case .semi: degree > 0
        case .inner, .right, .full: false
        }
    }

    package mutating func process(_ chunk: StreamChunk, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {
        let side: JoinSide
        switch input {
        case 0: side = .left
        case 1: side = .right
        default: throw SluiceError.internalError("join received a chunk from input \(input); it has inputs 0 and 1")
        }
        guard chunk.data.columnCount == types(of: side).count else {
            throw SluiceError.internalError(
                "join \(side) input has \(chunk.data.columnCount) columns, expected \(types(of: side).count)")
        }
        if isLookup && side == .left && !passedFirstBarrier {
            heldLeft.append(chunk)
            return
        }
        if side == .left, memo != nil {
            try lookUpThroughMemo(chunk, into: &output)
            return
        }
        try probe(chunk, from: side, into: &output)
    }

    mutating func probe(_ chunk: StreamChunk, from side: JoinSide, into output: inout OutputBuffer) throws(SluiceError) {
        var batch = ProbeBatch(firstRow: 0)
        var rowIndex = 0
        // Where the current row's candidates go on (a key with more than a slice of rows).
        var resume: [UInt8]?
        while rowIndex < chunk.count {
            // (The other side's state is passed as stored, not through a copy: a copy per row
            // costs a retain of each of its buffers, and one held across `apply` would make its
            // staging copy them whole.)
            let next = side == .left
                ? batch.add(row: rowIndex, of: chunk.data, keys: leftKeys, probing: rightState, limit: candidateSlice, from: resume)
                : batch.add(row: rowIndex, of: chunk.data, keys: rightKeys, probing: leftState, limit: candidateSlice, from: resume)
            if let next {
                // The row's next slice of candidates goes in the next batch, its degree with it.
                batch.lastRowContinues = true
                let carried = try apply(batch, of: chunk, from: side, into: &output)
                batch = ProbeBatch(firstRow: rowIndex, carriedDegree: carried)
                resume = next
                continue
            }
            resume = nil
            if batch.pairCount >= Chunk.preferredSize || rowIndex == chunk.count - 1 {
                try apply(batch, of: chunk, from: side, into: &output)
                batch = ProbeBatch(firstRow: rowIndex + 1)
            }
            rowIndex += 1
        }
        // Pages the probes read back stay until the next commit, unless over the limit.
        leftState.shedCachedPages()
        rightState.shedCachedPages()
    }

    package mutating func finishEpoch(_ barrier: Barrier, state: inout StateWriter, into output: inout OutputBuffer) throws(SluiceError) {
        if !passedFirstBarrier {
            passedFirstBarrier = true
            let held = heldLeft
            heldLeft = []
            for chunk in held {
                if memo != nil { try lookUpThroughMemo(chunk, into: &output) } else { try probe(chunk, from: .left, into: &output) }
            }
            for watermark in heldWatermarks { output.emit(watermark) }
            heldWatermarks = []
        }
        leftState.commit()
        rightState.commit()
        cleanBehindWatermarks()
        if state.mode != .none {
            state.add(leftState.checkpoint(everything: state.mode == .everything))
            state.add(rightState.checkpoint(everything: state.mode == .everything))
        }
        memo?.checkpoint(into: &state)
    }

    package mutating func enableCheckpoints() {
        leftState.enableCheckpoints()
        rightState.enableCheckpoints()
        memo?.entries.tracksChanges = true
        memo?.sequence.enableCheckpoints()
    }

    package mutating func useMemory(_ memory: StateMemory) {
        leftState.useMemory(memory)
        rightState.useMemory(memory)
        memo?.entries.useMemory(memory)
        memo?.sequence.useMemory(memory)
    }

    package mutating func restore(_ tables: RestoredTables) throws(SluiceError) {
        try leftState.restore(tables)
        try rightState.restore(tables)
        try memo?.restore(tables)
    }

    package var stateBytes: Int {
        leftState.table.byteCount + rightState.table.byteCount + (memo.map { $0.entries.byteCount + $0.sequence.byteCount } ?? 0)
    }

    func types(of side: JoinSide) -> [DataType] { side == .left ? leftTypes : rightTypes }
    func keys(of side: JoinSide) -> [Int] { side == .left ? leftKeys : rightKeys }

    /// Whether state rows of `side` carry a match degree as their last column.
    func keepsDegree(_ side: JoinSide) -> Bool { side == .left && kind != .inner }
}

/// One input of a two-input join.
enum JoinSide: CustomStringConvertible {
    case left, right

    var other: JoinSide { self == .left ? .right : .left }

    var description: String { self == .left ? "left" : "right" }
}

extension HashJoinNode: StreamOperatorNode {
    package func makeOperator(at site: inout OperatorSite) throws(SluiceError) -> any StreamOperator {
        var joinOperator = try StreamHashJoin(
            leftTypes: join.left.outputTypes, rightTypes: join.right.outputTypes, kind: join.kind, leftKeys: join.leftKeys,
            rightKeys: join.rightKeys, residual: join.residual, stateTableID: site.stateTableID, context: site.context, isLookup: isLookup)
        if isLookup, !join.left.isAppendOnly {
            joinOperator.memo = LookupMemo(leftTypes: join.left.outputTypes, rightTypes: join.right.outputTypes, id: site.stateTableID + 2)
        }
        let bounds = join.timeBounds
        if !isLookup, !bounds.isEmpty {
            joinOperator.watermarks = JoinWatermarks(
                bounds: bounds, leftTypes: join.left.outputTypes, rightTypes: join.right.outputTypes, passesRight: join.kind == .inner,
                context: site.context)
        }
        return joinOperator
    }
}

extension StreamHashJoin {
    /// The vnode of each row's join key in its side's state (``JoinStateKey``'s prefix); nil
    /// for a lookup join (its left rows are not kept) and a join without equalities.
    package func backfillVnodes(from input: InputIndex) -> BackfillVnodes? {
        let keys = input == 0 ? leftKeys : rightKeys
        guard !isLookup, !keys.isEmpty else { return nil }
        return { rows in StreamHashAggregate.vnodes(of: rows, keys: keys) }
    }
}
