import SluiceCore
import SluiceExpr

/// A temporal filter, as RisingWave has it: `WHERE ts > now() - INTERVAL '1' HOUR` in a view,
/// where `now()` is the time of each barrier. The rows of `input` whose `time` (an expression
/// over its columns) lies after `lower` and before `upper` at the current barrier's time: rows
/// appear when `upper` reaches them and go when `lower` passes them, without any change to the
/// input.
package struct TemporalFilterNode: StreamNode, Equatable {
    package var input: StreamPlan
    /// Over the input's columns; of the bounds' type.
    package var time: ScalarExpr
    /// `time > now` (or `>=`): rows expire as the barrier time moves on.
    package var lower: Bound?
    /// `time < now` (or `<=`): rows show once the barrier time reaches them.
    package var upper: Bound?

    /// One side of the window: `now`, an expression over no column whose `now()` is the
    /// barrier's time.
    package struct Bound: Sendable, Equatable {
        package var now: ScalarExpr
        /// Whether a row exactly at the bound is inside.
        package var inclusive: Bool

        package init(now: ScalarExpr, inclusive: Bool) {
            self.now = now
            self.inclusive = inclusive
        }
    }

    package var operatorName: String { "StreamTemporalFilter" }
    package var explainFields: String {
        var fields = ["time: \(time)"]
        if let lower { fields.append("lower: \(lower.inclusive ? ">=" : ">") \(lower.now)") }
        if let upper { fields.append("upper: \(upper.inclusive ? "<=" : "<") \(upper.now)") }
        return fields.joined(separator: ", ")
    }
    package var inputs: [StreamPlan] { [input] }
    package var outputTypes: [DataType] { input.outputTypes }
    /// Rows that only ever appear (no lower bound) over an input that only inserts.
    package var isAppendOnly: Bool { lower == nil && input.isAppendOnly }
    package var streamKey: [Int]? { input.streamKey }
}

extension StreamPlan {
    package static func temporalFilter(
        input: StreamPlan, time: ScalarExpr, lower: TemporalFilterNode.Bound?, upper: TemporalFilterNode.Bound?
    ) -> StreamPlan {
        StreamPlan(TemporalFilterNode(input: input, time: time, lower: lower, upper: upper))
    }
}

/// Stored as its input, time expression and bounds (StreamPlan+Storage.swift).
extension TemporalFilterNode {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        try input.encode(into: &writer)
        try time.encode(into: &writer)
        for bound in [lower, upper] {
            writer.write(bool: bound != nil)
            guard let bound else { continue }
            try bound.now.encode(into: &writer)
            writer.write(bool: bound.inclusive)
        }
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        let input = try StreamPlan(from: &reader)
        let time = try ScalarExpr(from: &reader)
        try PlanReader.require([time], readingBelow: input.outputTypes.count, in: "a temporal filter")
        let lower = try Self.readBound(from: &reader)
        self.init(input: input, time: time, lower: lower, upper: try Self.readBound(from: &reader))
    }

    private static func readBound(from reader: inout PlanReader) throws(SluiceError) -> Bound? {
        guard try reader.readBool() else { return nil }
        let now = try ScalarExpr(from: &reader)
        try PlanReader.require([now], readingBelow: 0, in: "a temporal filter's bound")
        return Bound(now: now, inclusive: try reader.readBool())
    }
}
