import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

/// GROUP BY: groups input rows by their first `groupCount` columns and folds each aggregate.
///
/// State: a ``GroupTable`` plus one ``AggregateAccumulator`` per aggregate (the functions the
/// stream aggregate uses too), and for each DISTINCT aggregate a table of the (group, value)
/// pairs already seen (``HashAggregator+Distinct``).
///
/// Memory: ``byteCount`` is what the state holds: the groups' table and accumulators, the
/// DISTINCT pairs' tables, and the values `string_agg` and `array_agg` keep; ``slotGrowth(forRows:)``
/// is what the tables' slots take before a chunk is looked up. The caller (the executor's
/// spilling aggregate) reserves both. When they do not fit, it stops the tables growing: from
/// then on rows of keys with no group are handed back by ``consume(_:)`` (to be spilled and
/// aggregated later) and DISTINCT pairs not seen yet are set aside in spill files, to be
/// deduplicated and folded in before ``finish()``. A feed of kept input (aggregates with ORDER
/// BY) reserves it from `memory` itself, failing with 53200.
/// - Complexity: O(rows) per chunk with one hash probe per row, and one more per row of each
///   DISTINCT aggregate.
struct HashAggregator {
    let inputTypes: [DataType]
    let groupCount: Int
    let aggregates: [AggregateCall]
    let context: EvaluationContext
    private var groups: GroupTable
    /// The groups seen so far.
    var groupsSeen: Int { groups.groupCount }
    private var accumulators: [any AggregateAccumulator]
    /// Per aggregate, its DISTINCT state (nil for the others).
    var distinct: [DistinctPairs?]
    /// For aggregates with ORDER BY inside the call: the input is kept and fed sorted at the end;
    /// in memory without a spill directory, else staged (on disk past a few chunks) and put in
    /// order by the external sort, which spills too.
    private var orderedInput: [Chunk] = []
    private var orderedStaging: ChunkStaging?
    let needsOrdering: Bool
    /// Where kept input is staged, and the query's cancel flag for its sort.
    private let spillDirectory: String?
    private let isCancelled: @Sendable () -> Bool
    /// Where the kept values of a feed of kept input reserve; nil reserves nothing.
    private let memory: QueryMemory?
    /// The bytes reserved here (by ``finish()``) for the values a feed of kept input kept.
    private(set) var keptBytes = 0
    /// What the values `string_agg` and `array_agg` keep, about.
    private(set) var keptValueBytes = 0

    /// `spillDirectory` and `level`: where and on which bits of their hash DISTINCT pairs go
    /// once the pairs' tables stop growing.
    init(
        inputTypes: [DataType], groupCount: Int, aggregates: [AggregateCall], context: EvaluationContext, memory: QueryMemory? = nil,
        spillDirectory: String? = nil, level: Int = 0, isCancelled: @escaping @Sendable () -> Bool = { false }
    ) {
        self.memory = memory
        self.spillDirectory = spillDirectory
        self.isCancelled = isCancelled
        self.inputTypes = inputTypes
        self.groupCount = groupCount
        self.aggregates = aggregates
        self.context = context
        self.groups = GroupTable(keyTypes: Array(inputTypes.prefix(groupCount)))
        self.accumulators = aggregates.map {
            AggregateAccumulators.make(kind: $0.kind, argumentType: $0.argument.map { inputTypes[$0] }, resultType: $0.resultType)
        }
        self.distinct = aggregates.map { call in
            guard call.distinct, let argument = call.argument else { return nil }
            // (Pairs set aside carry no delimiter: string_agg(DISTINCT …, delimiter) keeps its own.)
            return DistinctPairs(valueType: inputTypes[argument], spillDirectory: call.delimiter == nil ? spillDirectory : nil, level: level)
        }
        self.needsOrdering = aggregates.contains { !$0.orderBy.isEmpty }
    }

    /// The bytes the state holds, about: ``groupBytes`` and ``pairBytes``.
    var byteCount: Int { groupBytes + pairBytes }

    /// The bytes the groups hold, about: their table, the accumulators (at 16 bytes a group and
    /// aggregate) and the values string_agg and array_agg keep.
    var groupBytes: Int { groups.byteCount + 16 * aggregates.count * groups.groupCount + keptValueBytes }

    /// The bytes the DISTINCT aggregates' tables of seen pairs hold.
    var pairBytes: Int { distinct.reduce(0) { $0 + ($1?.byteCount ?? 0) } }

    /// What the groups' table's slots grow by before `rows` more rows are looked up.
    func groupSlotGrowth(forRows rows: Int) -> Int { groups.slotGrowth(forRows: rows) }

    /// What the pairs' tables' slots grow by before `rows` more rows are looked up.
    func pairSlotGrowth(forRows rows: Int) -> Int { distinct.reduce(0) { $0 + ($1?.slotGrowth(forRows: rows) ?? 0) } }

    /// Whether a DISTINCT aggregate's table of pairs still grows and could set pairs aside instead.
    var pairsCanStopGrowing: Bool { distinct.contains { $0?.isGrowing == true && $0?.canSpill == true } }

    /// From now on the DISTINCT aggregates that can set pairs aside do so with pairs not seen.
    mutating func stopGrowingPairs() {
        for index in distinct.indices where distinct[index]?.isGrowing == true && distinct[index]?.canSpill == true {
            distinct[index]!.stopGrowing()
        }
    }

    /// Folds `chunk` into the groups. Once ``stopMakingGroups()`` was called, the rows of keys
    /// with no group yet are left out and returned.
    mutating func consume(_ chunk: Chunk) throws(SluiceError) -> Chunk? {
        if needsOrdering {
            if let spillDirectory, memory != nil {
                if orderedStaging == nil { orderedStaging = ChunkStaging(types: inputTypes, spillDirectory: spillDirectory) }
                try orderedStaging?.append(chunk)
            } else {
                orderedInput.append(chunk)
            }
            return nil
        }
        return try feed(chunk)
    }

    /// Whether new keys still start groups.
    var makesGroups: Bool { groups.acceptsNewGroups }

    /// From now on, rows whose key has no group are not aggregated but handed back by
    /// ``consume(_:)`` (the aggregate has no memory for more groups).
    mutating func stopMakingGroups() {
        groups.acceptsNewGroups = false
    }

    /// Folds `chunk` into the aggregates `only` names (all when nil).
    private mutating func feed(_ chunk: Chunk, only: [Int]? = nil) throws(SluiceError) -> Chunk? {
        let ids = groups.groupIDs(for: chunk)
        // The rows with a group, when some have none.
        var present: [Int]? = nil
        var rest: Chunk? = nil
        if !groups.acceptsNewGroups, ids.contains(-1) {
            present = ids.indices.filter { ids[$0] >= 0 }
            rest = chunk.gather(ids.indices.filter { ids[$0] < 0 })
        }
        var grown = 0
        for (index, call) in aggregates.enumerated() where only?.contains(index) ?? true {
            var rows: [Int]? = present
            if let filter = call.filter {
                let mask = ExpressionEvaluator.mask(of: chunk.columns[filter])
                rows = (rows ?? Array(0 ..< chunk.count)).filter { mask[$0] }
            }
            if distinct[index] != nil, let argument = call.argument {
                rows = try distinct[index]!.firstSeen(chunk, argument: argument, groups: ids, rows: rows)
            }
            if call.kind == .stringAgg || call.kind == .arrayAgg, let argument = call.argument, chunk.count > 0 {
                // The argument's share of the chunk's bytes, and a boxed value per array element.
                let fed = rows?.count ?? chunk.count
                grown += chunk.columns[argument].approximateBytes * fed / chunk.count + (call.kind == .arrayAgg ? 40 * fed : 0)
            }
            try accumulators[index].update(
                groups: ids, rowCount: chunk.count, groupCount: groups.groupCount, argument: call.argument.map { chunk.columns[$0] },
                delimiter: call.delimiter.map { chunk.columns[$0] }, signs: nil, rows: rows)
        }
        keptValueBytes += grown
        return rest
    }

    /// Folds distinct (group, value) pairs of aggregate `index` (a bigint group number and the
    /// value, as ``DistinctPairs`` sets them aside) that it has not seen into its accumulator.
    mutating func feedDistinct(_ pairs: Chunk, into index: Int) throws(SluiceError) {
        guard case .int64(let numbers) = pairs.columns[0].storage else { throw SluiceError.internalError("distinct pairs' groups are not bigint") }
        let ids = groupCount == 0 ? [] : numbers.map { Int32(truncatingIfNeeded: $0) }
        let call = aggregates[index]
        if call.kind == .stringAgg || call.kind == .arrayAgg {
            keptValueBytes += pairs.columns[1].approximateBytes + (call.kind == .arrayAgg ? 40 * pairs.count : 0)
        }
        try accumulators[index].update(
            groups: ids, rowCount: pairs.count, groupCount: groups.groupCount, argument: pairs.columns[1], delimiter: nil, signs: nil, rows: nil)
    }

    /// What `string_agg`, `array_agg` and DISTINCT aggregates hold, as named in 53200 errors.
    static let keptValues = "the aggregate keeping its values (string_agg, array_agg, DISTINCT)"

    /// Every group's row: its keys, then one column per aggregate, in one chunk (sliced as it
    /// is read: slices made at once would hold the rows twice).
    mutating func finish() throws(SluiceError) -> Chunk {
        if needsOrdering {
            // One pass over the kept input per distinct ORDER BY, sorted that way, feeding the
            // aggregates with that order (and, in the first, those without one).
            var overdraft = 0
            var orderings: [[SortKey]] = []
            for call in aggregates where !call.orderBy.isEmpty && !orderings.contains(call.orderBy) { orderings.append(call.orderBy) }
            for (pass, keys) in orderings.enumerated() {
                let members = aggregates.indices.filter { aggregates[$0].orderBy == keys || (pass == 0 && aggregates[$0].orderBy.isEmpty) }
                let sorted: ChunkStream
                if let staging = orderedStaging, let memory {
                    sorted = try ExternalSort(types: inputTypes, keys: keys, memory: memory, isCancelled: isCancelled).sort(try staging.chunks())
                } else {
                    sorted = ChunkStream.of(Sorter.sort(orderedInput, types: inputTypes, keys: keys))
                }
                while let chunk = try sorted.next() {
                    _ = try feed(chunk, only: members)
                    let kept = keptValueBytes + distinct.reduce(0) { $0 + ($1?.byteCount ?? 0) }
                    if let memory, kept > keptBytes {
                        let growth = kept - keptBytes
                        if memory.tryReserve(growth) {
                            // (Reserved.)
                        } else if orderedStaging != nil, overdraft + growth <= memory.limit {
                            // The spilling sort under the feed may hold the whole budget: the
                            // values kept may then grow by one more limit, as they may while
                            // an aggregate spills its groups.
                            memory.hold(growth)
                            overdraft += growth
                        } else {
                            try memory.reserve(growth, for: Self.keptValues)
                        }
                        keptBytes = kept
                    }
                }
            }
            orderedInput = []
            orderedStaging?.discard()
            orderedStaging = nil
        }
        let count = groups.groupCount
        var columns = groups.keyColumnsOutput(types: Array(inputTypes.prefix(groupCount)))
        for accumulator in accumulators { columns.append(try accumulator.finish(groupCount: count)) }
        return Chunk(columns: columns, count: count)
    }
}
