import SluiceCore
import SluiceDataflow
import SluicePGWire
import SluicePlanner
import SluiceSQL

extension CreateSourceHandler {
    /// After `CREATE SOURCE pg WITH (connector = 'postgres-cdc', …) FOR ALL TABLES`
    /// (Materialize's shorthand): a table for each upstream table, as `CREATE TABLE IF NOT EXISTS
    /// <table> (*) FROM pg TABLE '<schema>.<table>'` would make it. The notices say which tables
    /// were made and which were left out (no primary key, or a name already taken).
    static func createTablesForAllTables(of source: RelationDefinition, in session: SQLSession) async throws(SluiceError) -> [SluiceError] {
        guard let listing = try session.database.makeConnector(SourceDescription(source), false) as? any UpstreamTableListing else {
            throw SluiceError(.featureNotSupported, "FOR ALL TABLES takes a postgres-cdc source")
        }
        let (tables, keyless) = try listing.upstreamTables()
        var notices: [SluiceError] = []
        let sourceName = "\(quoted(source.schema)).\(quoted(source.name))"
        var made: [String] = []
        for table in tables {
            let upstream = "\(table.schema).\(table.name)".replacingOccurrences(of: "'", with: "''")
            let sql = "CREATE TABLE IF NOT EXISTS \(quoted(source.schema)).\(quoted(table.name)) (*) FROM \(sourceName) TABLE '\(upstream)'"
            for statement in try SQLParser.parse(sql) {
                var binder = Binder(catalog: session.database.catalog, session: session.info, parameterTypes: [])
                let result = try await session.run(try binder.bind(statement))
                notices += result.notices
                if result.notices.isEmpty { made.append(table.name) }
            }
        }
        if !made.isEmpty { notices.append(SluiceError(.successfulCompletion, "made tables \(made.joined(separator: ", ")) from \(source.name)")) }
        if !keyless.isEmpty {
            notices.append(SluiceError(.warning, "left out \(keyless.joined(separator: ", ")): a table FROM a CDC source needs the upstream table's primary key"))
        }
        return notices
    }

    private static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
