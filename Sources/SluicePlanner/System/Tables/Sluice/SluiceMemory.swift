import SluiceCore

/// `sluice_memory`: one row of the state store's, the queries' and the process's memory use
/// against `--memory-limit`: state pages resident, at peak and spilled, pages evicted and
/// loaded, the process's resident set, and the queries' reservations. Operators size
/// `--memory-limit` with it (docs/operations.md).
enum SluiceMemory: SystemTable {
    static let schema = SystemSchema.sluice
    static let name = "sluice_memory"
    static let columns: [(String, DataType)] = [
        ("limit_bytes", .int64), ("state_resident_bytes", .int64), ("state_peak_resident_bytes", .int64),
        ("state_spilled_bytes", .int64), ("pages_evicted", .int64), ("pages_loaded", .int64), ("process_rss_bytes", .int64),
        ("process_peak_rss_bytes", .int64), ("query_reserved_bytes", .int64), ("query_limit_bytes", .int64),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        let memory = context.reader.memory
        return [
            [
                .int64(Int64(memory.limitBytes)), .int64(Int64(memory.residentBytes)), .int64(Int64(memory.peakResidentBytes)),
                .int64(Int64(memory.spilledBytes)), .int64(Int64(memory.evictedPages)), .int64(Int64(memory.loadedPages)),
                .int64(Int64(memory.processBytes)), .int64(Int64(memory.processPeakBytes)),
                .int64(Int64(memory.queryReservedBytes)), .int64(Int64(memory.queryLimitBytes)),
            ]
        ]
    }
}
