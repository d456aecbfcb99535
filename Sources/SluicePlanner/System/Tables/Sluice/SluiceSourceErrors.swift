import SluiceCore

/// `sluice_source_errors`: a row per kept rejected row of the running source connectors (of the
/// sources and tables the session's user may see): the newest 1,000 per connector, with
/// partition, offset, error (secrets masked) and payload; `sluice_sources.rows_rejected` counts
/// them all. Operators find out why rows were rejected with it.
enum SluiceSourceErrors: SystemTable {
    static let schema = SystemSchema.sluice
    static let name = "sluice_source_errors"
    static let columns: [(String, DataType)] = [
        ("source_id", .int32), ("source_name", .varchar), ("partition", .int32), ("offset", .int64), ("error", .varchar),
        ("payload", .varchar), ("rejected_at", .timestamptz),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        let visibleIDs = context.visibleRelationIDs
        return context.reader.sources.flatMap { status -> [[Value]] in
            guard visibleIDs.contains(status.relationID), let relation = context.catalog.relation(id: status.relationID) else { return [] }
            return status.errors.map { error in
                [
                    .int32(Int32(relation.id)), .string(relation.name), .int32(error.partition), .int64(error.offset),
                    .string(error.message), .string(error.payload), .timestamptz(error.rejectedAt),
                ]
            }
        }
    }
}
