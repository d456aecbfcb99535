import SluiceCore

/// `rw_catalog.rw_fragments`: a fragment per running materialized view or sink (of those the
/// session's user may see), its whole operator graph on one thread: upstreams, rows in and out,
/// errors, state bytes and plan. Operators watching a view's throughput and errors read it
/// (docs/sql.md).
enum RwFragments: SystemTable {
    static let schema = SystemSchema.rwCatalog
    static let name = "rw_fragments"
    static let columns: [(String, DataType)] = [
        ("fragment_id", .int32), ("table_id", .int32), ("name", .varchar), ("upstream_table_ids", .list(.int32)),
        ("row_count", .int64), ("rows_in", .int64), ("errors", .int64), ("last_error", .varchar), ("plan", .varchar),
        ("state_bytes", .int64), ("rows_out", .int64),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        let visibleIDs = context.visibleRelationIDs
        return context.reader.streamingJobs.filter { visibleIDs.contains($0.viewID) }.map { status in
            [
                .int32(Int32(status.viewID)), .int32(Int32(status.viewID)),
                .string(context.catalog.relation(id: status.viewID)?.name ?? ""),
                .list(status.upstreams.map { .int32(Int32($0)) }), .int64(Int64(status.rowCount)), .int64(Int64(status.rowsIn)),
                .int64(Int64(status.errors)), status.lastError.map { .string($0) } ?? .null, .string(status.plan),
                .int64(Int64(status.stateBytes)), .int64(Int64(status.rowsOut)),
            ]
        }
    }
}
