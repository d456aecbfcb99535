import SluiceCore
import SluicePGWire
import SluiceSQL

extension TrinoStatement {
    /// Runs the statement: Trino's own from the catalogs, the rest through `session`, the same
    /// SQL session the Postgres port uses.
    /// `prepared`: the statements the client keeps (`X-Trino-Prepared-Statement`), by name.
    func run(
        session: SQLSession, names: TrinoSessionNames, catalogs: TrinoCatalogs, prepared: [String: String] = [:]
    ) async throws(SluiceError) -> TrinoOutcome {
        switch self {
        case .showCatalogs(let like):
            return Self.listing("Catalog", catalogs.names, like: like)
        case .showSchemas(let catalog, let like):
            guard let catalog = catalog ?? names.catalog else {
                throw SluiceError(.invalidCatalogName, "Catalog must be specified when session catalog is not set")
            }
            return Self.listing("Schema", try catalogs.schemas(of: catalog), like: like)
        case .showTables(let name, let like):
            let parts = name?.parts ?? []
            guard let catalog = parts.count == 2 ? parts[0] : names.catalog else {
                throw SluiceError(.invalidCatalogName, "Catalog must be specified when session catalog is not set")
            }
            guard let schema = parts.last ?? names.schema else {
                throw SluiceError(.invalidSchemaName, "Schema must be specified when session schema is not set")
            }
            guard parts.count <= 2 else { throw SluiceError(.syntaxError, "Too many parts in schema name: \(name!.description)") }
            guard try catalogs.schemas(of: catalog).contains(schema) else {
                throw SluiceError(.invalidSchemaName, "Schema '\(schema)' does not exist")
            }
            return Self.listing("Table", try catalogs.tables(of: catalog, schema: schema), like: like)
        case .describe(let name):
            let columns = try catalogs.columns(of: name, session: names, scans: session.fileScans)
            let rows = Chunk(columns: [
                Column(type: .varchar, values: columns.map { .string($0.name) }),
                Column(type: .varchar, values: columns.map { .string(TrinoTypes.name(of: $0.type)) }),
                Column(type: .varchar, values: columns.map { _ in .string("") }),
                Column(type: .varchar, values: columns.map { _ in .string("") }),
            ])
            return .rows(
                columns: [("Column", .varchar), ("Type", .varchar), ("Extra", .varchar), ("Comment", .varchar)], chunks: [rows], stream: nil)
        case .use(let catalog, let schema):
            guard let catalog = catalog ?? names.catalog else {
                throw SluiceError(.invalidCatalogName, "Catalog must be specified when session catalog is not set")
            }
            guard try catalogs.schemas(of: catalog).contains(schema) else {
                throw SluiceError(.invalidSchemaName, "Schema '\(schema)' does not exist")
            }
            return .use(TrinoSessionNames(catalog: catalog, schema: schema))
        case .executeImmediate(let text, let using):
            return try await Self.execute(text, using: using, in: session)
        case .prepare(let name, let text):
            // Checked now, as Trino does; the client keeps it.
            for statement in try await session.prepare(text, parameterTypes: []) { session.close(statement) }
            return .prepared(name: name, statement: text)
        case .execute(let name, let using):
            guard let text = prepared[name] else { throw SluiceError(.invalidSQLStatementName, "Prepared statement not found: \(name)") }
            return try await Self.execute(text, using: using, in: session)
        case .deallocate(let name):
            guard prepared[name] != nil else { throw SluiceError(.invalidSQLStatementName, "Prepared statement not found: \(name)") }
            return .deallocated(name: name)
        case .sql(let text):
            let statements = try await session.prepare(text, parameterTypes: [])
            guard !statements.isEmpty else { throw SluiceError(.syntaxError, "line 1:1: mismatched input '<EOF>': the statement is empty") }
            var result = PGStatementResult(commandTag: "")
            for statement in statements {
                result = try await session.execute(statement, parameters: [])
                session.close(statement)
            }
            if let columns = result.columns {
                return .rows(columns: columns.map { ($0.name, $0.type) }, chunks: result.chunks, stream: result.stream)
            }
            return Self.update(result.commandTag)
        }
    }

    /// Runs `text` with its `?` bound to `using`'s values (a list of constants; nil: none).
    private static func execute(_ text: String, using: String?, in session: SQLSession) async throws(SluiceError) -> TrinoOutcome {
        // The values are constants: evaluated as a one-row SELECT of them, as the session
        // evaluates any other.
        var values: [Value] = []
        var types: [DataType?] = []
        if let using {
            let list = try await session.prepare("SELECT " + using, parameterTypes: [])
            guard list.count == 1 else { throw SluiceError(.syntaxError, "EXECUTE's USING takes a list of values") }
            let row = try await session.execute(list[0], parameters: []).collected()
            session.close(list[0])
            guard let chunk = row.chunks.first(where: { $0.count > 0 }) else { throw SluiceError(.syntaxError, "EXECUTE's USING gave no values") }
            values = chunk.columns.map { $0.value(at: 0) }
            types = chunk.columns.map { $0.type == .unknown ? nil : $0.type }
        }
        let statements = try await session.prepare(text, parameterTypes: types)
        guard statements.count == 1 else { throw SluiceError(.syntaxError, "EXECUTE takes one statement") }
        guard statements[0].parameterTypes.count == values.count else {
            throw SluiceError(
                .syntaxError, "the statement has \(statements[0].parameterTypes.count) parameters but USING gives \(values.count) values")
        }
        let result = try await session.execute(statements[0], parameters: values)
        session.close(statements[0])
        if let columns = result.columns {
            return .rows(columns: columns.map { ($0.name, $0.type) }, chunks: result.chunks, stream: result.stream)
        }
        return Self.update(result.commandTag)
    }

    /// One varchar column of `values` that match `like` (Trino's LIKE: `%` and `_`).
    private static func listing(_ column: String, _ values: [String], like: String?) -> TrinoOutcome {
        let kept = like.map { pattern in values.filter { Self.matches($0, pattern) } } ?? values
        return .rows(columns: [(column, .varchar)], chunks: [Chunk(columns: [Column(type: .varchar, values: kept.map { .string($0) })])], stream: nil)
    }

    /// Whether `text` matches the LIKE pattern.
    static func matches(_ text: String, _ pattern: String) -> Bool {
        let text = Array(text.unicodeScalars)
        let pattern = Array(pattern.unicodeScalars)
        // Positions in the text a prefix of the pattern can end at.
        var reachable = Set([0])
        for symbol in pattern {
            var next = Set<Int>()
            for position in reachable {
                switch symbol {
                case "%": next.formUnion(position ... text.count)
                case "_": if position < text.count { next.insert(position + 1) }
                default: if position < text.count, text[position] == symbol { next.insert(position + 1) }
                }
            }
            reachable = next
            if reachable.isEmpty { return false }
        }
        return reachable.contains(text.count)
    }

    /// Trino's update type and count for a CommandComplete tag (`INSERT 0 3`, `CREATE_TABLE`).
    static func update(_ tag: String) -> TrinoOutcome {
        let words = tag.split(separator: " ")
        let type = (words.first.map(String.init) ?? "").replacingOccurrences(of: "_", with: " ")
        switch type {
        case "INSERT", "UPDATE", "DELETE", "COPY":
            return .update(type: type, count: words.last.flatMap { Int($0) })
        default:
            return .update(type: words.prefix { Int($0) == nil }.joined(separator: " ").replacingOccurrences(of: "_", with: " "), count: nil)
        }
    }
}
