import SluiceCore

/// `pg_catalog.pg_index`: a row per primary key and per secondary index of the tables the
/// session's user may see, with key columns and options. psql's `\d`, pgjdbc's `getIndexInfo` and
/// `getPrimaryKeys`, SQLAlchemy's reflection and Metabase's sync read it.
///
/// `indkey` and `indoption` are `int2vector`s and `indclass` and `indcollation` `oidvector`s in
/// Postgres: kept as arrays, they are sent as those types.
enum PgIndex: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_index"
    static let columns: [(String, DataType)] = [
        ("indexrelid", .int32), ("indrelid", .int32), ("indnatts", .int16), ("indnkeyatts", .int16), ("indisunique", .boolean),
        ("indisprimary", .boolean), ("indisexclusion", .boolean), ("indimmediate", .boolean), ("indisclustered", .boolean),
        ("indisvalid", .boolean), ("indisreplident", .boolean), ("indkey", .list(.int16)), ("indoption", .list(.int16)),
        ("indexprs", .varchar), ("indpred", .varchar), ("indclass", .list(.int32)), ("indcollation", .list(.int32)),
        ("indnullsnotdistinct", .boolean),
    ]
    static let vectorOIDs: [String: Int32] = ["indkey": 22, "indoption": 22, "indclass": 30, "indcollation": 30]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        let relations = context.visibleRelations
        return relations.filter { !$0.primaryKey.isEmpty }.map { relation -> [Value] in
            [
                .int32(Int32(SystemCatalog.primaryKeyIndexOID(relation))), .int32(Int32(relation.id)), .int16(Int16(relation.primaryKey.count)),
                .int16(Int16(relation.primaryKey.count)), .bool(true), .bool(true), .bool(false), .bool(true), .bool(false),
                .bool(true), .bool(false), .list(relation.primaryKey.map { .int16(Int16($0 + 1)) }),
                .list(relation.primaryKey.map { _ in .int16(0) }), .null, .null,
                .list(relation.primaryKey.map { _ in .int32(1978) }), .list(relation.primaryKey.map { _ in .int32(0) }), .bool(false),
            ]
        } + relations.flatMap { relation -> [[Value]] in relation.indexList.map { indexRow($0, of: relation) } }
    }

    /// A secondary index's row.
    private static func indexRow(_ index: IndexDefinition, of relation: RelationDefinition) -> [Value] {
        let columns: [Int] = index.keys.map(\.column) + index.include
        // indoption: 1 for DESC, 2 for NULLS FIRST (INDOPTION_DESC, INDOPTION_NULLS_FIRST).
        let options: [Value] = index.keys.map { key in Value.int16((key.descending ? 1 : 0) | (key.nullsFirst ? 2 : 0)) }
        let keys: [Value] = columns.map { column in Value.int16(Int16(column + 1)) }
        var row: [Value] = [.int32(Int32(index.id)), .int32(Int32(relation.id)), .int16(Int16(columns.count)), .int16(Int16(index.keys.count))]
        row += [.bool(false), .bool(false), .bool(false), .bool(true), .bool(false), .bool(true), .bool(false)]
        row += [.list(keys), .list(options), .null, .null]
        row += [.list(index.keys.map { _ in Value.int32(1978) }), .list(index.keys.map { _ in Value.int32(0) }), .bool(false)]
        return row
    }
}
