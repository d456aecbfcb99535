import Synchronization
import SluiceCore

/// The memory the server's queries hold together, bounded by the server's `--memory-limit`:
/// every ``QueryMemory`` reserves from it as well, so many queries at once cannot together pass
/// what one may not.
package final class ServerQueryMemory: Sendable {
    package let limit: Int
    private let reserved = Atomic<Int>(0)

    package init(limit: Int) {
        self.limit = max(limit, 1)
    }

    /// The bytes the running queries hold.
    package var inUse: Int { reserved.load(ordering: .relaxed) }

    func tryReserve(_ bytes: Int) -> Bool {
        let after = reserved.add(bytes, ordering: .relaxed).newValue
        if after <= limit { return true }
        reserved.subtract(bytes, ordering: .relaxed)
        return false
    }

    func hold(_ bytes: Int) {
        reserved.add(bytes, ordering: .relaxed)
    }

    func release(_ bytes: Int) {
        reserved.subtract(bytes, ordering: .relaxed)
    }
}

/// The memory one query may hold in the rows its operators keep: hash join build sides, sort
/// runs, hash aggregate groups, and the inputs of set operations and the operators that run
/// whole. Each reserves as it grows, from the query's `limit` and from the server's
/// ``ServerQueryMemory``.
///
/// Operators that can spill (sort, top-N, hash aggregate with its DISTINCT pairs, hash join) ask
/// with ``tryReserve(_:)`` and, refused, write what they hold to spill files under
/// ``spillDirectory`` and release it; a sort's run, a top-N's rows and the groups of each level
/// of an aggregate's partitions may always take ``operatorMinimum`` (``tryReserve(_:holding:)``),
/// so they work, spilling, even when the operators below them hold the whole budget. The others
/// ask with ``reserve(_:for:)``, which fails the query with 53200 naming the operator. What a
/// query holds goes back to the server when it ends.
package final class QueryMemory: @unchecked Sendable {
    package let limit: Int
    /// Where spill files go; nil when the query may not spill (it then fails with 53200).
    package let spillDirectory: String?
    private let server: ServerQueryMemory?
    private(set) var reserved = 0
    /// The most reserved at once.
    package private(set) var peak = 0
    /// The bytes written to spill files.
    package private(set) var spilledBytes = 0

    package init(limit: Int, spillDirectory: String? = nil, server: ServerQueryMemory? = nil) {
        self.limit = max(limit, 1)
        self.spillDirectory = spillDirectory
        self.server = server
    }

    deinit {
        server?.release(reserved)
    }

    /// Takes `bytes` more if both the query's limit and the server's allow it.
    func tryReserve(_ bytes: Int) -> Bool {
        guard reserved + bytes <= limit else { return false }
        if let server, !server.tryReserve(bytes) { return false }
        reserved += bytes
        peak = max(peak, reserved)
        return true
    }

    /// The most any operator that spills may hold past the limits: the least a sort's run or a
    /// top-N's rows may always take (an eighth of the query's limit, at most 4 MiB), so that an
    /// operator over one that holds the whole budget still works, spilling in small runs,
    /// instead of failing. Each such operator of a query may hold this much at once.
    var operatorMinimum: Int { min(Self.largestOperatorMinimum, limit / 8) }
    static let largestOperatorMinimum = 4 << 20

    /// Takes `bytes` more if the limits allow it, or else holds them past the limits while the
    /// operator asking, which holds `held` already, stays within ``operatorMinimum``.
    func tryReserve(_ bytes: Int, holding held: Int) -> Bool {
        if tryReserve(bytes) { return true }
        guard held + bytes <= operatorMinimum else { return false }
        hold(bytes)
        return true
    }

    /// Whether what the query holds, and what the server's queries hold, are within their limits.
    var isWithinLimits: Bool { reserved <= limit && server.map { $0.inUse <= $0.limit } ?? true }

    /// Takes `bytes` more for `operation`, or fails with 53200 when that passes the limit.
    func reserve(_ bytes: Int, for operation: String) throws(SluiceError) {
        guard tryReserve(bytes) else {
            let serverFull = reserved + bytes <= limit
            throw SluiceError(
                .outOfMemory, "out of memory",
                detail: serverFull
                    ? "\(operation) needs more memory than the server's queries have left of its memory limit of \(Self.describe(server!.limit))."
                    : "\(operation) needs more than the query memory limit of \(Self.describe(limit)).",
                hint: serverFull ? "Try again once other queries finish, or narrow the query." : "Raise it with SET query_memory_limit, or narrow the query.")
        }
    }

    /// Counts `bytes` an operator already holds although the limit is passed (the groups a
    /// chunk made before the aggregate stops making groups).
    func hold(_ bytes: Int) {
        reserved += bytes
        peak = max(peak, reserved)
        server?.hold(bytes)
    }

    /// Gives back `bytes` an operator no longer holds (it spilled them, or is done).
    func release(_ bytes: Int) {
        let bytes = min(bytes, reserved)
        reserved -= bytes
        server?.release(bytes)
    }

    /// A spill file for rows of `types`, or nil when this query may not spill.
    func spillFile(types: [DataType]) throws(SluiceError) -> ChunkSpillFile? {
        guard let spillDirectory else { return nil }
        return try ChunkSpillFile(in: spillDirectory, types: types)
    }

    func noteSpilled(_ bytes: Int) {
        spilledBytes += bytes
    }

    static func describe(_ bytes: Int) -> String {
        bytes >= 1 << 30 && bytes % (1 << 30) == 0 ? "\(bytes >> 30) GB" : (bytes >= 1 << 20 ? "\(bytes >> 20) MB" : "\(bytes >> 10) kB")
    }
}
