import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

/// An incremental equi-join of two change streams, inner or left outer, with bag semantics.
///
/// Input 0 is the left side, input 1 the right. A change on one side is joined with the current
/// state of the other side, and the joined rows are emitted with the change's sign as it is
/// processed: the join does not wait for the barrier. Update halves are treated as a delete and
/// an insert, so the output holds only `.insert` and `.delete`.
///
/// A left join keeps, for each left row, its match degree: how many right rows (counted with
/// multiplicity) have its key and pass the residual. A right change that moves a degree from 0
/// to 1 retracts the left row's NULL-padded output before adding the joined rows; one that moves
/// it back to 0 restores the padded row after retracting them.
///
/// SQL equality: a row with a NULL in any key column never matches. Such rows are not kept in
/// state; in a left join a left one is output padded with NULLs (and retracted the same way).
///
/// State: one ``StateTable`` per side (ids `stateTableID` for the left, `stateTableID + 1` for
/// the right). Each distinct row is one state row keyed by the memcomparable encoding of its
/// join key values followed by that of all its values, so the rows of one key are a range
/// scan. The state row holds the row's values, then its multiplicity, then (left side of a left
/// join only) its match degree.
/// - Complexity: per input chunk, O(rows) key encodings and state writes, one range scan per
///   distinct key per batch of about ``Chunk/preferredSize`` candidate pairs, O(pairs) to build
///   the candidate rows and evaluate the residual once per batch, plus the output rows.
package struct StreamHashJoin: StreamOperator {
    /// The column types of the left input (input 0).
    package let leftTypes: [DataType]
    /// The column types of the right input (input 1).
    package let rightTypes: [DataType]
    /// `.inner` or `.left`.
    package let kind: JoinKind
    /// The left key columns; `leftKeys[n]` is compared with `rightKeys[n]`.
    package let leftKeys: [Int]
    /// The right key columns.
    package let rightKeys: [Int]
    /// A condition over the joined row (left columns, then right columns) that a matching pair
    /// must also satisfy.
    package let residual: ScalarExpr?
    /// What the residual may depend on besides its input (time zone, statement time).
    package let context: EvaluationContext
    let leftTable: StateTable
    let rightTable: StateTable

    /// Creates the operator; only `.inner` and `.left` joins are supported.
    ///
    /// Key columns pair up by position and must have the same type on both sides (the planner
    /// casts them), since keys match by their encoded bytes.
    package init(
        leftTypes: [DataType], rightTypes: [DataType], kind: JoinKind, leftKeys: [Int], rightKeys: [Int],
        residual: ScalarExpr?, stateTableID: Int, context: EvaluationContext = EvaluationContext()
    ) throws(SluiceError) {
        switch kind {
        case .inner, .left:
            break
        case .right, .full, .semi, .anti:
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
        self.leftTable = StateTable(id: stateTableID)
        self.rightTable = StateTable(id: stateTableID + 1)
    }

    /// The types of the output rows: the left columns, then the right columns.
    package var outputTypes: [DataType] { leftTypes + rightTypes }

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
        var batch = ProbeBatch(firstRow: 0)
        for rowIndex in 0 ..< chunk.count {
            batch.add(row: rowIndex, of: chunk.data, keys: keys(of: side), types: types(of: side), probing: table(of: side.other))
            if batch.pairCount >= Chunk.preferredSize || rowIndex == chunk.count - 1 {
                try apply(batch, of: chunk, from: side, into: &output)
                batch = ProbeBatch(firstRow: rowIndex + 1)
            }
        }
    }

    package mutating func finishEpoch(_ barrier: Barrier, state: inout StateWriter, into output: inout OutputBuffer) throws(SluiceError) {
        leftTable.commitEpoch(barrier.epoch)
        rightTable.commitEpoch(barrier.epoch)
        if state.mode != .none {
            state.add(leftTable.checkpoint(everything: state.mode == .everything))
            state.add(rightTable.checkpoint(everything: state.mode == .everything))
        }
    }

    package mutating func enableCheckpoints() {
        leftTable.tracksChanges = true
        rightTable.tracksChanges = true
    }

    package mutating func restore(_ tables: [Int: StateSection]) throws(SluiceError) {
        if let left = tables[leftTable.id] { try leftTable.restore(left) }
        if let right = tables[rightTable.id] { try rightTable.restore(right) }
    }

    func types(of side: JoinSide) -> [DataType] { side == .left ? leftTypes : rightTypes }
    func keys(of side: JoinSide) -> [Int] { side == .left ? leftKeys : rightKeys }
    func table(of side: JoinSide) -> StateTable { side == .left ? leftTable : rightTable }

    /// Whether state rows of `side` carry a match degree after the multiplicity.
    func keepsDegree(_ side: JoinSide) -> Bool { side == .left && kind == .left }
}

/// One input of a two-input join.
enum JoinSide: CustomStringConvertible {
    case left, right

    var other: JoinSide { self == .left ? .right : .left }

    var description: String { self == .left ? "left" : "right" }
}

/// The state rows a join keeps: values, multiplicity, and for the left side of a left join the
/// match degree.
enum JoinStateRow {
    /// The integer in slot `slot` of a state row.
    static func count(_ row: [Value], at slot: Int) throws(SluiceError) -> Int64 {
        guard slot < row.count, case .int64(let value) = row[slot] else {
            throw SluiceError.internalError("join state row has no count in slot \(slot)")
        }
        return value
    }

    /// The key a row is stored under: its join key values, then all its values.
    static func key(prefix: [UInt8], values: [Value], types: [DataType]) -> [UInt8] {
        var key = prefix
        for (value, type) in zip(values, types) { MemcomparableEncoding.append(value, as: type, to: &key) }
        return key
    }
}
