import SluiceCore
import SluiceExpr
import SluicePlan

extension BatchExecutor {
    /// GROUP BY, bounded by the query's memory: the groups in memory while they fit; past
    /// that, the rows of groups not yet in memory go to partitions on disk, and each partition
    /// is aggregated after the groups in memory are out. (Every row of a group is aggregated in
    /// one place, so every aggregate works unchanged.) A DISTINCT aggregate's pairs not seen
    /// by then go to spill files of their own (``HashAggregator/DistinctPairs``), which are
    /// deduplicated, a partition at a time, and folded in before the groups are out: a
    /// `count(DISTINCT …)` of any number of values, with or without groups, holds what the
    /// query's memory allows.
    ///
    /// What the state holds (``HashAggregator/byteCount``, the tables' slots reserved before they
    /// grow) is reserved as it grows; the groups a chunk made before the limit was found passed
    /// are held. Past the limit only the values `string_agg` and `array_agg` keep still grow, by
    /// at most one more limit, and fail with 53200 past that, as groups do when no spill
    /// directory is given or the partitions ran out of hash bits. The groups' rows go out a
    /// chunk at a time, their bytes held until the last is read.
    /// - Complexity: O(rows) per chunk (a hash probe per row and DISTINCT aggregate); each
    ///   row spilled is written and read once per level of partitioning.
    func hashAggregate(_ source: ChunkStream, inputTypes: [DataType], groupCount: Int, aggregates: [AggregateCall], level: Int = 0) throws(SluiceError) -> ChunkStream {
        var aggregator = HashAggregator(
            inputTypes: inputTypes, groupCount: groupCount, aggregates: aggregates, context: context, memory: memory,
            spillDirectory: memory.spillDirectory, level: level, isCancelled: isCancelled)
        let directory = memory.spillDirectory
        let spillsGroups = groupCount > 0 && level <= PartitionedSpill.maximumLevel && directory != nil && !aggregator.needsOrdering
        let spillsPairs = directory != nil && !aggregator.needsOrdering
        let groupsName = "the hash aggregate's groups"
        // The rows of keys with no group in memory.
        var spill: PartitionedSpill?
        // The bytes reserved or held for the groups (whose growth may always take the
        // operators' minimum, so that every level of partitions makes groups), for the pairs'
        // tables, and for the input that aggregates with ORDER BY keep.
        var groupsHeld = aggregator.groupBytes
        var pairsHeld = aggregator.pairBytes
        memory.hold(groupsHeld + pairsHeld)
        var inputHeld = 0
        // What the kept values grew by past the limit once the groups stopped growing.
        var overdraft = 0
        func stopMakingGroups() throws(SluiceError) {
            aggregator.stopMakingGroups()
            spill = try PartitionedSpill(in: directory!, types: inputTypes, keys: Array(0 ..< groupCount), level: level)
        }
        while let chunk = try source.next() {
            if isCancelled() { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
            if aggregator.needsOrdering && directory == nil {
                // Aggregates with ORDER BY keep their input until it is all in: in memory without
                // a spill directory (with one, staged on disk and put in order by the spilling sort).
                try memory.reserve(chunk.approximateBytes, for: "the ordered aggregate's input")
                inputHeld += chunk.approximateBytes
            }
            // The tables' slots for this chunk, before they grow (a table doubles at once).
            let pairGrowth = aggregator.pairSlotGrowth(forRows: chunk.count)
            if pairGrowth > 0 && !memory.tryReserve(pairGrowth) {
                if spillsPairs && aggregator.pairsCanStopGrowing { aggregator.stopGrowingPairs() }
                let rest = aggregator.pairSlotGrowth(forRows: chunk.count)
                if rest > 0 { try memory.reserve(rest, for: HashAggregator.keptValues) }
                pairsHeld += rest
            } else {
                pairsHeld += pairGrowth
            }
            let groupGrowth = aggregator.groupSlotGrowth(forRows: chunk.count)
            if groupGrowth > 0 && !memory.tryReserve(groupGrowth, holding: groupsHeld) {
                if spillsGroups && aggregator.makesGroups && aggregator.groupsSeen > 0 {
                    try stopMakingGroups()
                } else if spillsGroups {
                    // A level of partitions makes the groups of its first chunk, whatever it
                    // holds: it always gets somewhere.
                    memory.hold(groupGrowth)
                    groupsHeld += groupGrowth
                } else {
                    try memory.reserve(groupGrowth, for: groupsName)
                    groupsHeld += groupGrowth
                }
            } else {
                groupsHeld += groupGrowth
            }
            if let rest = try aggregator.consume(chunk) { try spill!.append(rest) }
            // What the chunk's new pairs and groups took besides slots: held if it was made
            // past the limit, when the table then stops growing.
            let pairs = aggregator.pairBytes
            if pairs > pairsHeld {
                let bytes = pairs - pairsHeld
                if memory.tryReserve(bytes) {
                    // (Reserved.)
                } else if spillsPairs && aggregator.pairsCanStopGrowing {
                    memory.hold(bytes)
                    aggregator.stopGrowingPairs()
                } else {
                    try memory.reserve(bytes, for: HashAggregator.keptValues)
                }
                pairsHeld = pairs
            }
            let groups = aggregator.groupBytes
            if groups > groupsHeld {
                let bytes = groups - groupsHeld
                if memory.tryReserve(bytes, holding: groupsHeld) {
                    // (Reserved, or held within the operators' minimum.)
                } else if spillsGroups && aggregator.makesGroups {
                    memory.hold(bytes)
                    try stopMakingGroups()
                } else if aggregator.keptValueBytes > 0, spill != nil, overdraft + bytes <= memory.limit {
                    // Only the values string_agg and array_agg keep for the groups in memory grow.
                    memory.hold(bytes)
                    overdraft += bytes
                } else {
                    try memory.reserve(bytes, for: aggregator.keptValueBytes > 0 ? HashAggregator.keptValues : groupsName)
                }
                groupsHeld = groups
            }
        }
        var held = groupsHeld + pairsHeld
        try foldSetAsidePairs(into: &aggregator, held: &held, level: level)
        let output = try aggregator.finish()
        // The state is let go for the output, held until its last chunk is read.
        let outputBytes = output.approximateBytes
        memory.release(held + inputHeld + aggregator.keptBytes)
        memory.hold(outputBytes)
        let groups = ChunkStream.slices(of: output, releasing: outputBytes, from: memory)
        guard let spill else { return groups }
        let files = try spill.finish()
        memory.noteSpilled(files.reduce(0) { $0 + $1.byteCount })
        return ChunkStream.concatenating(count: files.count + 1) { (part: Int) throws(SluiceError) -> ChunkStream in
            if part == 0 { return groups }
            return try hashAggregate(
                try files[part - 1].chunks(), inputTypes: inputTypes, groupCount: groupCount, aggregates: aggregates, level: level + 1)
        }
    }

    /// Folds the DISTINCT pairs `aggregator` set aside into its aggregates: once every pairs'
    /// table is let go, each file of pairs is deduplicated by a hash aggregate (spilling on the
    /// next bits of the pairs' hash) and the distinct pairs folded in. `held` is what is
    /// reserved for the aggregator's state, kept equal to its ``HashAggregator/byteCount``.
    private func foldSetAsidePairs(into aggregator: inout HashAggregator, held: inout Int, level: Int) throws(SluiceError) {
        var setAside: [(index: Int, files: [ChunkSpillFile], types: [DataType])] = []
        for index in aggregator.distinct.indices {
            guard let types = aggregator.distinct[index]?.pairTypes, let files = try aggregator.distinct[index]?.finish(), !files.isEmpty else { continue }
            setAside.append((index, files, types))
        }
        let now = aggregator.byteCount
        if now < held {
            memory.release(held - now)
            held = now
        }
        for (index, files, types) in setAside {
            memory.noteSpilled(files.reduce(0) { $0 + $1.byteCount })
            for file in files {
                let pairs = try hashAggregate(try file.chunks(), inputTypes: types, groupCount: 2, aggregates: [], level: level + 1)
                while let chunk = try pairs.next() {
                    if isCancelled() { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
                    try aggregator.feedDistinct(chunk, into: index)
                    // (array_agg and string_agg of distinct values keep them.)
                    let grown = aggregator.byteCount - held
                    if grown > 0 {
                        try memory.reserve(grown, for: HashAggregator.keptValues)
                        held += grown
                    }
                }
            }
        }
    }
}
