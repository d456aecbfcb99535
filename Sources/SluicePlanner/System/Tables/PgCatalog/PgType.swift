import SluiceCore

/// `pg_catalog.pg_type`: the built-in types Sluice has (``SystemCatalog/builtinTypes``), all
/// base types in `pg_catalog`. Drivers read it to decode result columns by oid (pgjdbc,
/// SQLAlchemy, Metabase's sync); psql's `\dT` lists it.
enum PgType: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_type"
    static let columns: [(String, DataType)] = [
        ("oid", .int32), ("typname", .varchar), ("typnamespace", .int32), ("typowner", .int32), ("typlen", .int16),
        ("typtype", .varchar), ("typcategory", .varchar), ("typbasetype", .int32), ("typrelid", .int32),
        ("typelem", .int32), ("typarray", .int32), ("typnotnull", .boolean), ("typtypmod", .int32),
        ("typdefault", .varchar), ("typcollation", .int32), ("typinput", .varchar), ("typoutput", .varchar),
        ("typdelim", .varchar),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        SystemCatalog.builtinTypes.map { type in
            [
                .int32(type.oid), .string(type.name), .int32(SystemCatalog.catalogNamespaceOID), .int32(10), .int16(type.length),
                .string("b"), .string(type.category), .int32(0), .int32(0), .int32(type.element), .int32(type.array),
                .bool(false), .int32(-1), .null, .int32(0), .string("\(type.name)in"), .string("\(type.name)out"), .string(","),
            ]
        }
    }
}
