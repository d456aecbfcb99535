import SluiceCore
import SluiceExpr
import SluicePlan

extension BatchExecutor {
    /// Window functions over frames: the rows of `input` (sorted by the partition columns, then
    /// the order keys) gathered a partition at a time, and each partition's values computed by
    /// ``OverWindowEvaluator`` a chunk at a time and appended to its rows. A partition is held
    /// in memory while the query's memory allows, and past that written to a spill file, from
    /// which the evaluator's readers take its chunks back as they need them.
    func overWindow(
        _ input: ChunkStream, types: [DataType], partitionColumns: [Int], order: [SortKey], calls: [WindowCall]
    ) throws(SluiceError) -> ChunkStream {
        let (context, isCancelled) = (self.context, self.isCancelled)
        let partition = WindowPartition(types: types, memory: memory)
        // The input chunk being split into partitions, and where its next partition starts.
        var current = Chunk(columns: [], count: 0)
        var offset = 0
        var evaluator: OverWindowEvaluator?
        var finished = false
        func evaluate() {
            evaluator = OverWindowEvaluator(calls, over: partition.rows(), order: order, context: context, isCancelled: isCancelled)
        }
        return ChunkStream { () throws(SluiceError) -> Chunk? in
            while true {
                if evaluator != nil {
                    if let (rows, values) = try evaluator!.next() { return Chunk(columns: rows.columns + values, count: rows.count) }
                    evaluator = nil
                    partition.reset()
                }
                if finished { return nil }
                if offset >= current.count {
                    guard let next = try input.next() else {
                        finished = true
                        if !partition.isEmpty { evaluate() }
                        continue
                    }
                    (current, offset) = (next, 0)
                }
                // The rows up to the first of another partition, if the chunk has one.
                var boundary = offset + 1
                if let last = partition.last, !ValueOrdering.equalRows(last, last.count - 1, current, offset, columns: partitionColumns) {
                    boundary = offset
                } else {
                    while boundary < current.count && ValueOrdering.equalRows(current, boundary - 1, current, boundary, columns: partitionColumns) {
                        boundary += 1
                    }
                }
                if boundary > offset { try partition.append(offset == 0 && boundary == current.count ? current : current.slice(offset ..< boundary)) }
                offset = boundary
                if boundary < current.count { evaluate() }
            }
        }.coalesced(types: types + calls.map(\.resultType))
    }
}

/// The rows of the window partition being gathered: in memory while the query's memory allows
/// (each chunk's bytes reserved), then all in a spill file. Without a spill directory, a
/// partition larger than the memory fails with 53200.
private final class WindowPartition {
    let types: [DataType]
    let memory: QueryMemory
    private var held: [Chunk] = []
    private var reserved = 0
    private var spill: ChunkSpillFile?
    /// The chunk appended last: its last row is the partition's last so far.
    private(set) var last: Chunk?

    init(types: [DataType], memory: QueryMemory) {
        self.types = types
        self.memory = memory
    }

    var isEmpty: Bool { last == nil }

    func append(_ chunk: Chunk) throws(SluiceError) {
        last = chunk
        if let spill { return try spill.append(chunk) }
        let bytes = chunk.approximateBytes
        if !memory.tryReserve(bytes) {
            if let file = try memory.spillFile(types: types) {
                for staged in held + [chunk] { try file.append(staged) }
                held = []
                memory.release(reserved)
                reserved = 0
                spill = file
                return
            }
            try memory.reserve(bytes, for: "a window function's partition")
        }
        reserved += bytes
        held.append(chunk)
    }

    /// The partition's rows, for its evaluation (until ``reset()``).
    func rows() -> PartitionRows {
        guard let spill else { return PartitionRows(held, types: types) }
        memory.noteSpilled(spill.byteCount)
        return PartitionRows(types: types, chunkSizes: spill.chunkSizes) { (index: Int) throws(SluiceError) -> Chunk in try spill.chunk(at: index) }
    }

    /// Lets the evaluated partition go, for the next one.
    func reset() {
        held = []
        memory.release(reserved)
        reserved = 0
        spill = nil
        last = nil
    }
}
