import SluiceCore

/// `pg_catalog.pg_opclass`: operator classes; Sluice's btree indexes name none. psql's `\dAc` and
/// GUI clients read it. Always empty.
enum PgOpclass: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_opclass"
    static let columns: [(String, DataType)] = [
        ("oid", .int32), ("opcname", .varchar), ("opcnamespace", .int32), ("opcmethod", .int32), ("opcdefault", .boolean),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] { [] }
}
