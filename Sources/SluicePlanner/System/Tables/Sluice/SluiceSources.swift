import SluiceCore

/// `sluice_sources`: a row per running source connector (of the sources and tables the session's
/// user may see), with its counters: rows read, rejected as malformed, dropped behind the
/// watermark and dropped as repeats by `dedup.key`, bytes read, lag, and its status (secrets
/// masked). Operators and the end-to-end tests watch ingestion with it.
enum SluiceSources: SystemTable {
    static let schema = SystemSchema.sluice
    static let name = "sluice_sources"
    static let columns: [(String, DataType)] = [
        ("id", .int32), ("name", .varchar), ("kind", .varchar), ("connector", .varchar), ("rows_read", .int64),
        ("rows_rejected", .int64), ("status", .varchar), ("rows_late", .int64), ("bytes_read", .int64), ("lag", .int64),
        ("rows_deduplicated", .int64),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        let visibleIDs = context.visibleRelationIDs
        return context.reader.sources.compactMap { status in
            guard visibleIDs.contains(status.relationID), let relation = context.catalog.relation(id: status.relationID) else { return nil }
            return [
                .int32(Int32(relation.id)), .string(relation.name), .string(relation.kind.rawValue),
                .string(relation.connector?.connector ?? ""), .int64(Int64(status.rowsRead)), .int64(Int64(status.rowsRejected)),
                .string(status.status), .int64(Int64(status.rowsLate)), .int64(Int64(status.bytesRead)),
                status.lag.map { .int64(Int64($0)) } ?? .null, .int64(Int64(status.rowsDeduplicated)),
            ]
        }
    }
}
