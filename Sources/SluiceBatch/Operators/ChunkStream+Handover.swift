import SluiceCore

extension ChunkStream {
    /// A stream over `chunks` that lets each one go as it hands it out (``of(_:)`` keeps them
    /// all until the stream is dropped) and releases its `cost` from `memory` then: the rows'
    /// reservation passes to whoever keeps them, and a reader that only looks at each chunk
    /// (a top-N, a second aggregate) frees them as it goes.
    static func handingOver(_ chunks: [Chunk], releasing memory: QueryMemory, cost: @escaping (Chunk) -> Int) -> ChunkStream {
        var remaining = Array(chunks.reversed())
        return ChunkStream { () throws(SluiceError) -> Chunk? in
            guard let chunk = remaining.popLast() else { return nil }
            memory.release(cost(chunk))
            return chunk
        }
    }
}

extension ChunkStream {
    /// The rows of `chunk`, ``Chunk/preferredSize`` at a time, each slice made as it is asked
    /// for; `bytes` of `memory` are released, and the chunk let go, with the last slice.
    static func slices(of chunk: Chunk, releasing bytes: Int, from memory: QueryMemory) -> ChunkStream {
        var whole: Chunk? = chunk
        var start = 0
        if chunk.count == 0 {
            memory.release(bytes)
            whole = nil
        }
        return ChunkStream { () throws(SluiceError) -> Chunk? in
            guard let all = whole else { return nil }
            let end = min(all.count, start + Chunk.preferredSize)
            let slice = start == 0 && end == all.count ? all : all.slice(start ..< end)
            start = end
            if end == all.count {
                whole = nil
                memory.release(bytes)
            }
            return slice
        }
    }
}

extension ChunkStream {
    /// At most `limit` rows after the first `offset` (as ``limited(_:offset:)``), calling `done`
    /// once, as soon as the last of them is out or the stream ends: a limit stops pulling, so
    /// what the stream under it holds is let go here rather than when it would have ended.
    func limited(_ limit: Int, offset: Int, whenDone done: @escaping () -> Void) -> ChunkStream {
        let source = limited(limit, offset: offset)
        var remaining = limit
        var finished = false
        func finish() {
            if !finished {
                finished = true
                done()
            }
        }
        if remaining == 0 { finish() }
        return ChunkStream { () throws(SluiceError) -> Chunk? in
            guard remaining > 0, let chunk = try source.next() else {
                finish()
                return nil
            }
            remaining -= chunk.count
            if remaining == 0 { finish() }
            return chunk
        }
    }
}
