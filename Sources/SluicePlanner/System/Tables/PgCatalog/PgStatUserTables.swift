import SluiceCore

/// `pg_catalog.pg_stat_user_tables`: the tables and materialized views the session's user may
/// see, with the rows they hold now (`n_live_tup`); the other counters are 0. Metabase's sync
/// reads it to size tables.
enum PgStatUserTables: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_stat_user_tables"
    static let columns: [(String, DataType)] = [
        ("relid", .int32), ("schemaname", .varchar), ("relname", .varchar), ("seq_scan", .int64), ("n_tup_ins", .int64),
        ("n_tup_upd", .int64), ("n_tup_del", .int64), ("n_live_tup", .int64), ("n_dead_tup", .int64),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        context.visibleRelations.filter { $0.kind == .table || $0.kind == .materializedView }.map { relation in
            [
                .int32(Int32(relation.id)), .string(relation.schema), .string(relation.name), .int64(0), .int64(0), .int64(0), .int64(0),
                context.session.rowCount(relation.id).map { .int64(Int64($0)) } ?? .null, .int64(0),
            ]
        }
    }
}
