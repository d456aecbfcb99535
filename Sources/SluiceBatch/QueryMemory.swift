import SluiceCore

/// The memory one query may hold in the rows its operators keep: hash join build sides, the
/// inputs of sorts, set operations and the operators that run whole, and hash aggregate groups.
/// Each reserves as it grows; past the limit the query fails with 53200 naming the operator,
/// instead of growing until the kernel kills the server. (Spilling to disk is next: the hash
/// join, aggregate and sort are to spill rather than fail.)
package final class QueryMemory: @unchecked Sendable {
    package let limit: Int
    private(set) var reserved = 0
    /// The most reserved at once.
    package private(set) var peak = 0

    package init(limit: Int) {
        self.limit = max(limit, 1)
    }

    /// Takes `bytes` more for `operation`, or fails with 53200 when that passes the limit.
    func reserve(_ bytes: Int, for operation: String) throws(SluiceError) {
        reserved += bytes
        peak = max(peak, reserved)
        guard reserved <= limit else {
            throw SluiceError(
                .outOfMemory, "out of memory",
                detail: "\(operation) needs more than the query memory limit of \(Self.describe(limit)).",
                hint: "Raise it with SET query_memory_limit, or narrow the query.")
        }
    }

    static func describe(_ bytes: Int) -> String {
        bytes >= 1 << 30 && bytes % (1 << 30) == 0 ? "\(bytes >> 30) GB" : (bytes >= 1 << 20 ? "\(bytes >> 20) MB" : "\(bytes >> 10) kB")
    }
}
