import SluiceCore
import SluiceSQL

/// `pg_catalog.pg_indexes`: a row per primary key index and secondary index of the tables the
/// session's user may see, with its `CREATE INDEX` statement. Admin tools and Metabase read it.
enum PgIndexes: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_indexes"
    static let columns: [(String, DataType)] = [
        ("schemaname", .varchar), ("tablename", .varchar), ("indexname", .varchar), ("tablespace", .varchar), ("indexdef", .varchar),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        context.visibleRelations.flatMap { relation -> [[Value]] in
            var rows: [[Value]] = []
            if !relation.primaryKey.isEmpty {
                let columns = relation.primaryKey.map { quoteIdentifierIfNeeded(relation.columns[$0].name) }.joined(separator: ", ")
                rows.append([
                    .string(relation.schema), .string(relation.name), .string("\(relation.name)_pkey"), .null,
                    .string("CREATE UNIQUE INDEX \(relation.name)_pkey ON \(relation.schema).\(relation.name) USING btree (\(columns))"),
                ])
            }
            for index in relation.indexList {
                rows.append([.string(relation.schema), .string(relation.name), .string(index.name), .null, .string(index.definition(on: relation))])
            }
            return rows
        }
    }
}
