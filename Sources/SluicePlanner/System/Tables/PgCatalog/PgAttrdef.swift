import SluiceCore

/// `pg_catalog.pg_attrdef`: column defaults (a default shows in
/// `information_schema.columns.column_default`). psql's `\d` and SQLAlchemy's reflection join it.
/// Always empty.
enum PgAttrdef: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_attrdef"
    static let columns: [(String, DataType)] = [("oid", .int32), ("adrelid", .int32), ("adnum", .int16), ("adbin", .varchar)]

    static func rows(in context: SystemTableContext) -> [[Value]] { [] }
}
