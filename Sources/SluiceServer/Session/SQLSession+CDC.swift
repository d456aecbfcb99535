import SluiceConnectors
import SluiceCore
import SluicePGWire
import SluicePlanner
import SluiceSQL

extension SQLSession {
    /// After `CREATE SOURCE pg WITH (connector = 'postgres-cdc', …) FOR ALL TABLES`
    /// (Materialize's shorthand): a table for each upstream table, as `CREATE TABLE IF NOT EXISTS
    /// <table> (*) FROM pg TABLE '<schema>.<table>'` would make it. The notices say which tables
    /// were made and which were left out (no primary key, or a name already taken).
    func createTablesForAllTables(of source: RelationDefinition) async throws(SluiceError) -> [SluiceError] {
        let (tables, keyless) = try PostgresCDCConnector.upstreamTables(Database.sourceDescription(source))
        var notices: [SluiceError] = []
        let sourceName = "\(quoted(source.schema)).\(quoted(source.name))"
        var made: [String] = []
        for table in tables {
            let upstream = "\(table.schema).\(table.name)".replacingOccurrences(of: "'", with: "''")
            let sql = "CREATE TABLE IF NOT EXISTS \(quoted(source.schema)).\(quoted(table.name)) (*) FROM \(sourceName) TABLE '\(upstream)'"
            for statement in try SQLParser.parse(sql) {
                var binder = Binder(catalog: database.catalog, session: info, parameterTypes: [])
                let result = try await run(try binder.bind(statement))
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

    private func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
