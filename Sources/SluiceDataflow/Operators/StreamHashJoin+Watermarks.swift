import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

/// Event time through a join (``JoinTimeBound``): each side's latest watermarks, the output
/// watermarks they give, and the state they let go.
struct JoinWatermarks {
    let bounds: [JoinTimeBound]
    let leftTypes: [DataType]
    let rightTypes: [DataType]
    /// Whether right columns carry watermarks to the output (an inner join).
    let passesRight: Bool
    let context: EvaluationContext
    /// The latest watermark of each side, by column.
    private var left: [Int: Value] = [:]
    private var right: [Int: Value] = [:]
    /// The watermark last emitted, by output column.
    private var emitted: [Int: Value] = [:]
    /// The floor each bound last cleaned its side's state below, by the bound's position.
    private var cleaned: [Int: Value] = [:]

    init(bounds: [JoinTimeBound], leftTypes: [DataType], rightTypes: [DataType], passesRight: Bool, context: EvaluationContext) {
        self.bounds = bounds
        self.leftTypes = leftTypes
        self.rightTypes = rightTypes
        self.passesRight = passesRight
        self.context = context
    }

    /// Records `watermark` of `side` and returns the output watermarks that moved.
    mutating func receive(_ watermark: Watermark, from side: JoinSide) -> [Watermark] {
        guard !watermark.value.isNull else { return [] }
        switch side {
        case .left:
            if let known = left[watermark.column], ValueOrdering.compare(known, watermark.value) >= 0 { return [] }
            left[watermark.column] = watermark.value
        case .right:
            if let known = right[watermark.column], ValueOrdering.compare(known, watermark.value) >= 0 { return [] }
            right[watermark.column] = watermark.value
        }
        var moved: [Watermark] = []
        let passed = bounds.filter { $0.bounded == .column($0.column, $0.bounded.type) && ($0.side == .left || passesRight) }
        let columns: [(JoinSide, Int)] = Set(passed.map { [$0.side == .left ? 0 : 1, $0.column] }).sorted { $0.lexicographicallyPrecedes($1) }
            .map { ($0[0] == 0 ? .left : .right, $0[1]) }
        for (bounded, column) in columns {
            // Later rows of the side itself are at or past its own watermark; later rows of the
            // other side only meet stored rows at or past the bound.
            guard let own = (bounded == .left ? left : right)[column], let floor = floor(of: column, on: bounded) else { continue }
            let value = ValueOrdering.compare(own, floor) <= 0 ? own : floor
            let output = bounded == .left ? column : leftTypes.count + column
            if let last = emitted[output], ValueOrdering.compare(last, value) >= 0 { continue }
            emitted[output] = value
            moved.append(Watermark(column: output, value: value))
        }
        return moved
    }

    /// The least value column `column` of `side` can have in a row a later row of the other
    /// side matches: the largest of the bounds on the column itself at the other side's
    /// watermarks; nil when none is known.
    private func floor(of column: Int, on side: JoinSide) -> Value? {
        var result: Value?
        for bound in bounds where bound.side == (side == .left ? .left : .right) && bound.bounded == .column(column, bound.bounded.type) {
            guard let value = floor(of: bound) else { continue }
            if result.map({ ValueOrdering.compare($0, value) < 0 }) ?? true { result = value }
        }
        return result
    }

    /// `bound.lowerBound` at the other side's watermark; nil while it has none.
    private func floor(of bound: JoinTimeBound) -> Value? {
        let marks = bound.side == .left ? right : left
        guard let mark = marks[bound.otherColumn] else { return nil }
        return WatermarkDerivation.value(
            of: bound.lowerBound, at: Watermark(column: bound.otherColumn, value: mark),
            inputTypes: bound.side == .left ? rightTypes : leftTypes, context: context)
    }

    /// For each bound on `side` whose floor moved since the last call: its expression over the
    /// side's rows, and the floor, below which a stored row can match nothing more.
    mutating func cleaningTargets(of side: JoinSide) -> [(bounded: ScalarExpr, below: Value)] {
        var targets: [(bounded: ScalarExpr, below: Value)] = []
        for (position, bound) in bounds.enumerated() where bound.side == (side == .left ? .left : .right) {
            guard let floor = floor(of: bound) else { continue }
            if let last = cleaned[position], ValueOrdering.compare(last, floor) >= 0 { continue }
            cleaned[position] = floor
            targets.append((bound.bounded, floor))
        }
        return targets
    }
}

extension StreamHashJoin {
    package mutating func advance(to watermark: Watermark, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {
        let side: JoinSide = input == 0 ? .left : .right
        if isLookup {
            // The stream side's rows go out as they come (after the first barrier's held ones).
            guard side == .left else { return }
            if passedFirstBarrier { output.emit(watermark) } else { heldWatermarks.append(watermark) }
            return
        }
        guard watermarks != nil else { return }
        for moved in watermarks!.receive(watermark, from: side) { output.emit(moved) }
    }

    /// Drops the stored rows no later row of the other side can match, at a barrier after the
    /// commit.
    mutating func cleanBehindWatermarks() {
        guard !isLookup, watermarks != nil else { return }
        for (bounded, below) in watermarks!.cleaningTargets(of: .left) {
            leftState.removeRows(where: bounded, below: below, context: context)
        }
        for (bounded, below) in watermarks!.cleaningTargets(of: .right) {
            rightState.removeRows(where: bounded, below: below, context: context)
        }
    }
}
