import SluiceCore
import SluiceExpr
import SluicePlan

extension BatchExecutor {
    /// Window functions over frames: the rows of `input` (sorted by the partition columns, then
    /// the order keys) gathered a partition at a time, each partition's values computed by
    /// ``OverWindowEvaluation`` and appended to its rows. A partition is held whole while it is
    /// evaluated, and counts against the query's memory.
    func overWindow(
        _ input: ChunkStream, types: [DataType], partitionColumns: [Int], order: [SortKey], calls: [WindowCall]
    ) throws(SluiceError) -> ChunkStream {
        let context = self.context
        let memory = self.memory
        let isCancelled = self.isCancelled
        var pending: [Chunk] = []
        var pendingRows = 0
        var reserved = 0
        var output: [Chunk] = []
        var finished = false
        /// Evaluates the gathered partition and queues its rows.
        func flush() throws(SluiceError) {
            guard pendingRows > 0 else { return }
            let rows = Chunk.concatenate(pending, types: types)
            let values = try OverWindowEvaluation.evaluate(calls, over: rows, order: order, context: context, isCancelled: isCancelled)
            let all = Chunk(columns: rows.columns + values, count: rows.count)
            var start = 0
            while start < all.count {
                let end = min(start + Chunk.preferredSize, all.count)
                output.append(start == 0 && end == all.count ? all : all.slice(start ..< end))
                start = end
            }
            pending = []
            pendingRows = 0
            memory.release(reserved)
            reserved = 0
        }
        return ChunkStream { () throws(SluiceError) -> Chunk? in
            while output.isEmpty {
                if finished { return nil }
                guard let chunk = try input.next() else {
                    finished = true
                    try flush()
                    break
                }
                // Split the chunk where its partition changes.
                var start = 0
                for row in 0 ..< chunk.count {
                    let previous: (Chunk, Int)? = row > start ? (chunk, row - 1) : pending.last.map { ($0, $0.count - 1) }
                    if let previous, !ValueOrdering.equalRows(previous.0, previous.1, chunk, row, columns: partitionColumns) {
                        if row > start { pending.append(chunk.slice(start ..< row)) ; pendingRows += row - start }
                        try flush()
                        start = row
                    }
                }
                if start < chunk.count {
                    let part = start == 0 ? chunk : chunk.slice(start ..< chunk.count)
                    let bytes = part.byteCount
                    try memory.reserve(bytes, for: "a window function's partition")
                    reserved += bytes
                    pending.append(part)
                    pendingRows += part.count
                }
            }
            return output.isEmpty ? nil : output.removeFirst()
        }
    }
}
