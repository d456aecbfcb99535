import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

/// GROUP BY: groups input rows by their first `groupCount` columns and folds each aggregate.
///
/// State: a ``GroupTable`` plus one ``AggregateAccumulator`` per aggregate (the functions the
/// stream aggregate uses too), and for DISTINCT aggregates
/// the set of (group, value) pairs already seen.
///
/// Memory: the values `string_agg` and `array_agg` keep and the pairs DISTINCT aggregates have
/// seen grow with the input, not with the groups. ``consume(_:)`` counts what they grew by
/// (``takeKeptGrowth()``) for the caller to reserve along with the groups, and a feed of kept
/// input (aggregates with ORDER BY) reserves it from `memory` itself, failing with 53200.
/// - Complexity: O(rows) per chunk with one hash probe per row.
struct HashAggregator {
    let inputTypes: [DataType]
    let groupCount: Int
    let aggregates: [AggregateCall]
    let context: EvaluationContext
    private var groups: GroupTable
    /// The groups seen so far.
    var groupsSeen: Int { groups.groupCount }
    private var accumulators: [any AggregateAccumulator]
    private var distinctSeen: [Set<KeyBytes>]
    /// For aggregates with ORDER BY inside the call: the input is kept and fed sorted at the end.
    private var orderedInput: [Chunk] = []
    let needsOrdering: Bool
    /// Where the kept values of a feed of kept input reserve; nil reserves nothing.
    private let memory: QueryMemory?
    /// The bytes reserved here for kept values and seen DISTINCT pairs.
    private(set) var keptBytes = 0
    /// What the kept values grew by since ``takeKeptGrowth()``, not reserved yet.
    private var keptGrowth = 0

    init(inputTypes: [DataType], groupCount: Int, aggregates: [AggregateCall], context: EvaluationContext, memory: QueryMemory? = nil) {
        self.memory = memory
        self.inputTypes = inputTypes
        self.groupCount = groupCount
        self.aggregates = aggregates
        self.context = context
        self.groups = GroupTable(keyTypes: Array(inputTypes.prefix(groupCount)))
        self.accumulators = aggregates.map {
            AggregateAccumulators.make(kind: $0.kind, argumentType: $0.argument.map { inputTypes[$0] }, resultType: $0.resultType)
        }
        self.distinctSeen = aggregates.map { _ in [] }
        self.needsOrdering = aggregates.contains { !$0.orderBy.isEmpty }
    }

    /// Folds `chunk` into the groups. Once ``stopMakingGroups()`` was called, the rows of keys
    /// with no group yet are left out and returned.
    mutating func consume(_ chunk: Chunk) throws(SluiceError) -> Chunk? {
        if needsOrdering {
            orderedInput.append(chunk)
            return nil
        }
        return try feed(chunk)
    }

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
            if call.distinct, let argument = call.argument {
                var kept: [Int] = []
                for rowIndex in rows ?? Array(0 ..< chunk.count) where !chunk.columns[argument].isNull(rowIndex) {
                    var key = KeyBytes(chunk, row: rowIndex, columns: [argument])
                    withUnsafeBytes(of: ids.isEmpty ? Int32(0) : ids[rowIndex]) { key.bytes.append(contentsOf: $0) }
                    if distinctSeen[index].insert(key).inserted {
                        kept.append(rowIndex)
                        grown += key.bytes.count + 48
                    }
                }
                rows = kept
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
        keptGrowth += grown
        return rest
    }

    /// What the kept values grew by since the last call, for the caller to reserve.
    mutating func takeKeptGrowth() -> Int {
        defer { keptGrowth = 0 }
        return keptGrowth
    }

    /// What `string_agg`, `array_agg` and DISTINCT aggregates hold, as named in 53200 errors.
    static let keptValues = "the aggregate keeping its values (string_agg, array_agg, DISTINCT)"

    mutating func finish() throws(SluiceError) -> [Chunk] {
        if needsOrdering {
            // One pass over the kept input per distinct ORDER BY, sorted that way, feeding the
            // aggregates with that order (and, in the first, those without one).
            var orderings: [[SortKey]] = []
            for call in aggregates where !call.orderBy.isEmpty && !orderings.contains(call.orderBy) { orderings.append(call.orderBy) }
            for (pass, keys) in orderings.enumerated() {
                let members = aggregates.indices.filter { aggregates[$0].orderBy == keys || (pass == 0 && aggregates[$0].orderBy.isEmpty) }
                for chunk in Sorter.sort(orderedInput, types: inputTypes, keys: keys) {
                    _ = try feed(chunk, only: members)
                    let grown = takeKeptGrowth()
                    if grown > 0, let memory {
                        try memory.reserve(grown, for: Self.keptValues)
                        keptBytes += grown
                    }
                }
            }
            orderedInput = []
        }
        let count = groups.groupCount
        var columns = groups.keyColumnsOutput(types: Array(inputTypes.prefix(groupCount)))
        for accumulator in accumulators { columns.append(try accumulator.finish(groupCount: count)) }
        let all = Chunk(columns: columns, count: count)
        if count <= Chunk.preferredSize { return count == 0 ? [] : [all] }
        return stride(from: 0, to: count, by: Chunk.preferredSize).map { all.slice($0 ..< min(count, $0 + Chunk.preferredSize)) }
    }
}
