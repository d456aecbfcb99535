import SluiceCore

/// `pg_catalog.pg_depend`: dependencies between objects; Sluice keeps them in its catalog instead.
/// psql's `\d` and SQLAlchemy's reflection join it. Always empty.
enum PgDepend: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_depend"
    static let columns: [(String, DataType)] = [
        ("classid", .int32), ("objid", .int32), ("objsubid", .int32), ("refclassid", .int32), ("refobjid", .int32),
        ("refobjsubid", .int32), ("deptype", .varchar),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] { [] }
}
