import SluiceCore

/// `pg_catalog.pg_constraint`: a row per primary key of the tables the session's user may see
/// (the only constraints besides NOT NULL), its oid the one after its index's. psql's `\d`,
/// pgjdbc's `getPrimaryKeys`, SQLAlchemy's reflection and Metabase's sync read it.
enum PgConstraint: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_constraint"
    static let columns: [(String, DataType)] = [
        ("oid", .int32), ("conname", .varchar), ("connamespace", .int32), ("contype", .varchar), ("conrelid", .int32),
        ("conindid", .int32), ("confrelid", .int32), ("conkey", .list(.int16)), ("condeferrable", .boolean),
        ("condeferred", .boolean), ("convalidated", .boolean), ("conislocal", .boolean), ("contypid", .int32),
        ("conparentid", .int32), ("confkey", .list(.int16)), ("confupdtype", .varchar), ("confdeltype", .varchar),
        ("confmatchtype", .varchar),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        context.visibleRelations.filter { !$0.primaryKey.isEmpty }.map { relation in
            [
                .int32(Int32(SystemCatalog.primaryKeyIndexOID(relation)) + 1), .string("\(relation.name)_pkey"), .int32(context.namespaceOID(of: relation)),
                .string("p"), .int32(Int32(relation.id)), .int32(Int32(SystemCatalog.primaryKeyIndexOID(relation))), .int32(0),
                .list(relation.primaryKey.map { .int16(Int16($0 + 1)) }), .bool(false),
                .bool(false), .bool(true), .bool(true), .int32(0), .int32(0), .null, .string(" "), .string(" "), .string(" "),
            ]
        }
    }
}
