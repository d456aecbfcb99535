import SluiceCore
import SluiceExpr
import SluicePlan

/// The hash join, bounded by the query's memory: past it, it splits its rows into partitions on
/// disk by their keys' hash and then joins one partition at a time (the Grace hash join),
/// splitting a partition again, on the next bits of the hash, when it still does not fit. What
/// cannot be split further (one key with more rows than the memory holds) is joined by the
/// block nested loop (BlockNestedLoop.swift). (The hash aggregate spills the same way:
/// BatchExecutor+HashAggregate.)
extension BatchExecutor {
    /// An equi-join of any kind: the build (right) side whole in memory if it fits, else both
    /// sides partitioned to disk and joined a partition at a time.
    func hashJoin(_ join: HashJoin) throws(SluiceError) -> ChunkStream {
        if join.buildsLeft, join.kind == .semi || join.kind == .anti, let joined = try leftBuiltJoin(join) { return joined }
        return try hashJoin(build: try stream(join.right), probe: { () throws(SluiceError) in try stream(join.left) }, join: join, level: 0)
    }

    /// A semi or anti join with its hash table on the left side (``EquiJoin/buildsLeft``), or
    /// nil when the left side does not fit in memory after all: the join is then run the usual
    /// way, building (and spilling) the right side.
    private func leftBuiltJoin(_ join: HashJoin) throws(SluiceError) -> ChunkStream? {
        let types = join.left.outputTypes
        let source = try stream(join.left)
        var chunks: [Chunk] = []
        var held = 0
        var text = [Int](repeating: 0, count: types.count)
        while let chunk = try source.next() {
            if isCancelled() { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
            let cost = chunk.approximateBytes + JoinHashTable.bytesPerRow * chunk.count
            if Self.addText(of: chunk, to: &text) || !memory.tryReserve(cost) {
                memory.release(held)
                return nil
            }
            held += cost
            chunks.append(chunk)
        }
        let build = Chunk.concatenate(chunks, types: types)
        chunks = []
        let joined = JoinExecutor(context: context, isCancelled: isCancelled).markLeftRows(
            build: build, table: JoinHashTable(build: build, keys: join.leftKeys), probe: { () throws(SluiceError) in try stream(join.right) },
            probeKeys: join.rightKeys, anti: join.kind == .anti, residual: join.residual)
        let memory = self.memory
        return joined.whenDone { memory.release(held) }
    }

    private func hashJoin(
        build source: ChunkStream, probe: () throws(SluiceError) -> ChunkStream, join: HashJoin, level: Int
    ) throws(SluiceError) -> ChunkStream {
        let buildTypes = join.right.outputTypes
        // The rows, then their entries and buckets in the table.
        let side = try holdBuildSide(source, types: buildTypes, for: "the hash join's build side", spills: join.rightKeys.count > 0) {
            $0.approximateBytes + JoinHashTable.bytesPerRow * $0.count
        }
        switch side {
        case .held(let build, let held):
            let joined = JoinExecutor(context: context, isCancelled: isCancelled).join(
                probe: try probe(), build: build, table: JoinHashTable(build: build, keys: join.rightKeys), probeKeys: join.leftKeys,
                kind: join.kind, residual: join.residual, leftTypes: join.left.outputTypes)
            // The build side is let go once the join is done (the next partition's takes its place).
            let memory = self.memory
            return joined.whenDone { memory.release(held) }
        case .overflowing(let chunks) where level <= PartitionedSpill.maximumLevel:
            return try partitionedJoin(build: chunks, rest: source, probe: try probe(), join: join, level: level)
        case .overflowing(let chunks):
            // Rows whose keys' hashes agree in every bit the partitions used (one key with more
            // rows than the memory holds): every pair is tried, a block of probe rows at a time
            // against the build rows on disk.
            return try blockNestedLoop(
                outer: try probe(), inner: try spilling(chunks, rest: source, types: buildTypes), kind: join.kind, predicate: join.residual,
                keys: (join.leftKeys, join.rightKeys), leftTypes: join.left.outputTypes)
        }
    }

    /// Writes both sides to partitions by key, then joins each pair of partitions: rows with
    /// equal keys meet in one, and a row no key matches lands in one too, so every join kind
    /// pads it there. Rows with a null key match nothing: they are kept apart and come last,
    /// padded, where the join kind keeps unmatched rows of their side.
    private func partitionedJoin(
        build held: [Chunk], rest: ChunkStream, probe: ChunkStream, join: HashJoin, level: Int
    ) throws(SluiceError) -> ChunkStream {
        let directory = memory.spillDirectory!
        let (leftTypes, rightTypes) = (join.left.outputTypes, join.right.outputTypes)
        let buildSpill = try PartitionedSpill(in: directory, types: rightTypes, keys: join.rightKeys, level: level, nullKeysApart: true)
        for chunk in held { try buildSpill.append(chunk) }
        while let chunk = try rest.next() {
            if isCancelled() { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
            try buildSpill.append(chunk)
        }
        let buildFiles = try buildSpill.finish()
        let probeSpill = try PartitionedSpill(in: directory, types: leftTypes, keys: join.leftKeys, level: level, nullKeysApart: true)
        while let chunk = try probe.next() {
            if isCancelled() { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
            try probeSpill.append(chunk)
        }
        let probeFiles = try probeSpill.finish()
        let (buildNulls, probeNulls) = (buildSpill.nullKeyRows!, probeSpill.nullKeyRows!)
        memory.noteSpilled((buildFiles + probeFiles + [buildNulls, probeNulls]).reduce(0) { $0 + $1.byteCount })
        return ChunkStream.concatenating(count: buildFiles.count + 2) { (part: Int) throws(SluiceError) -> ChunkStream in
            if part < buildFiles.count {
                return try hashJoin(
                    build: try buildFiles[part].chunks(), probe: { () throws(SluiceError) in try probeFiles[part].chunks() }, join: join,
                    level: level + 1)
            }
            if part == buildFiles.count {
                // Probe rows with a null key.
                switch join.kind {
                case .left, .full:
                    return try probeNulls.chunks().map { chunk in
                        Chunk(columns: chunk.columns + rightTypes.map { Column(type: $0, repeating: .null, count: chunk.count) }, count: chunk.count)
                    }
                case .anti: return try probeNulls.chunks()
                case .inner, .right, .semi: return ChunkStream.of([])
                }
            }
            // Build rows with a null key.
            guard join.kind == .right || join.kind == .full else { return ChunkStream.of([]) }
            return try buildNulls.chunks().map { chunk in
                Chunk(columns: leftTypes.map { Column(type: $0, repeating: .null, count: chunk.count) } + chunk.columns, count: chunk.count)
            }
        }
    }

    /// A join's build (or inner) side as ``holdBuildSide(_:types:for:spills:cost:)`` found it.
    enum BuildSide {
        /// Every row, in one chunk, and the bytes reserved for it.
        case held(Chunk, bytes: Int)
        /// The rows read before the memory (or a column's 2 GB of text) ran out, the chunk that
        /// did not fit last; the rest are still in the source, and nothing is reserved.
        case overflowing([Chunk])
    }

    /// The rows of `source` while the query's memory holds them, `cost` of each chunk reserved.
    /// When it does not hold them and the query may spill (and `spills`), what was read so far,
    /// for the caller to set aside on disk; when it may not, 53200 naming `operation` (54000
    /// past 2 GB of text in a column).
    func holdBuildSide(
        _ source: ChunkStream, types: [DataType], for operation: String, spills: Bool, cost: (Chunk) -> Int
    ) throws(SluiceError) -> BuildSide {
        var chunks: [Chunk] = []
        var held = 0
        var text = [Int](repeating: 0, count: types.count)
        while let chunk = try source.next() {
            if isCancelled() { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
            let bytes = cost(chunk)
            let textFull = Self.addText(of: chunk, to: &text)
            if textFull || !memory.tryReserve(bytes) {
                if spills && memory.spillDirectory != nil {
                    memory.release(held)
                    return .overflowing(chunks + [chunk])
                }
                if textFull { throw SluiceError(.programLimitExceeded, "\(operation) holds more than 2 GB of text in one column") }
                try memory.reserve(bytes, for: operation)
            }
            held += bytes
            chunks.append(chunk)
        }
        return .held(Chunk.concatenate(chunks, types: types), bytes: held)
    }

    /// Adds the text bytes of `chunk`'s columns to `text`; true when a column would pass the
    /// 2 GB one chunk can address.
    static func addText(of chunk: Chunk, to text: inout [Int]) -> Bool {
        var full = false
        for (index, column) in chunk.columns.enumerated() {
            guard case .bytes(let bytes) = column.storage else { continue }
            text[index] += bytes.data.count
            if text[index] > Int(Int32.max) { full = true }
        }
        return full
    }
}

extension ChunkStream {
    /// This stream, calling `done` once when it ends.
    func whenDone(_ done: @escaping () -> Void) -> ChunkStream {
        let source = next
        var finished = false
        return ChunkStream { () throws(SluiceError) -> Chunk? in
            if let chunk = try source() { return chunk }
            if !finished {
                finished = true
                done()
            }
            return nil
        }
    }

    /// The streams `make(0)`, `make(1)`, … `make(count - 1)` one after another, each made when
    /// the one before it ends.
    static func concatenating(count: Int, _ make: @escaping (Int) throws(SluiceError) -> ChunkStream) -> ChunkStream {
        var index = 0
        var current: ChunkStream?
        return ChunkStream { () throws(SluiceError) -> Chunk? in
            while index < count {
                if current == nil { current = try make(index) }
                if let chunk = try current!.next() { return chunk }
                current = nil
                index += 1
            }
            return nil
        }
    }
}
