import SluiceCore

extension PagedTable {
    /// Rows picked out of a table's pages while scanning them, gathered in one pass at the end
    /// (not a chunk per row): rows to emit, each as often as asked, or rows to take away, each
    /// with its key and the count to take (``take(_:)``).
    package struct Picks {
        private var sources: [Chunk] = []
        /// The key buffer of the last source (telling a new page from the same one).
        private var lastKeys: KeyBuffer?
        private var picks: [(source: Int32, row: Int32)] = []
        private(set) var keys: [[UInt8]] = []
        private(set) var counts: [Int32] = []

        package init() {}

        package var isEmpty: Bool { picks.isEmpty }

        private mutating func source(of contents: StatePage.Contents) -> Int32 {
            if lastKeys.map({ !$0.isSameBuffer(as: contents.keys) }) ?? true {
                sources.append(contents.rows)
                lastKeys = contents.keys
            }
            return Int32(sources.count - 1)
        }

        /// Row `index` of `contents`, `times` times.
        package mutating func add(_ contents: StatePage.Contents, _ index: Int, times: Int) {
            guard times > 0 else { return }
            let source = source(of: contents)
            for _ in 0 ..< times { picks.append((source, Int32(index))) }
        }

        /// Row `index` of `contents`, to take `count` of it away (all of it by default).
        package mutating func remove(_ contents: StatePage.Contents, _ index: Int, count: Int32? = nil) {
            picks.append((source(of: contents), Int32(index)))
            keys.append(contents.keys.key(index))
            counts.append(-(count ?? contents.counts?[index] ?? 1))
        }

        /// The rows picked, in the order picked.
        package func rows(types: [DataType]) -> Chunk {
            Chunk.gather(from: sources, picks: picks, types: types)
        }
    }

    /// Takes away the rows `removals` picked (``Picks/remove(_:_:count:)``) and commits.
    package mutating func take(_ removals: Picks) {
        guard !removals.isEmpty else { return }
        let keys = removals.keys
        stage(removals.rows(types: types), counts: removals.counts) { bytes, row in bytes += keys[row] }
        commitEpoch()
    }
}
