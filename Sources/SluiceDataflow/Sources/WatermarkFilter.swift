import Synchronization
import SluiceCore
import SluiceExpr

/// A source's watermark (`WATERMARK FOR ts AS ts - INTERVAL '5' SECOND`), applied to its rows
/// one at a time, in the order they arrive: a row whose time column is below the watermark so
/// far is late and dropped; a row kept raises the watermark to its value of the expression if
/// that is higher. Rows with a NULL time are kept, and never move the watermark. Row by row, so
/// which rows are late depends only on their order, not on how they were batched (RisingWave
/// judges a chunk against the watermark before it, which depends on the batching). The
/// watermark goes downstream once per chunk, after the chunk's rows. Safe from any thread; a source
/// calls it from its one reading thread, in the order of its rows.
package final class WatermarkFilter: Sendable {
    /// The time column, by index in the source's columns.
    package let column: Int
    private let expression: ScalarExpr
    private let context: EvaluationContext
    /// The watermark so far, in microseconds (Int64.min: none yet).
    private let current = Mutex<Int64>(.min)

    /// The pseudo-partition under which a checkpoint's source positions keep the source's
    /// watermark (no Kafka partition is negative).
    package static let positionKey = Int32.min

    /// Starts from `watermark` (a checkpoint's), or with none.
    package init(column: Int, expression: ScalarExpr, context: EvaluationContext, watermark: Int64? = nil) {
        self.column = column
        self.expression = expression
        self.context = context
        current.withLock { $0 = watermark ?? .min }
    }

    /// The watermark so far, if any row set one.
    package var watermark: Int64? {
        let value = current.withLock { $0 }
        return value == .min ? nil : value
    }

    /// `chunk` without its late rows, how many were late, and the watermark the chunk raised
    /// (nil when it did not rise).
    package func apply(_ chunk: Chunk) -> (kept: Chunk, late: Int, advanced: Watermark?) {
        let times = chunk.columns[column]
        let bounds = bounds(of: chunk)
        let type = times.type
        return current.withLock { current -> (kept: Chunk, late: Int, advanced: Watermark?) in
            let timeValues = Int64.elements(of: times.storage)
            let boundValues = Int64.elements(of: bounds.storage)
            var kept: [Int] = []
            kept.reserveCapacity(chunk.count)
            var highest = current
            for rowIndex in 0 ..< chunk.count {
                guard !times.isNull(rowIndex) else {
                    kept.append(rowIndex)
                    continue
                }
                if timeValues[rowIndex] < highest { continue }
                kept.append(rowIndex)
                if !bounds.isNull(rowIndex), boundValues[rowIndex] > highest { highest = boundValues[rowIndex] }
            }
            let late = chunk.count - kept.count
            var advanced: Watermark?
            if highest > current {
                current = highest
                advanced = Watermark(column: column, value: type == .timestamp ? .timestamp(highest) : .timestamptz(highest))
            }
            return (late == 0 ? chunk : chunk.gather(kept), late, advanced)
        }
    }

    /// The expression over `chunk`; a row where it fails (an overflow near the ends of time)
    /// gets NULL, so it never moves the watermark.
    private func bounds(of chunk: Chunk) -> Column {
        if let column = try? ExpressionEvaluator.evaluate(expression, on: chunk, context: context) { return column }
        var builder = ColumnBuilder(type: expression.type, capacity: chunk.count)
        for rowIndex in 0 ..< chunk.count {
            let value = try? ExpressionEvaluator.evaluate(expression, on: chunk.gather([rowIndex]), context: context).value(at: 0)
            builder.append(value ?? .null)
        }
        return builder.finish()
    }
}
