import SluiceCore

/// `pg_catalog.pg_event_trigger`: event triggers; Sluice has none. psql's `\dy` reads it. Always
/// empty.
enum PgEventTrigger: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_event_trigger"
    static let columns: [(String, DataType)] = [
        ("oid", .int32), ("evtname", .varchar), ("evtevent", .varchar), ("evtowner", .int32), ("evtfoid", .int32),
        ("evtenabled", .varchar),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] { [] }
}
