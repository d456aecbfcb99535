import SluiceCore

/// `pg_catalog.pg_attribute`: a row per column of each relation the session's user may see, with
/// its type, type modifier (`numeric(p,s)`) and NOT NULL. psql's `\d`, pgjdbc's `getColumns`,
/// SQLAlchemy's reflection and Metabase's sync read it.
enum PgAttribute: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_attribute"
    static let columns: [(String, DataType)] = [
        ("attrelid", .int32), ("attname", .varchar), ("atttypid", .int32), ("atttypmod", .int32), ("attnum", .int16),
        ("attnotnull", .boolean), ("attisdropped", .boolean), ("atthasdef", .boolean), ("attidentity", .varchar),
        ("attgenerated", .varchar), ("attcollation", .int32), ("attlen", .int16), ("attndims", .int32),
        ("attislocal", .boolean), ("attoptions", .varchar), ("attstorage", .varchar), ("attcompression", .varchar),
        ("attstattarget", .int16), ("attacl", .list(.varchar)),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        var rows: [[Value]] = []
        for relation in context.visibleRelations {
            for (index, column) in relation.columns.enumerated() {
                rows.append([
                    .int32(Int32(relation.id)), .string(column.name), .int32(column.type.oid), .int32(SystemCatalog.typeModifier(column.type)),
                    .int16(Int16(index + 1)), .bool(!column.isNullable), .bool(false), .bool(false), .string(""), .string(""),
                    .int32(0), .int16(column.type.typeLength), .int32(0), .bool(true), .null,
                    .string(column.type.storage), .string(""), .int16(-1), .null,
                ])
            }
        }
        return rows
    }
}
