import SluiceCore

/// `pg_catalog.pg_class`: a row per relation the session's user may see (tables, views,
/// materialized views, sources, sinks), per primary key index (`<table>_pkey`) and per secondary
/// index. psql's `\d` family, pgjdbc's `DatabaseMetaData`, SQLAlchemy's reflection and Metabase's
/// sync start from it; `relacl` is what `\dp` shows.
enum PgClass: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_class"
    static let columns: [(String, DataType)] = [
        ("oid", .int32), ("relname", .varchar), ("relnamespace", .int32), ("reltype", .int32), ("relowner", .int32),
        ("relam", .int32), ("relkind", .varchar), ("relnatts", .int16), ("relchecks", .int16), ("relhasindex", .boolean),
        ("relhasrules", .boolean), ("relhastriggers", .boolean), ("relrowsecurity", .boolean),
        ("relforcerowsecurity", .boolean), ("relispartition", .boolean), ("reltablespace", .int32),
        ("reloftype", .int32), ("relpersistence", .varchar), ("relreplident", .varchar), ("reltoastrelid", .int32),
        ("reloptions", .list(.varchar)), ("relacl", .list(.varchar)), ("relpartbound", .varchar), ("reltuples", .float32),
        ("relpages", .int32), ("relhassubclass", .boolean), ("relisshared", .boolean),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        let relations = context.visibleRelations
        return relations.map { relation in
            let access = relation.accessControl
            return [
                .int32(Int32(relation.id)), .string(relation.name), .int32(context.namespaceOID(of: relation)), .int32(0),
                .int32(Int32(access.owner)),
                .int32(relation.kind == .table ? 2 : 0), .string(relation.kind.relkind), .int16(Int16(relation.columns.count)),
                .int16(0), .bool(!relation.primaryKey.isEmpty || !relation.indexList.isEmpty), .bool(false), .bool(false), .bool(false), .bool(false),
                .bool(false), .int32(0), .int32(0), .string("p"), .string("d"), .int32(0), .null, context.aclValue(access, .relation(relation.kind)), .null, .float32(-1),
                .int32(0), .bool(false), .bool(false),
            ]
        } + relations.filter { !$0.primaryKey.isEmpty }.map { relation in
            [
                .int32(Int32(SystemCatalog.primaryKeyIndexOID(relation))), .string("\(relation.name)_pkey"), .int32(context.namespaceOID(of: relation)), .int32(0),
                .int32(10), .int32(403), .string("i"), .int16(Int16(relation.primaryKey.count)), .int16(0), .bool(false),
                .bool(false), .bool(false), .bool(false), .bool(false), .bool(false), .int32(0), .int32(0), .string("p"),
                .string("n"), .int32(0), .null, .null, .null, .float32(-1), .int32(0), .bool(false), .bool(false),
            ]
        } + relations.flatMap { relation in
            relation.indexList.map { indexRow($0, namespace: context.namespaceOID(of: relation)) }
        }
    }

    /// A secondary index's row.
    private static func indexRow(_ index: IndexDefinition, namespace: Int32) -> [Value] {
        var row: [Value] = [.int32(Int32(index.id)), .string(index.name), .int32(namespace), .int32(0), .int32(10), .int32(403), .string("i")]
        row += [.int16(Int16(index.keys.count + index.include.count)), .int16(0), .bool(false), .bool(false), .bool(false), .bool(false)]
        row += [.bool(false), .bool(false), .int32(0), .int32(0), .string("p"), .string("n"), .int32(0), .null, .null, .null]
        row += [.float32(-1), .int32(0), .bool(false), .bool(false)]
        return row
    }
}
