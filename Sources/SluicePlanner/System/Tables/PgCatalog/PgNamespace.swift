import SluiceCore

/// `pg_catalog.pg_namespace`: the schemas, `pg_catalog` and `information_schema` first, then the
/// user schemas by oid, with their owners and grants. psql's `\dn` and `\d`, pgjdbc's
/// `DatabaseMetaData` and SQLAlchemy's reflection join it to name a relation's schema.
enum PgNamespace: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_namespace"
    static let columns: [(String, DataType)] = [("oid", .int32), ("nspname", .varchar), ("nspowner", .int32), ("nspacl", .list(.varchar))]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        [
            [.int32(SystemCatalog.catalogNamespaceOID), .string("pg_catalog"), .int32(10), .null],
            [.int32(SystemCatalog.informationSchemaOID), .string("information_schema"), .int32(10), .null],
        ] + context.catalog.schemas.sorted { $0.value < $1.value }.map { name, oid in
            let access = context.catalog.schemaAccess(name)
            return [.int32(Int32(oid)), .string(name), .int32(Int32(access.owner)), context.aclValue(access, .schema)]
        }
    }
}
