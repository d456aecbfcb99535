import SluiceCore

/// `rw_catalog.rw_functions`: RisingWave's list of user-defined functions; here the SQL functions
/// (`CREATE FUNCTION … LANGUAGE SQL`), with their types as `pg_type` oids.
enum RwFunctions: SystemTable {
    static let schema = SystemSchema.rwCatalog
    static let name = "rw_functions"
    static let columns: [(String, DataType)] = [
        ("id", .int32), ("name", .varchar), ("schema_id", .int32), ("owner", .int32), ("type", .varchar),
        ("arg_type_ids", .list(.int32)), ("return_type_id", .int32), ("language", .varchar), ("link", .varchar), ("body", .varchar),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        context.catalog.functions.map { function in
            [
                .int32(Int32(function.id)), .string(function.name),
                .int32(Int32(context.catalog.schemas[function.schema] ?? Int(SystemCatalog.publicNamespaceOID))), .int32(Int32(function.owner)),
                .string("scalar"), .list(function.parameterTypes.map { .int32($0.oid) }), .int32(function.returnType.oid), .string("sql"), .null,
                .string(function.body),
            ]
        }
    }
}
