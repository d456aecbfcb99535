import SluiceCore
import SluiceExpr

extension HashAggregator {
    /// The (group, value) pairs one DISTINCT aggregate has seen: a ``GroupTable`` keyed by the
    /// group's number (bigint) and the value, so a row is folded in only when its pair is new.
    ///
    /// Past the query's memory the table stops growing (``stopGrowing()``): a row whose pair it
    /// has is still left out, and a row whose pair it does not have is written, as a (group,
    /// value) pair, to spill files partitioned by the pair's hash instead of being folded in. The
    /// pairs in the files were never folded in; each file is deduplicated on its own (a hash
    /// aggregate, itself spilling) and folded in before the aggregate finishes
    /// (``HashAggregator/feedDistinct(_:into:)``), so the answer stays exact and the memory
    /// bounded whatever the number of distinct values.
    /// - Complexity: O(rows) per chunk: one hash probe per row with a non-null value.
    struct DistinctPairs {
        let valueType: DataType
        private var table: GroupTable
        private let spillDirectory: String?
        private let level: Int
        private var spill: PartitionedSpill?

        init(valueType: DataType, spillDirectory: String?, level: Int) {
            self.valueType = valueType
            self.spillDirectory = spillDirectory
            self.level = min(level, PartitionedSpill.maximumLevel)
            table = GroupTable(keyTypes: [.int64, valueType], keepsKeysForOutput: false)
        }

        /// The types of the pairs set aside: the group's number and the value.
        var pairTypes: [DataType] { [.int64, valueType] }

        var byteCount: Int { table.byteCount }

        func slotGrowth(forRows rows: Int) -> Int { table.slotGrowth(forRows: rows) }

        /// Whether pairs not seen yet still enter the table (rather than spill files).
        var isGrowing: Bool { table.acceptsNewGroups }

        /// Whether ``stopGrowing()`` may be called: the query may spill.
        var canSpill: Bool { spillDirectory != nil }

        /// From now on pairs not seen go to spill files.
        mutating func stopGrowing() {
            precondition(canSpill, "a DISTINCT aggregate stopped growing without a spill directory")
            table.acceptsNewGroups = false
        }

        /// Of `rows` of `chunk` (all when nil) whose `argument` is not null, the first row of
        /// each (group, value) pair not seen before, in row order; `groups` gives each row's
        /// group (empty: all in group 0). Pairs not seen while the table is not growing are set
        /// aside instead.
        mutating func firstSeen(_ chunk: Chunk, argument: Int, groups: [Int32], rows: [Int]?) throws(SluiceError) -> [Int] {
            let values = chunk.columns[argument]
            let candidates = (rows ?? Array(0 ..< chunk.count)).filter { !values.isNull($0) }
            guard !candidates.isEmpty else { return [] }
            let numbers = groups.isEmpty ? [Int64](repeating: 0, count: candidates.count) : candidates.map { Int64(groups[$0]) }
            let pairs = Chunk(columns: [Column(type: .int64, storage: .int64(numbers)), values.gather(candidates)], count: candidates.count)
            let before = table.groupCount
            let ids = table.groupIDs(for: pairs)
            var fresh = [Bool](repeating: false, count: table.groupCount - before)
            var first: [Int] = []
            var unseen: [Int] = []
            for (position, id) in ids.enumerated() {
                if id < 0 {
                    unseen.append(position)
                } else if Int(id) >= before, !fresh[Int(id) - before] {
                    fresh[Int(id) - before] = true
                    first.append(candidates[position])
                }
            }
            if !unseen.isEmpty {
                if spill == nil {
                    spill = try PartitionedSpill(in: spillDirectory!, types: pairTypes, keys: [0, 1], level: level)
                }
                try spill!.append(pairs.gather(unseen))
            }
            return first
        }

        /// The files of the pairs set aside (none when all fitted). The table is let go: every
        /// pair in it was folded in, and none in the files is in it.
        mutating func finish() throws(SluiceError) -> [ChunkSpillFile] {
            table = GroupTable(keyTypes: [.int64, valueType], keepsKeysForOutput: false)
            defer { spill = nil }
            return try spill?.finish() ?? []
        }
    }
}
