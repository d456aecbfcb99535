import SluiceCore

/// `pg_catalog.pg_enum`: the labels of enum types; Sluice has no enum types. SQLAlchemy's
/// reflection and Metabase's sync read it. Always empty.
enum PgEnum: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_enum"
    static let columns: [(String, DataType)] = [("oid", .int32), ("enumtypid", .int32), ("enumsortorder", .float32), ("enumlabel", .varchar)]

    static func rows(in context: SystemTableContext) -> [[Value]] { [] }
}
