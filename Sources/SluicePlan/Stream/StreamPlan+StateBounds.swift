import SluiceCore

/// A place in a stream plan whose state grows without bound: it keeps every row of an input
/// that only ever grows (a source, an APPEND ONLY table) and no watermark lets any go.
package struct UnboundedState: Sendable, Equatable {
    /// What keeps the rows, as a sentence's subject (`the join of …`).
    package var message: String
    package var hint: String
}

extension StreamPlan {
    /// Every operator whose state only grows (``UnboundedState``), from the leaves up. RisingWave
    /// accepts such views; the server says so with a NOTICE, and EMIT ON WINDOW CLOSE, which
    /// promises state that is let go, refuses a join among them.
    package var unboundedState: [UnboundedState] {
        var found = inputs.flatMap(\.unboundedState)
        if let join = node as? HashJoinNode, !join.isLookup {
            let bounds = join.join.timeBounds
            let sides: [(JoinTimeBound.Side, StreamPlan, StreamPlan)] = [(.left, join.join.left, join.join.right), (.right, join.join.right, join.join.left)]
            let unbounded = sides.filter { side, input, other in
                input.isAppendOnly && !bounds.contains { $0.side == side && other.watermarkColumns.contains($0.otherColumn) }
            }
            if !unbounded.isEmpty {
                let which = unbounded.count == 2
                    ? "both of its inputs, which only grow" : unbounded[0].0 == .left ? "its left input, which only grows" : "its right input, which only grows"
                found.append(
                    UnboundedState(
                        message: "the join keeps every row of \(which): its state grows without bound",
                        hint: "Bound the join in event time over columns with a watermark: join windows on window_start, "
                            + "or add a condition such as a.ts BETWEEN b.ts - INTERVAL '1' HOUR AND b.ts; "
                            + "or keep only recent rows with a temporal filter (WHERE ts > now() - INTERVAL '1' HOUR); "
                            + "or look rows up with FOR SYSTEM_TIME AS OF PROCTIME()."))
            }
        }
        if let window = node as? OverWindowNode, window.input.isAppendOnly {
            found.append(
                UnboundedState(
                    message: "the window function keeps every row of its input, which only grows: its state grows without bound",
                    hint: "Keep only recent rows in its input with a temporal filter (WHERE ts > now() - INTERVAL '1' HOUR), "
                        + "or read a table whose rows are deleted."))
        }
        return found
    }
}
