import SluiceCore

/// `rw_catalog.rw_ddl_progress`: RisingWave's, a row per materialized view or sink (of those the
/// session's user may see) still backfilling from the rows its inputs held at CREATE, with the
/// share done (`42.50%`). Scripts waiting for a backfill to finish read it, as on RisingWave.
enum RwDdlProgress: SystemTable {
    static let schema = SystemSchema.rwCatalog
    static let name = "rw_ddl_progress"
    static let columns: [(String, DataType)] = [
        ("ddl_id", .int64), ("ddl_statement", .varchar), ("progress", .varchar), ("initialized_at", .timestamptz),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        let visibleIDs = context.visibleRelationIDs
        return context.reader.streamingJobs.filter { $0.isBackfilling && visibleIDs.contains($0.viewID) }.map { status in
            let percent = Double(status.backfilledRows) * 100 / Double(max(status.backfillRows, 1))
            let statement = context.catalog.relation(id: status.viewID)?.maskedDefinition ?? ""
            let hundredths = Int((percent * 100).rounded(.down))
            let fraction = hundredths % 100
            return [
                .int64(Int64(status.viewID)), .string(statement),
                .string("\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)%"), .timestamptz(status.createdAt),
            ]
        }
    }
}
