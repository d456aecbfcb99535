import SluiceCore

/// `sluice_memory_by_owner`: a row per holder of the process's memory (``MemoryStatus/byOwner``):
/// the state pages, the queries' operators, the ledger's owners, the rest, and the process's
/// resident set and its peak. Operators find what holds memory with it (docs/operations.md).
enum SluiceMemoryByOwner: SystemTable {
    static let schema = SystemSchema.sluice
    static let name = "sluice_memory_by_owner"
    static let columns: [(String, DataType)] = [("owner", .varchar), ("bytes", .int64)]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        context.reader.memory.byOwner.map { [.string($0.owner), .int64(Int64($0.bytes))] }
    }
}
