import SluiceCore
import SluiceLakehouseClients
import SluicePGWire
import SluiceSQL

/// Flink's catalog statements. Catalogs belong to the session, as in Flink's SQL client (its
/// default catalog store keeps them in memory): `default_catalog` is Sluice's own, whose
/// databases are its schemas (`default_database` is `public`); a `generic_in_memory` catalog
/// names the same schemas; an `iceberg` catalog names an Iceberg REST catalog.
enum CatalogHandler {
    static let defaultCatalog = "default_catalog"
    static let defaultDatabase = "default_database"

    static func run(_ statement: CatalogStatement, in session: SQLSession) async throws(SluiceError) -> PGStatementResult {
        switch statement {
        case .create(let name, let ifNotExists, let options):
            let settings = try validated(options, catalog: name)
            if let uri = settings["uri"] {
                // Flink's catalog connects when it is made: an address that cannot be reached is refused then.
                let aliases = session.database.hostAliases
                try aliases.checkResolves(["catalog.uri": aliases.rewrite(uri)])
            }
            let database = session.info.database
            var created = true
            try session.updateFlinkCatalogs { (catalogs, _) throws(SluiceError) in
                if catalogs[name] != nil || name == defaultCatalog || name == database {
                    guard ifNotExists else { throw SluiceError(.duplicateObject, "Catalog \(name) already exists.") }
                    created = false
                    return
                }
                catalogs[name] = settings
            }
            if !created { return PGStatementResult(commandTag: "CREATE CATALOG", notices: [SluiceError(.duplicateObject, "catalog \"\(name)\" already exists, skipping")]) }
            return PGStatementResult(commandTag: "CREATE CATALOG")
        case .drop(let name, let ifExists):
            try session.updateFlinkCatalogs { (catalogs, current) throws(SluiceError) in
                guard catalogs.removeValue(forKey: name) != nil else {
                    if ifExists { return }
                    throw SluiceError(.undefinedObject, "Catalog \(name) does not exist.")
                }
                if current == name { current = nil }
            }
            return PGStatementResult(commandTag: "DROP CATALOG")
        case .createDatabase(let name, _):
            // A namespace of an Iceberg catalog (the binder makes the others schemas).
            guard let catalog = name.qualifier.first, let options = session.flinkCatalogs.catalogs[catalog], let uri = options["uri"] else {
                throw SluiceError(.internalError, "CREATE DATABASE outside an Iceberg catalog is bound as CREATE SCHEMA")
            }
            let aliases = session.database.hostAliases
            let client = IcebergRESTCatalogClient(configuration: .init(
                uri: aliases.rewrite(uri), credential: options["credential"], token: options["token"], scope: options["scope"] ?? "catalog",
                warehouse: options["warehouse"], oauth2ServerURI: options["oauth2-server-uri"].map(aliases.rewrite)))
            try await client.createNamespaceIfMissing([name.name])
            return PGStatementResult(commandTag: "CREATE DATABASE")
        case .useCatalog(let name):
            try use(catalog: name, in: session)
            return PGStatementResult(commandTag: "USE CATALOG")
        case .useDatabase(let name):
            if name.qualifier.count > 1 { throw SluiceError(.syntaxError, "USE takes a database or catalog.database, not \(name)") }
            if let catalog = name.qualifier.first { try use(catalog: catalog, in: session) }
            let schema = name.name == defaultDatabase ? "public" : name.name
            guard session.database.catalog.hasSchema(schema) else {
                throw SluiceError(.invalidSchemaName, "A database with name [\(name.name)] does not exist in the catalog: [\(session.flinkCatalogs.current ?? defaultCatalog)].")
            }
            session.updateSettings { $0["search_path"] = schema }
            return PGStatementResult(commandTag: "USE")
        case .showCatalogs:
            let names = [defaultCatalog] + session.flinkCatalogs.catalogs.keys.sorted()
            return rows(column: "catalog name", names)
        case .showCurrentCatalog:
            return rows(column: "current catalog name", [session.flinkCatalogs.current ?? defaultCatalog])
        case .showCurrentDatabase:
            let schema = session.currentSchema(searchPath: session.setting("search_path"))
            return rows(column: "current database name", [schema == "public" ? defaultDatabase : schema])
        case .showJobs:
            let catalog = session.database.catalog
            let jobs = catalog.visibleRelations(to: catalog.role(named: session.info.user))
                .filter { $0.kind == .sink || $0.kind == .materializedView }.sorted { $0.id < $1.id }
            let columns = [
                Column(type: .varchar, values: jobs.map { .string(jobID($0.id)) }),
                Column(type: .varchar, values: jobs.map { .string($0.schema == "public" ? $0.name : "\($0.schema).\($0.name)") }),
                Column(type: .varchar, values: jobs.map { _ in .string("RUNNING") }),
                Column(type: .timestamptz, values: jobs.map { _ in .null }),
            ]
            return PGStatementResult(commandTag: "SHOW", columns: Self.columns(of: .showJobs), chunks: jobs.isEmpty ? [] : [Chunk(columns: columns)])
        case .stopJob:
            throw SluiceError(.internalError, "STOP JOB is bound as a DROP")
        }
    }

    /// The result columns of the statements that return rows.
    static func columns(of statement: CatalogStatement) -> [PGColumn]? {
        switch statement {
        case .showCatalogs: [PGColumn(name: "catalog name", type: .varchar)]
        case .showCurrentCatalog: [PGColumn(name: "current catalog name", type: .varchar)]
        case .showCurrentDatabase: [PGColumn(name: "current database name", type: .varchar)]
        case .showJobs:
            [PGColumn(name: "job id", type: .varchar), PGColumn(name: "job name", type: .varchar), PGColumn(name: "status", type: .varchar),
             PGColumn(name: "start time", type: .timestamptz)]
        default: nil
        }
    }

    /// A job's id as Flink shows one: 32 hexadecimal digits (the relation's id).
    static func jobID(_ id: Int) -> String {
        let digits = String(id, radix: 16)
        return String(repeating: "0", count: max(0, 32 - digits.count)) + digits
    }

    private static func use(catalog name: String, in session: SQLSession) throws(SluiceError) {
        let database = session.info.database
        try session.updateFlinkCatalogs { (catalogs, current) throws(SluiceError) in
            if name == defaultCatalog || name == database {
                current = nil
                return
            }
            guard catalogs[name] != nil else { throw SluiceError(.undefinedObject, "Catalog \(name) does not exist.") }
            current = name
        }
    }

    /// A catalog's options, checked as Flink's catalog factories check theirs.
    static func validated(_ options: [WithOption], catalog: String) throws(SluiceError) -> [String: String] {
        var settings: [String: String] = [:]
        for option in options {
            guard settings[option.key] == nil else { throw SluiceError(.invalidParameterValue, "Option '\(option.key)' is given more than once.") }
            settings[option.key] = option.value.text
        }
        guard let type = settings["type"] else {
            throw SluiceError(.invalidParameterValue, "Catalog options do not contain an option key 'type' for discovering a catalog.")
        }
        let allowed: Set<String>
        switch type {
        case "generic_in_memory":
            allowed = ["type", "default-database"]
        case "iceberg":
            guard (settings["catalog-type"] ?? "rest") == "rest" else {
                throw SluiceError(
                    .featureNotSupported, "Iceberg catalogs of type '\(settings["catalog-type"] ?? "")' are not supported; 'catalog-type' = 'rest' is",
                    hint: "Sluice's built-in Iceberg REST catalog, or any other REST catalog, serves the tables.")
            }
            guard settings["uri"] != nil else { throw SluiceError(.invalidParameterValue, "Missing required options are:\n\nuri") }
            allowed = [
                "type", "catalog-type", "uri", "warehouse", "oauth2-server-uri", "credential", "scope", "token", "io-impl", "prefix",
                "default-database", "cache-enabled", "property-version",
            ]
        default:
            throw SluiceError(
                .featureNotSupported,
                "Could not find any factory for identifier '\(type)' that implements 'org.apache.flink.table.factories.CatalogFactory' in the classpath.",
                hint: "The catalog types here: 'generic_in_memory' and 'iceberg' (with 'catalog-type' = 'rest').")
        }
        let unknown = settings.keys.filter { !allowed.contains($0) && !$0.hasPrefix("s3.") && !$0.hasPrefix("client.") && !$0.hasPrefix("rest.") }
        guard unknown.isEmpty else {
            throw SluiceError(
                .invalidParameterValue, "Unsupported options found for '\(type)'.\n\nUnsupported options:\n\n\(unknown.sorted().joined(separator: "\n"))")
        }
        return settings
    }

    private static func rows(column: String, _ values: [String]) -> PGStatementResult {
        PGStatementResult(
            commandTag: "SHOW", columns: [PGColumn(name: column, type: .varchar)],
            chunks: [Chunk(columns: [Column(type: .varchar, values: values.map { .string($0) })])])
    }
}
