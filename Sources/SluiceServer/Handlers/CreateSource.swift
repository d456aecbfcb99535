import SluiceCore
import SluiceDataflow
import SluicePGWire
import SluicePlanner

/// CREATE SOURCE, and CREATE TABLE with a connector: the connector checks its options and
/// reaches its outside system first, so a mistake is an error here, not later; then the
/// catalog entry, and the connector starts (``start(_:for:watermark:in:)``, which a restart
/// replays).
enum CreateSourceHandler {
    /// Creates source or connector-fed table `relation`; `… FOR ALL TABLES` of a CDC source
    /// makes a table for each upstream table as well.
    static func run(_ relation: RelationDefinition, in session: SQLSession) async throws(SluiceError) -> PGStatementResult {
        let notices = try apply(relation, to: session.database)
        var result = PGStatementResult(
            commandTag: relation.kind == .table ? "CREATE_TABLE" : "CREATE_SOURCE", notices: notices.map { SluiceError(.warning, $0) })
        if relation.kind == .source, relation.connector?.forAllTables == true {
            result.notices += try await createTablesForAllTables(of: relation, in: session)
        }
        return result
    }

    /// Registers source or connector-fed table `relation` and starts its connector, which first
    /// checks its options and reaches its outside system. Returns the connector's notices for
    /// the user.
    @discardableResult
    static func apply(_ relation: RelationDefinition, to database: Database) throws(SluiceError) -> [String] {
        let connector = try database.makeConnector(SourceDescription(relation), true)
        var relation = relation
        if relation.columns.isEmpty && !isSharedCDCSource(relation) {
            guard let inferred = connector.inferredColumns, !inferred.isEmpty else {
                connector.stop()
                throw SluiceError(
                    .invalidTableDefinition, "\(relation.kind == .table ? "table" : "source") \"\(relation.name)\" needs its columns listed",
                    hint: "The \(relation.connector?.connector ?? "") connector cannot tell them; Iceberg tables, Parquet files and ENCODE AVRO with a schema registry say their columns.")
            }
            relation.columns = inferred.map { CatalogColumn(name: $0.name, type: $0.type) }
            // `CREATE TABLE t (PRIMARY KEY (id)) WITH (…)`: the key the statement names, else
            // the one the connector says.
            if let key = relation.connector?.primaryKeyNames ?? connector.inferredPrimaryKey {
                relation.primaryKey = []
                for name in key {
                    guard let index = relation.columns.firstIndex(where: { $0.name == name }) else {
                        connector.stop()
                        throw SluiceError(
                            .undefinedColumn, "column \"\(name)\" named in PRIMARY KEY is not one of the columns the \(relation.connector?.connector ?? "") connector gives",
                            hint: "Its columns: \(relation.columns.map(\.name).joined(separator: ", ")).")
                    }
                    relation.primaryKey.append(index)
                    relation.columns[index].isNullable = false
                }
            }
            relation.connector?.primaryKeyNames = nil
        }
        // Where it starts, resolved now, is kept: after a restart the source starts there again.
        relation.connector?.startPositions = connector.positions
        do {
            if relation.kind == .table {
                try CreateTableHandler.apply(relation, to: database)
            } else {
                try database.catalog.add(relation)
                try database.saveCatalog()
            }
        } catch {
            connector.stop()
            throw error
        }
        start(connector, for: relation, in: database)
        return connector.notices
    }

    /// A CDC source (`connector = 'postgres-cdc'`) is shared by the tables made FROM it and has
    /// no columns of its own.
    static func isSharedCDCSource(_ relation: RelationDefinition) -> Bool {
        relation.kind == .source && (relation.connector?.connector.hasSuffix("-cdc") ?? false)
    }
}
